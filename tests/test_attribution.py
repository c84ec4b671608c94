"""tablestorm.sim.bots.client.attribution: which of a bot's failures the run's chaos caused, by what the bot
learns next, not by when they happened; and RunStats keeping the chaos's errors apart."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tablestorm.sim.bots.client.attribution import TRANSPORT_FAILURES, Attribution, Held
from tablestorm.sim.load.stats import RunStats

OLD, NEW = "10.0.0.1:5000", "10.0.0.2:5000"


def test_a_failure_on_a_killed_host_is_the_chaos_once_the_table_answers_elsewhere() -> None:
    killed = {OLD: 4.0}
    attribution = Attribution(killed)
    assert attribution.failed("UNAVAILABLE", 4.2, OLD) and attribution.failed("DEADLINE_EXCEEDED", 4.9, OLD)
    verdict = attribution.answered(NEW)
    assert verdict.chaos == (Held("UNAVAILABLE", 4.2, OLD), Held("DEADLINE_EXCEEDED", 4.9, OLD))
    assert verdict.unexpected == () and verdict.moved
    assert not attribution.holding and attribution.answered(NEW) == ((), (), False)


def test_the_same_server_answering_again_makes_the_failure_unexpected() -> None:
    """A killed endpoint that answers again was not what failed the call: the table never moved."""
    attribution = Attribution({OLD: 4.0})
    attribution.failed("UNAVAILABLE", 5.0, OLD)
    assert attribution.answered(OLD) == ((), (Held("UNAVAILABLE", 5.0, OLD),), False)


def test_a_move_off_a_host_nobody_killed_is_unexpected_but_still_a_return() -> None:
    attribution = Attribution({})
    attribution.failed("UNAVAILABLE", 5.0, OLD)
    verdict = attribution.answered(NEW)
    assert verdict.chaos == () and verdict.unexpected == (Held("UNAVAILABLE", 5.0, OLD),) and verdict.moved


def test_a_failure_before_the_kill_is_not_the_kills() -> None:
    attribution = Attribution({OLD: 4.0})
    attribution.failed("UNAVAILABLE", 3.9, OLD)
    attribution.failed("UNAVAILABLE", 4.0, OLD)
    verdict = attribution.answered(NEW)
    assert verdict.chaos == (Held("UNAVAILABLE", 4.0, OLD),)
    assert verdict.unexpected == (Held("UNAVAILABLE", 3.9, OLD),)


def test_other_kinds_are_never_held_and_what_is_held_at_the_end_is_unexpected() -> None:
    attribution = Attribution({OLD: 1.0})
    for kind in ("FAILED_PRECONDITION", "PROTOCOL_VIOLATION", "RESOLVE_FAILED", "ABORTED"):
        assert not attribution.failed(kind, 2.0, OLD)
    attribution.failed("UNAVAILABLE", 2.0, OLD)
    assert attribution.holding
    assert attribution.release() == (Held("UNAVAILABLE", 2.0, OLD),)
    assert attribution.release() == () and not attribution.holding


def test_the_fleets_map_is_read_live() -> None:
    """The fleet is told of a kill before it happens; bots made earlier see it too."""
    killed: dict[str, float] = {}
    attribution = Attribution(killed)
    killed[OLD] = 7.0
    attribution.failed("UNAVAILABLE", 7.5, OLD)
    assert attribution.answered(NEW).chaos == (Held("UNAVAILABLE", 7.5, OLD),)


failures = st.lists(
    st.tuples(st.sampled_from(sorted(TRANSPORT_FAILURES)), st.floats(0, 20), st.sampled_from([OLD, NEW])),
    max_size=20,
)


@given(failures, st.sampled_from([OLD, NEW]), st.floats(0, 20))
def test_every_held_failure_gets_one_verdict(
    held: list[tuple[str, float, str]], answering: str, killed_at: float
) -> None:
    attribution = Attribution({OLD: killed_at})
    for kind, at, endpoint in held:
        assert attribution.failed(kind, at, endpoint)
    verdict = attribution.answered(answering)
    assert sorted(verdict.chaos + verdict.unexpected) == sorted(Held(*h) for h in held)
    assert all(h.endpoint == OLD != answering and h.at_s >= killed_at for h in verdict.chaos)
    assert verdict.moved == any(endpoint != answering for _, _, endpoint in held)


def test_run_stats_keep_the_chaos_errors_among_the_errors() -> None:
    stats = RunStats()
    stats.error("UNAVAILABLE", 4.2, chaos=True)
    stats.error("UNAVAILABLE", 4.7)
    stats.error("FAILED_PRECONDITION", 6.0)
    assert stats.errors == {"UNAVAILABLE": 2, "FAILED_PRECONDITION": 1}
    assert stats.chaos_errors == {"UNAVAILABLE": 1}
    assert stats.unexpected_errors == {"UNAVAILABLE": 1, "FAILED_PRECONDITION": 1}
    assert RunStats.from_dict(json.loads(json.dumps(stats.to_dict()))) == stats
    wind_down = RunStats()
    wind_down.error("UNAVAILABLE", 15.0, chaos=True)
    wind_down.hand(15.0, game="7stud")
    wind_down.hand_voided("7stud")
    stats.merge_faults(wind_down)
    assert stats.chaos_errors == {"UNAVAILABLE": 2} and stats.hands == 0 and stats.hands_voided == 1
