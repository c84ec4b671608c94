"""tablestorm.sim.load.stats: the histogram's precision and exact merges, and RunStats' counting and shipping."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablestorm.sim.load.stats import (
    BUCKETS,
    LAYOUT,
    LOWEST_S,
    PROTOCOL_VIOLATION,
    RELATIVE_ERROR,
    TOP_S,
    UNKNOWN_GAME,
    GameStats,
    LatencyHistogram,
    RunStats,
    bucket_bounds,
    bucket_index,
    bucket_value,
)

in_range = st.floats(min_value=LOWEST_S, max_value=TOP_S, exclude_max=True)
latencies = st.one_of(in_range, st.floats(min_value=0.0, max_value=1e4))
percents = st.floats(min_value=0.0, max_value=100.0)
untimed = settings(deadline=None)
"""No per-example deadline: timing varies on a busy CI machine, correctness does not."""


def histogram(samples: list[float]) -> LatencyHistogram:
    hist = LatencyHistogram()
    for sample in samples:
        hist.record(sample)
    return hist


def exact_percentile(samples: list[float], q: float) -> float:
    """Nearest rank: the ceil(q/100 * n)-th smallest sample (q/100 * n rounded to 9 places first)."""
    return sorted(samples)[max(1, math.ceil(round(q * len(samples) / 100, 9))) - 1]


# --- bucket layout --------------------------------------------------------------------------


def test_layout_edges() -> None:
    assert BUCKETS == 832
    assert bucket_index(LOWEST_S) == 0
    assert bucket_index(math.nextafter(TOP_S, 0)) == BUCKETS - 1
    assert bucket_bounds(0) == (LOWEST_S, LOWEST_S * (1 + 1 / 32))
    assert bucket_bounds(BUCKETS - 1) == (TOP_S * (1 - 1 / 64), TOP_S)
    # one millisecond: octave [2**-10, 2**-9), sub-bucket int((0.001 / 2**-10 - 1) * 32) = 0
    assert bucket_bounds(bucket_index(0.001)) == (2**-10, 2**-10 * 33 / 32)
    assert bucket_value(bucket_index(0.001)) == 2**-10 * 65 / 64


def test_buckets_tile_the_range() -> None:
    for index in range(BUCKETS - 1):
        assert bucket_bounds(index)[1] == bucket_bounds(index + 1)[0]
        lower, upper = bucket_bounds(index)
        assert bucket_index(lower) == index
        assert bucket_index(math.nextafter(upper, 0)) == index


def test_out_of_range_values_go_to_the_edge_buckets() -> None:
    assert bucket_index(0.0) == 0
    assert bucket_index(LOWEST_S / 2) == 0
    assert bucket_index(TOP_S) == BUCKETS - 1
    assert bucket_index(1e9) == BUCKETS - 1


@pytest.mark.parametrize("bad", [-1e-9, -1.0, math.nan, math.inf, -math.inf])
def test_invalid_latency_is_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="latency must be"):
        bucket_index(bad)
    with pytest.raises(ValueError):
        LatencyHistogram().record(bad)


@untimed
@given(in_range)
def test_bucket_midpoint_within_relative_error(value: float) -> None:
    index = bucket_index(value)
    lower, upper = bucket_bounds(index)
    assert lower <= value < upper
    assert abs(bucket_value(index) - value) <= RELATIVE_ERROR * value


# --- LatencyHistogram -----------------------------------------------------------------------


def test_exact_numbers_on_four_samples() -> None:
    hist = histogram([0.004, 0.001, 0.003, 0.002])
    assert hist.count == 4
    assert hist.min == 0.001
    assert hist.max == 0.004
    assert hist.sum_ns == 10_000_000
    assert hist.mean == 0.0025
    assert hist.percentile(0) == 0.001  # rank 1: the minimum, exactly
    assert hist.percentile(25) == 0.001
    # rank 2 is 0.002 s, in bucket [2**-9, 2**-9 * 33/32): reported by its midpoint
    assert hist.percentile(50) == 2**-9 * 65 / 64 == 0.001983642578125
    assert hist.percentile(50.1) == bucket_value(bucket_index(0.003))
    assert hist.percentile(100) == 0.004  # the maximum, exactly


def test_percentile_is_clamped_to_min_and_max() -> None:
    assert histogram([0.001] * 4).percentile(50) == 0.001  # the bucket's midpoint is 0.99 ms
    assert histogram([0.0011] * 4).percentile(50) == 0.0011  # the bucket's midpoint is 1.11 ms


def test_out_of_range_samples_are_reported_by_the_edge_buckets() -> None:
    hist = histogram([0.0, 0.0, 0.0, 100.0, 100.0, 100.0])
    assert hist.percentile(40) == bucket_value(0)  # rank 3
    assert hist.percentile(60) == bucket_value(BUCKETS - 1) == 63.5  # rank 4
    assert (hist.min, hist.max, hist.mean) == (0.0, 100.0, 50.0)


def test_empty_histogram() -> None:
    hist = LatencyHistogram()
    assert (hist.count, hist.mean, hist.min, hist.max, hist.percentile(99)) == (0, None, None, None, None)
    assert list(hist.buckets()) == []
    assert hist.cumulative_buckets([0.1]) == [(0.1, 0), (math.inf, 0)]


@pytest.mark.parametrize("q", [-0.1, 100.1, math.nan])
def test_percentile_out_of_range(q: float) -> None:
    with pytest.raises(ValueError, match="percentile must be within"):
        histogram([0.1]).percentile(q)


def test_buckets_and_cumulative_buckets() -> None:
    hist = histogram([0.001, 0.001, 0.002, 0.5])
    assert list(hist.buckets()) == [
        (2**-10, 2**-10 * 33 / 32, 2),
        (2**-9, 2**-9 * 33 / 32, 1),
        (0.5, 0.5 * 33 / 32, 1),
    ]
    assert hist.cumulative_buckets([0.5, 0.00099, 0.001, 0.01]) == [
        (0.00099, 0),  # the 1 ms samples' bucket [0.977, 1.007) ms reports 0.992 ms, above the bound
        (0.001, 2),
        (0.01, 3),
        (0.5, 3),
        (math.inf, 4),
    ]


@settings(untimed, max_examples=300)
@given(st.lists(in_range, min_size=1, max_size=300), percents)
def test_percentile_within_relative_error_of_exact(samples: list[float], q: float) -> None:
    estimate = histogram(samples).percentile(q)
    exact = exact_percentile(samples, q)
    assert estimate is not None
    assert abs(estimate - exact) <= RELATIVE_ERROR * exact


@untimed
@given(st.lists(latencies, max_size=100), st.lists(latencies, max_size=100))
def test_merge_equals_recording_everything_in_one(a: list[float], b: list[float]) -> None:
    merged = histogram(a)
    merged.merge(histogram(b))
    assert merged == histogram(a + b)
    assert merged.to_dict() == histogram(b + a).to_dict()


@untimed
@given(st.lists(latencies, max_size=200))
def test_to_dict_round_trips_through_json(samples: list[float]) -> None:
    hist = histogram(samples)
    data = json.loads(json.dumps(hist.to_dict()))
    again = LatencyHistogram.from_dict(data)
    assert again == hist
    assert again.to_dict() == hist.to_dict()
    assert len(data["buckets"]) == len({bucket_index(s) for s in samples})  # only non-empty buckets


def test_from_dict_rejects_foreign_or_inconsistent_data() -> None:
    good = histogram([0.01, 0.02]).to_dict()
    with pytest.raises(ValueError, match="layout"):
        LatencyHistogram.from_dict({**good, "layout": "hdr/2048"})
    with pytest.raises(ValueError, match="do not add up"):
        LatencyHistogram.from_dict({**good, "count": 3})
    with pytest.raises(ValueError, match="bad histogram bucket"):
        LatencyHistogram.from_dict({**good, "buckets": [[BUCKETS, 2]]})
    assert good["layout"] == LAYOUT


# --- RunStats -------------------------------------------------------------------------------


def sample_run() -> RunStats:
    """Two games: Seven Card Stud has two actions, a hand with side pots and a cap, a voided hand and
    two timeouts; Five Card Stud one action, a plain hand and a timeout."""
    stats = RunStats()
    stats.action(0.010, "call", "tight", now=0.2, game="7stud")
    stats.action(0.020, "raise", "tight", now=0.9, game="7stud")
    stats.action(0.030, "call", "maniac", now=1.5, game="5stud")
    stats.hand(now=1.6, side_pots=2, raise_caps=1, game="7stud")
    stats.hand(now=3.0, game="5stud")
    stats.hand_voided("7stud")
    stats.error("UNAVAILABLE", now=1.7)
    stats.error("UNAVAILABLE", now=3.1)
    stats.error(PROTOCOL_VIOLATION, now=3.2)
    stats.timeout("all_in", "7stud")
    stats.timeout("fold", "5stud")
    stats.timeout("fold", "7stud")
    return stats


def test_each_count_lands_in_its_game_and_the_totals_are_their_sums() -> None:
    stats = sample_run()
    stud, five = stats.games["7stud"], stats.games["5stud"]
    assert (stud.hands, stud.actions, stud.hands_voided, stud.side_pots, stud.raise_caps) == (1, 2, 1, 2, 1)
    assert (five.hands, five.actions, five.hands_voided, five.side_pots, five.raise_caps) == (1, 1, 0, 0, 0)
    assert (stud.timeouts_by_outcome["all_in"], stud.timeouts_by_outcome["fold"], five.timeouts) == (1, 1, 1)
    assert stud.latency == histogram([0.010, 0.020]) and five.latency == histogram([0.030])
    assert stats.hands == stud.hands + five.hands and stats.actions == stud.actions + five.actions
    assert stats.timeouts == stud.timeouts + five.timeouts == 3
    merged = GameStats()
    merged.merge(stud)
    merged.merge(five)
    assert merged.latency == stats.latency()
    assert GameStats.from_dict(json.loads(json.dumps(stud.to_dict()))) == stud
    assert set(RunStats.from_dict(stats.to_dict()).games) == {"7stud", "5stud"}
    unnamed = RunStats()
    unnamed.hand(now=0.5)
    assert list(unnamed.games) == [UNKNOWN_GAME] and unnamed.games[UNKNOWN_GAME].hands == unnamed.hands == 1


def test_run_stats_counts() -> None:
    stats = sample_run()
    assert (stats.hands, stats.actions, stats.hands_voided) == (2, 3, 1)
    assert (stats.side_pots, stats.raise_caps) == (2, 1)
    assert stats.errors == {"UNAVAILABLE": 2, PROTOCOL_VIOLATION: 1}
    assert stats.protocol_violations == 1
    assert stats.timeouts == 3
    assert stats.timeouts_by_outcome == {"check": 0, "all_in": 1, "fold": 2, "bring_in": 0, "stand_pat": 0}
    assert stats.actions_by_kind == {"call": 2, "raise": 1}
    assert stats.actions_by_bot == {"tight": 2, "maniac": 1}
    assert sorted(stats.series) == [0, 1, 3]
    zero, one, three = stats.series[0], stats.series[1], stats.series[3]
    assert (zero.actions, zero.hands, zero.errors) == (2, 0, {})
    assert (one.actions, one.hands, one.errors) == (1, 1, {"UNAVAILABLE": 1})
    assert (three.actions, three.hands, three.errors_total) == (0, 1, 2)
    assert stats.latency() == histogram([0.010, 0.020, 0.030])
    assert zero.latency == histogram([0.010, 0.020])


def test_times_before_the_start_count_in_second_zero() -> None:
    stats = RunStats()
    stats.action(0.001, "check", "calling_station", now=-1.5)
    assert list(stats.series) == [0]


def test_unknown_timeout_outcome_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown timeout outcome 'sit_out'; known: check, all_in"):
        RunStats().timeout("sit_out")


def test_window_merges_seconds_in_range() -> None:
    stats = sample_run()
    window = stats.window(1, 4)
    assert (window.hands, window.actions, window.errors) == (2, 1, {"UNAVAILABLE": 2, PROTOCOL_VIOLATION: 1})
    assert stats.window(0, 10**9).actions == 3  # a window much wider than the series
    assert stats.window(5, 9).actions == 0


def test_take_hands_over_and_starts_afresh() -> None:
    stats = RunStats()
    stats.action(0.01, "call", "tight", now=2.1)
    stats.timeout("check")
    taken = stats.take()
    assert (taken.actions, taken.timeouts, list(taken.series)) == (1, 1, [2])
    assert (stats.actions, stats.timeouts, stats.series) == (0, 0, {})
    stats.action(0.02, "call", "tight", now=2.5)  # same second as the cached one: must not reach `taken`
    assert (taken.actions, stats.actions) == (1, 1)


def test_round_trip_and_merge_of_run_stats() -> None:
    stats = sample_run()
    data = json.loads(json.dumps(stats.to_dict()))
    assert RunStats.from_dict(data) == stats
    assert RunStats.from_dict(RunStats().to_dict()) == RunStats()
    assert RunStats().to_dict() == {"series": []}  # zero totals are left out
    doubled = sample_run()
    doubled.merge(sample_run())
    assert doubled.hands == 4
    assert doubled.errors == {"UNAVAILABLE": 4, PROTOCOL_VIOLATION: 2}
    assert doubled.timeouts_by_outcome["fold"] == 4
    assert doubled.side_pots == 4
    assert doubled.series[0].latency.count == 4


def test_from_dict_rejects_malformed_run_stats() -> None:
    data = sample_run().to_dict()
    with pytest.raises(ValueError, match="repeated second"):
        RunStats.from_dict({**data, "series": data["series"] + data["series"][:1]})
    series = [[second, {**counts, "chaos_errors": {"UNAVAILABLE": 5}}] for second, counts in data["series"]]
    with pytest.raises(ValueError, match="chaos errors must be among the errors"):
        RunStats.from_dict({**data, "series": series})
    games = {"7stud": {**data["games"]["7stud"], "timeouts_by_outcome": {"nap": 1}}}
    with pytest.raises(ValueError, match="unknown timeout outcome"):
        RunStats.from_dict({**data, "games": games})


games = st.sampled_from(["7stud", "7a5draw"])
events = st.lists(
    st.one_of(
        st.tuples(st.just("action"), latencies, st.floats(min_value=-1, max_value=30), games),
        st.tuples(st.just("stalled"), st.floats(0.0, 2.0), st.floats(min_value=0, max_value=30), games),
        st.tuples(st.just("unapplied"), st.floats(0.0, 2.0), st.floats(min_value=0, max_value=30), games),
        st.tuples(st.just("hand"), st.integers(0, 3), st.floats(min_value=0, max_value=30), games),
        st.tuples(st.just("voided"), st.just(0), st.just(0.0), games),
        st.tuples(st.just("error"), st.sampled_from(["UNAVAILABLE", PROTOCOL_VIOLATION]), st.floats(0, 30), games),
        st.tuples(st.just("timeout"), st.sampled_from(["check", "fold", "stand_pat"]), st.just(0.0), games),
        st.tuples(st.just("take"), st.just(0), st.just(0.0), games),
    ),
    max_size=60,
)


@untimed
@given(events)
def test_shipped_takes_merge_to_the_whole_run(script: list[tuple[str, object, float, str]]) -> None:
    """A fleet that ships take().to_dict() now and then gives the driver exactly the whole run, game
    by game; and each total is the sum of its games' counts."""
    whole, fleet, driver = RunStats(), RunStats(), RunStats()
    for what, arg, now, game in script:
        for stats in (whole, fleet):
            if what == "action":
                assert isinstance(arg, float)
                stats.action(arg, "call", "tight", now, game)
            elif what == "stalled":
                assert isinstance(arg, float)
                stats.action(arg, "call", "tight", now, game, expected_interval_s=0.1)
            elif what == "unapplied":
                assert isinstance(arg, float)
                stats.unapplied(arg, now, game, expected_interval_s=0.1)
            elif what == "hand":
                assert isinstance(arg, int)
                stats.hand(now, side_pots=arg, game=game)
            elif what == "voided":
                stats.hand_voided(game)
            elif what == "error":
                stats.error(str(arg), now)
            elif what == "timeout":
                stats.timeout(str(arg), game)
        if what == "take":
            driver.merge(RunStats.from_dict(json.loads(json.dumps(fleet.take().to_dict()))))
    driver.merge(fleet.take())
    assert driver == whole
    parts = driver.games.values()
    assert driver.hands == sum(g.hands for g in parts) and driver.actions == sum(g.actions for g in parts)
    merged = GameStats()
    for part in parts:
        merged.merge(part)
    assert merged.corrected() == driver.latency() and merged.measured() == driver.latency(corrected=False)
    assert (merged.side_pots, merged.hands_voided, merged.timeouts_by_outcome) == (
        driver.side_pots, driver.hands_voided, driver.timeouts_by_outcome
    )


