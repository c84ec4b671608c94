"""What an operator plans with: guarantees and overlays (hypothesis for the arithmetic, exact values
on crafted runs), fees, satellites feeding their targets, the recurring day's small hours, each
event's own peaks, and the tournaments' sanity flags carried into schedule.json and the report."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.schedules import METADATA, ROOT

from tablestorm.sim.reporting import plots
from tablestorm.sim.schedule.demand import QUANTITIES, Load
from tablestorm.sim.schedule.money import break_even_entries, guarantee_at_risk, overlay, seats_won
from tablestorm.sim.schedule.replication import EventRun, Outcome, draws, replicate
from tablestorm.sim.schedule.report import render_schedule_html
from tablestorm.sim.schedule.result import build_schedule, overlays
from tablestorm.sim.schedule.runner import ScheduleRun
from tablestorm.sim.schedule.spec import Schedule, Tournament, schedule_from_mapping

BASE = ROOT / "sim" / "schedules"
POOLS = st.lists(st.integers(min_value=0, max_value=10**7), min_size=1, max_size=60)


# ----------------------------------------------------------------------------- the arithmetic


@given(pool=st.floats(min_value=0, max_value=1e9), guarantee=st.none() | st.floats(min_value=0, max_value=1e9))
def test_an_overlay_tops_the_pool_up_to_the_guarantee_and_no_more(pool: float, guarantee: float | None) -> None:
    paid = overlay(pool, guarantee)
    assert paid >= 0
    if guarantee is None or pool >= guarantee:
        assert paid == 0
    else:
        assert paid == pytest.approx(guarantee - pool)


@given(pools=POOLS, risk=st.floats(min_value=0, max_value=0.5))
def test_the_guarantee_at_a_risk_is_the_largest_the_pools_miss_that_rarely(pools: list[int], risk: float) -> None:
    chosen = guarantee_at_risk(pools, risk)
    short = sum(pool < chosen for pool in pools)
    assert chosen in pools
    assert short <= risk * len(pools) + 1e-9  # P(pool < G) <= risk
    above = min((p for p in pools if p > chosen), default=None)
    if above is not None:  # the next larger guarantee falls short more often than the risk
        assert sum(pool < above for pool in pools) > risk * len(pools)


def test_the_guarantee_at_a_risk_on_twenty_pools() -> None:
    pools = [1000 + 100 * k for k in range(20)]  # 1000 .. 2900
    assert guarantee_at_risk(pools, 0.05) == 1100  # one pool in 20 (1000) below it
    assert guarantee_at_risk(pools, 0.1) == 1200
    assert guarantee_at_risk(pools, 0.0) == 1000  # never short: the smallest pool
    assert guarantee_at_risk(pools, 0.049) == 1000


@given(pool=st.integers(min_value=0, max_value=10**7), guarantee=st.none() | st.integers(min_value=0, max_value=10**7),
       seat=st.integers(min_value=1, max_value=10**5))
def test_a_satellites_pool_buys_whole_seats(pool: int, guarantee: int | None, seat: int) -> None:
    seats = seats_won(pool, guarantee, seat)
    paid = max(pool, guarantee or 0)
    assert seats * seat <= paid < (seats + 1) * seat


@given(guarantee=st.integers(min_value=0, max_value=10**7), buy_in=st.integers(min_value=1, max_value=10**4))
def test_break_even_entries_are_the_fewest_whose_buy_ins_reach_the_guarantee(guarantee: int, buy_in: int) -> None:
    entries = break_even_entries(guarantee, buy_in)
    assert entries is not None and entries * buy_in >= guarantee and (entries - 1) * buy_in < guarantee
    assert break_even_entries(guarantee, 0) is None


@given(values=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=40))
def test_overlay_figures_read_the_replications(values: list[int]) -> None:
    figures = overlays(values)
    assert figures["probability"] == pytest.approx(sum(v > 0 for v in values) / len(values), abs=1e-4)
    assert figures["mean"] == pytest.approx(np.mean(values), abs=1e-3)
    assert figures["p50"] <= figures["p90"] <= figures["p95"] <= max(values)
    assert figures["values"] == values


# ----------------------------------------------------------------------------- crafted runs


def _schedule(**events: dict[str, Any]) -> Schedule:
    """A schedule of tournaments named by keyword, each on the fast stud structure unless it says."""
    return schedule_from_mapping({"tournaments": [
        {"name": name, "start": "12:00", "structure": "../tournaments/fast-stud-mtt.yaml", "entrants": 10, **spec}
        for name, spec in events.items()]}, "day.yaml", BASE)


def _counts(tables: Sequence[int], players: Sequence[int] | None = None) -> np.ndarray:
    level = np.asarray(tables, dtype=np.int64)
    seated = level * 8 if players is None else np.asarray(players, dtype=np.int64)
    return np.stack([level, seated, level * 2, level * 30, level * 90])


def _run(schedule: Schedule, rows: dict[str, Sequence[tuple[int, np.ndarray, Outcome]]]) -> ScheduleRun:
    """A run whose event ``name`` had, in replication k, load ``rows[name][k]`` (start minute,
    counts) and that outcome."""
    replications = len(next(iter(rows.values())))
    runs = [EventRun(name, k, "7stud", Load(start, counts), (outcome,), seconds=1.0, cpu_seconds=1.0)
            for name, listed in rows.items() for k, (start, counts, outcome) in enumerate(listed)]
    assert len(QUANTITIES) == 5
    return ScheduleRun(schedule=schedule, root_seed=1, replications=tuple(range(replications)), runs=tuple(runs),
                       wall_s=1.0, cores=1.0, nodes={})


def _outcome(pool: int = 1000, entries: int = 50, start_minute: int = 720, minutes: int = 30,
             sanity: tuple[tuple[str, str], ...] = ()) -> Outcome:
    return Outcome(start_s=60.0 * start_minute, duration_s=60.0 * minutes, players=entries, entries=entries,
                   prize_pool=pool, hands=500, chips_conserved=True, sanity=sanity)


def test_overlays_and_fees_of_a_guaranteed_event_and_the_day() -> None:
    day = _schedule(Main={"guarantee": 1000, "fee": 2}, Side={"start": "13:00", "fee": 1.5})
    pools = [900, 1000, 1100, 1200, 800]
    shape = _counts([1, 2, 1])
    run = _run(day, {
        "Main": [(720, shape, _outcome(pool, entries=pool // 20)) for pool in pools],
        "Side": [(780, shape, _outcome(400, entries=20)) for _ in pools],
    })
    data = build_schedule(run, METADATA, overlay_risk=0.2)
    main, side = data["events"]
    assert (main["buy_in"], main["guarantee"], main["fee"], main["seats_to"]) == (20, 1000, 2, None)
    assert main["overlay"] == {"probability": 0.4, "mean": 60.0, "p50": 0.0, "p90": 160.0, "p95": 180.0,
                               "values": [100.0, 0.0, 0.0, 0.0, 200.0]}
    assert main["break_even_entries"] == 50  # 1000 / 20
    assert main["guarantee_at_risk"] == {"risk": 0.2, "value": 900.0}  # 1 pool in 5 (800) below it
    assert main["fees"]["values"] == [90.0, 100.0, 110.0, 120.0, 80.0]  # 2 x entries
    assert side["overlay"] is None and side["break_even_entries"] is None
    assert side["guarantee_at_risk"] == {"risk": 0.2, "value": 400.0}
    assert data["day"]["overlay"]["values"] == [100.0, 0.0, 0.0, 0.0, 200.0]
    assert data["day"]["overlay"]["probability"] == 0.4
    assert data["day"]["fees"]["values"] == [120.0, 130.0, 140.0, 150.0, 110.0]  # + 1.5 x 20
    html = render_schedule_html(data)
    assert "Guarantees, overlays and fees" in html and "largest guarantee at 20% risk" in html


def test_each_event_has_its_own_peaks_beside_the_rooms() -> None:
    day = _schedule(A={}, B={"start": "12:05"})
    run = _run(day, {
        "A": [(720, _counts([3, 5, 4], [20, 40, 30]), _outcome()), (720, _counts([2, 6, 6], [10, 45, 46]), _outcome())],
        "B": [(722, _counts([1, 7], [8, 50]), _outcome()), (725, _counts([9], [70]), _outcome())],
    })
    data = build_schedule(run, METADATA)
    a, b = data["events"]
    assert a["peak_tables"]["values"] == [5.0, 6.0] and a["peak_tables_minute"]["values"] == [721.0, 721.0]
    assert a["peak_seated_players"]["values"] == [40.0, 46.0]
    assert a["peak_seated_players_minute"]["values"] == [721.0, 722.0]
    assert b["peak_tables"]["values"] == [7.0, 9.0] and b["peak_tables_minute"]["values"] == [723.0, 725.0]
    room = data["day"]
    # replication 0: 3, 5, 4+1, 7 from 720; replication 1: 2, 6, 6, 0, 0, 9 from 720
    assert room["peak_tables"]["values"] == [7.0, 9.0] and room["peak_tables_minute"]["values"] == [723.0, 725.0]
    assert room["peak_seated_players"]["values"] == [50.0, 70.0]
    html = render_schedule_html(data).split("Peaks: each event")[1]
    assert "the room (all events)" in html and "12:04" in html  # the room's median peak minute


def test_a_recurring_day_holds_the_evenings_tail_in_its_small_hours() -> None:
    spec = {"start": "23:30", "structure": "../tournaments/fast-stud-mtt.yaml", "entrants": 10}
    mapping = {"tournaments": [{"name": "Late", **spec}, {"name": "Early", **spec, "start": "00:10"}]}
    late = [(1410, _counts([4] * 60), _outcome(start_minute=1410, minutes=60)),
            (1410, _counts([6] * 100), _outcome(start_minute=1410, minutes=100))]  # to 24:30 and 25:10
    early = [(10, _counts([1] * 10), _outcome(start_minute=10, minutes=10))] * 2
    recurring = build_schedule(_run(schedule_from_mapping(mapping, "day.yaml", BASE), {"Late": late, "Early": early}),
                               METADATA)
    rows = recurring["minutes"]
    assert len(rows) == 1440 and rows[-1]["time"] == "23:59"
    assert recurring["recurring"]["on"] and recurring["recurring"]["tail_until"] == "01:10"
    by_replication = recurring["minutes_by_replication"]["tables"]
    assert by_replication[0][:40] == [4.0] * 10 + [5.0] * 10 + [4.0] * 10 + [0.0] * 10  # the tail, then Early on it
    assert by_replication[1][:71] == [6.0] * 10 + [7.0] * 10 + [6.0] * 50 + [0.0]
    assert by_replication[0][1410:] == [4.0] * 30 and rows[5]["tables"]["p50"] == 5.0
    single = build_schedule(_run(schedule_from_mapping({**mapping, "recurring": False}, "day.yaml", BASE),
                                 {"Late": late, "Early": early}), METADATA)
    assert not single["recurring"]["on"] and len(single["minutes"]) == 1510  # to 25:10
    assert single["minutes"][1449]["time"] == "24:09" and single["minutes"][0]["tables"]["p50"] == 0.0
    html = render_schedule_html(recurring)
    assert "recurring day" in html and "01:10 the next morning" in html
    assert not re.search(r"\b(2[4-9]|[3-9]\d):\d\d", html.split("<h2>Events</h2>")[1])  # no 24:50: 00:50 +1d
    assert "00:50 (00:34–01:06) +1d" in html  # Late's median end, its p10-p90, the next day


def test_sanity_flags_are_counted_per_event_and_named_on_the_report() -> None:
    day = _schedule(Plain={}, Odd={"start": "12:30"})
    deep = ("ended_deep", "it ended with 90 big bets in play: real events end at 10-40")
    few = ("few_hands", "12 hands dealt 4.2 times to each of 10 entries: real events deal each at least 10")
    shape = _counts([1, 1])
    run = _run(day, {
        "Plain": [(720, shape, _outcome())] * 3,
        "Odd": [(750, shape, _outcome(sanity=(deep, few))), (750, shape, _outcome(sanity=(deep,))),
                (750, shape, _outcome())],
    })
    data = build_schedule(run, METADATA)
    plain, odd = data["events"]
    assert plain["sanity"] == {}
    assert odd["sanity"] == {"ended_deep": {"tournaments": 2, "message": deep[1]},
                             "few_hands": {"tournaments": 1, "message": few[1]}}
    (warning,) = data["warnings"]
    assert warning.startswith("1 of 2 events played tournaments that do not look like real ones")
    assert warning.endswith(": Odd (ended_deep x2, few_hands x1 of 3)")
    html = render_schedule_html(data)
    assert "IMPLAUSIBLE" in html and ">PASS<" not in html and "Odd (ended_deep x2" in html
    flags = html.split("Tournaments that do not look like real ones")[1]
    assert "<td>ended_deep</td><td>it ended with 90 big bets" in flags and "<td class=\"n\">2 of 3</td>" in flags
    clean = build_schedule(_run(day, {"Plain": [(720, shape, _outcome())], "Odd": [(750, shape, _outcome())]}),
                           METADATA)
    assert ">PASS<" in render_schedule_html(clean) and not clean["warnings"]


def test_a_rare_flag_is_listed_but_does_not_make_the_day_implausible() -> None:
    """One flagged tournament of 20 (EVENT_SHARE, 5 %) is chance: shown in the table, no warning,
    the badge still PASS; two of 30 (over 5 %) make the event and the day IMPLAUSIBLE."""
    day = _schedule(Plain={})
    deep = ("ended_deep", "it ended with 90 big bets in play: real events end at 10-40")
    shape = _counts([1, 1])
    rare = build_schedule(_run(day, {"Plain": [(720, shape, _outcome(sanity=(deep,)))]
                                     + [(720, shape, _outcome())] * 19}), METADATA)
    assert rare["events"][0]["sanity"]["ended_deep"]["tournaments"] == 1 and not rare["warnings"]
    html = render_schedule_html(rare)
    assert ">PASS<" in html and "1 of 20" in html
    frequent = build_schedule(_run(day, {"Plain": [(720, shape, _outcome(sanity=(deep,)))] * 2
                                         + [(720, shape, _outcome())] * 28}), METADATA)
    assert frequent["warnings"] and "IMPLAUSIBLE" in render_schedule_html(frequent)


# ----------------------------------------------------------------------------- satellites


def test_seat_winners_register_by_the_start_arrive_late_or_are_lost() -> None:
    day = _schedule(Main={"entrants": 20, "start": "12:00"})
    main = day.events[0]
    assert isinstance(main, Tournament) and main.registration_closes_s == 12 * 3600 + 30  # three 10 s levels
    (alone,) = draws(main, 3, 0)
    start = main.start_s
    (fed,) = draws(main, 3, 0, [start - 600, start - 1, start, start + 10, start + 29.5, start + 30, start + 900])
    assert fed.entrants == alone.entrants + 3  # won before or at the start: registered
    assert sorted(set(fed.late_arrivals) - set(alone.late_arrivals)) == [10.0, 29.5]
    assert (fed.seat_entries, fed.seats_lost) == (5, 2)
    assert fed.seed == alone.seed


def test_a_satellites_seats_join_its_target_in_the_same_replication() -> None:
    day = schedule_from_mapping({"tournaments": [
        {"name": "Main", "start": "12:00", "structure": "../tournaments/fast-draw.yaml", "entrants": 30,
         "fee": 5},
        {"name": "Satellite", "start": "11:00", "structure": "../tournaments/fast-stud-mtt.yaml", "entrants": 24,
         "seats_to": "Main"},
    ]}, "day.yaml", BASE)
    satellite = day.event("Satellite")
    assert satellite.satellite is not None and satellite.satellite.seat == 50  # Main's buy-in
    runs = {r.name: r for r in replicate(day, 9, 0)}
    (played,) = runs["Satellite"].outcomes
    seats = played.prize_pool // 50
    assert played.prize_pool >= 24 * 20 and seats >= 9
    assert runs["Satellite"].seats == (played.end_s,) * seats
    (main,) = runs["Main"].outcomes
    (own,) = draws(day.event("Main"), 9, 0)
    assert main.players == own.entrants + len(own.late_arrivals) + seats == 30 + seats
    assert runs["Main"].seat_entries == seats and runs["Main"].seats_lost == 0
    assert main.prize_pool >= 50 * (30 + seats)
    data = build_schedule(ScheduleRun(schedule=day, root_seed=9, replications=(0,), runs=tuple(runs.values()),
                                      wall_s=1.0, cores=1.0, nodes={}), METADATA)
    events = {e["name"]: e for e in data["events"]}
    assert events["Satellite"]["seats"]["values"] == [seats] and events["Satellite"]["seats_to"] == "Main"
    assert events["Main"]["seat_entries"]["values"] == [seats] and events["Main"]["seats_lost"]["values"] == [0]
    assert events["Main"]["fees"]["values"] == [5.0 * main.entries]
    assert "Satellite" in render_schedule_html(data).split("seats to")[1]


@given(start=st.floats(min_value=0, max_value=60), length=st.floats(min_value=0, max_value=50))
def test_a_span_past_midnight_continues_at_the_start_of_a_days_axis(start: float, length: float) -> None:
    """A recurring day's Gantt: a bar that runs past 24 h goes on from 0, whole and within the axis."""
    pieces = plots._laid(start, start + length, 24.0)
    assert all(0 <= left <= right <= 24 for left, right in pieces)
    assert sum(right - left for left, right in pieces) == pytest.approx(length, abs=1e-6)
    assert pieces[0][0] == pytest.approx(start % 24, abs=1e-9) or start % 24 == pytest.approx(24, abs=1e-9)
    assert plots._laid(start, start + length, None) == [(start, start + length)]