# --- coordinated omission -------------------------------------------------------------------


def test_record_omitted_fills_in_one_sample_per_expected_interval() -> None:
    """HdrHistogram's recordValueWithExpectedInterval, less the value itself: value - k * interval
    while at least the interval."""
    hist = LatencyHistogram()
    hist.record_omitted(1.0, 0.25)
    assert hist == histogram([0.75, 0.5, 0.25])
    for value, interval in ((0.49, 0.25), (5.0, 0.0), (5.0, -1.0), (0.0, 0.1)):
        nothing = LatencyHistogram()
        nothing.record_omitted(value, interval)
        assert nothing.count == 0, (value, interval)


def test_a_stall_shows_in_the_corrected_percentiles_only() -> None:
    """1,000 actions at 5 ms and one held 5 s at a table that acts every 100 ms: measured, the p99 is
    5 ms; corrected, the 49 actions the table would have played meanwhile (4.9 s, 4.8 s ... 0.1 s)
    are filled in and the p99 is the 1,040th of 1,050 samples, the 40th fill-in: 4.0 s."""
    stats = RunStats()
    for _ in range(1000):
        stats.action(0.005, "call", "tight", 1.0, "7stud", expected_interval_s=0.1)
    stats.action(5.0, "call", "tight", 6.0, "7stud", expected_interval_s=0.1)
    assert stats.actions == 1001 and stats.series[6].omitted.count == stats.games["7stud"].omitted.count == 49
    measured, corrected = stats.latency(corrected=False), stats.latency()
    assert (measured.count, corrected.count) == (1001, 1050)
    assert measured.percentile(99) == pytest.approx(0.005, rel=RELATIVE_ERROR)
    assert corrected.percentile(99) == pytest.approx(4.0, rel=RELATIVE_ERROR)
    assert corrected.max == measured.max == 5.0
    assert stats.series[6].corrected().percentile(50) == pytest.approx(2.5, rel=RELATIVE_ERROR)
    # Without a pace (zero think) nothing is known to be missing.
    unpaced = RunStats()
    unpaced.action(5.0, "call", "tight", 6.0, "7stud")
    assert unpaced.latency() == unpaced.latency(corrected=False) == histogram([5.0])


def test_unapplied_actions_are_timed_but_not_counted_as_actions() -> None:
    stats = RunStats()
    stats.action(0.004, "call", "tight", 0.5, "7stud", expected_interval_s=0.5)
    stats.unapplied(2.0, 2.5, "7stud", expected_interval_s=0.5)
    assert (stats.actions, stats.games["7stud"].actions) == (1, 1)
    assert stats.latency(corrected=False) == histogram([0.004, 2.0])
    assert stats.latency() == histogram([0.004, 2.0, 1.5, 1.0, 0.5])
    shipped = RunStats.from_dict(json.loads(json.dumps(stats.to_dict())))
    assert shipped == stats and shipped.series[2].unapplied == histogram([2.0])
    assert "omitted" not in RunStats().to_dict()["series"] and set(stats.to_dict()["series"][0][1]) == {"latency"}


samples = st.lists(
    st.tuples(st.floats(0.0, 3.0), st.sampled_from([0.0, 0.05, 0.4]), st.booleans(), st.integers(0, 4)),
    max_size=150,
)


@untimed
@given(samples, st.lists(percents, min_size=1, max_size=5))
def test_fleets_merged_give_the_quantiles_of_one_process(
    script: list[tuple[float, float, bool, int]], qs: list[float]
) -> None:
    """Samples recorded by five fleets, shipped as JSON and merged, give exactly the quantiles (p99
    among them), min, max and mean, corrected and not, of one process that recorded them all."""
    one, fleets = RunStats(), [RunStats() for _ in range(5)]
    for latency_s, interval, applied, fleet in script:
        for stats in (one, fleets[fleet]):
            if applied:
                stats.action(latency_s, "call", "tight", latency_s, "7stud", expected_interval_s=interval)
            else:
                stats.unapplied(latency_s, latency_s, "7stud", expected_interval_s=interval)
    driver = RunStats()
    for fleet_stats in fleets:
        driver.merge(RunStats.from_dict(json.loads(json.dumps(fleet_stats.to_dict()))))
    for corrected in (True, False):
        merged, single = driver.latency(corrected=corrected), one.latency(corrected=corrected)
        assert merged == single
        for q in [*qs, 99.0]:
            assert merged.percentile(q) == single.percentile(q)
        assert (merged.min, merged.max, merged.mean) == (single.min, single.max, single.mean)


def test_next_prompt_and_broadcast_per_second_and_game_with_skew_counted_as_zero() -> None:
    stats = RunStats()
    stats.prompted(0.004, 1.2, "7stud")
    stats.delivered(0.001, 1.2, "7stud")
    stats.delivered(-0.002, 2.5, "5stud")  # a fleet whose clock is ahead of the server's
    assert stats.over_run().next_prompt == histogram([0.004]) == stats.games["7stud"].next_prompt
    assert stats.over_run().broadcast == histogram([0.001, 0.0])
    assert stats.series[2].broadcast == stats.games["5stud"].broadcast == histogram([0.0])
    assert stats.actions == 0 and stats.latency().count == 0, "neither is an action of the seat's own"
    shipped = RunStats.from_dict(json.loads(json.dumps(stats.to_dict())))
    assert shipped == stats and shipped.over_run().broadcast == stats.over_run().broadcast
    doubled = RunStats()
    doubled.merge(shipped)
    doubled.merge(stats)
    assert doubled.over_run().next_prompt.count == 2 and doubled.games["5stud"].broadcast.count == 2
