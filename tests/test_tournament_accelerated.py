"""The accelerated driver: whole tournaments on a virtual clock, reproducible, with an honest clock.

Each test runs a real director with real engine tables and the live bots' strategies; times are
virtual (computed, never measured), so they are asserted exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.tournament_room import draw_structure, stud_structure

from tablestorm.services.director import events as ev
from tablestorm.services.engine import Hand
from tablestorm.services.engine.events import Acted, CardsDealt, CommunityCard, Drew, TimedOut
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.profiles import DealingModel, PlayerProfile
from tablestorm.sim.tournament.structure_file import load_structure

FAST = stud_structure(levels=12, duration_s=300)


def test_a_run_is_reproducible_from_its_seed_and_reports_what_tournament_json_holds() -> None:
    def run(seed: int) -> dict[str, object]:
        return AcceleratedTournament(FAST, entrants=30, seed=seed, check_chips=True).run().to_dict()

    first = run(4)
    assert first == run(4)
    other = run(5)
    assert other["finishing_order"] != first["finishing_order"]
    json.dumps(first)  # JSON-safe as it is
    order = first["finishing_order"]
    assert isinstance(order, list) and len(order) == 30 and {p["place"] for p in order} == set(range(1, 31))
    assert sum(p["prize"] for p in order) == first["prize_pool"] == 3000
    assert first["chips_conserved"] is True and first["entries"] == 30
    assert first["hands"] == sum(first["hands_by_players"].values())  # type: ignore[attr-defined]
    eliminations = first["eliminations"]
    assert isinstance(eliminations, list) and len(eliminations) == 29
    assert [e["t"] for e in eliminations] == sorted(e["t"] for e in eliminations)
    bubble = first["bubble"]
    assert isinstance(bubble, dict) and bubble["place"] == first["places_paid"] + 1  # type: ignore[operator]
    levels = first["levels"]
    assert isinstance(levels, list) and levels[0]["start_s"] == 0 and levels[-1]["end_s"] == first["duration_s"]
    timeline = first["timeline"]
    assert isinstance(timeline, list) and timeline[0] == {"minute": 0, "players": 30, "tables": 4}
    assert timeline[-1]["players"] == 1 and timeline[-1]["tables"] == 0


def test_the_duration_is_the_sum_of_think_times_and_dealing() -> None:
    """Heads-up, one table: the clock is exactly the dealing model plus every decision's think time."""
    hands: list[Hand] = []
    dealing = DealingModel(between_hands_s=2.0, card_s=0.25)
    profile = PlayerProfile("calling_station", think=Distribution("fixed", 1.5))
    run = AcceleratedTournament(
        FAST, entrants=2, seed=1, profiles=[profile], dealing=dealing, observe=lambda _, hand: hands.append(hand)
    )
    result = run.run()
    expected = 0.0
    for hand in hands:
        decisions = sum(1 for e in hand.events if type(e) in (Acted, Drew))
        cards = sum(
            len(e.down) + len(e.up) if type(e) is CardsDealt else len(e.drawn) if type(e) is Drew else 1
            for e in hand.events if type(e) in (CardsDealt, Drew, CommunityCard)
        )
        expected += 2.0 + 1.5 * decisions + 0.25 * cards
    assert result.hands == len(hands) and abs(result.duration_s - expected) < 1e-6


def test_a_timed_out_player_is_folded_for_the_rest_of_the_hand_and_back_for_the_next() -> None:  # TOURN-7, CLOCK-2
    asleep = PlayerProfile("random", think=Distribution("fixed", 45.0))  # longer than the 30 s clock
    awake = PlayerProfile("calling_station", think=Distribution("fixed", 2.0))
    turns: list[tuple[Hand, list[bool]]] = []

    def record(table_id: str, hand: Hand) -> None:
        turns.append((hand, [profile is asleep for profile in run.dealt_profiles(table_id)]))

    run = AcceleratedTournament(FAST, entrants=6, seed=2, profiles=[asleep, awake], observe=record, check_chips=True)
    result = run.run()
    first_turns = 0
    for hand, sleeping in turns:
        seen: set[int] = set()
        for event in hand.events:
            if type(event) in (Acted, TimedOut) and event.player not in seen:  # type: ignore[union-attr]
                player = event.player  # type: ignore[union-attr]
                seen.add(player)
                # A sleeper's first turn of every hand runs out the clock: they were back, not away.
                assert (type(event) is TimedOut) is sleeping[player], (hand.events, sleeping)
                first_turns += sleeping[player]
        timed_out = [e.player for e in hand.events if type(e) is TimedOut]
        assert len(timed_out) == len(set(timed_out)), "after the timeout the table folds for them (TOURN-7)"
    assert first_turns > 50 and result.chips_conserved


def test_lost_tables_void_their_hands_and_the_chips_hold() -> None:  # TOURN-11
    run = AcceleratedTournament(draw_structure(levels=12, duration_s=300, doubling=True), entrants=24, seed=3,
                                faults=[300.0, 900.0, 1500.0], check_chips=True)
    result = run.run()
    voided = [e for e in run.director.events if type(e) is ev.HandVoided]
    assert len(voided) >= 2 and result.chips_conserved and len(result.finishing_order) == 24


def test_late_entrants_and_reentries_join_during_late_registration() -> None:  # TOURN-10
    structure = stud_structure(
        levels=12, duration_s=300, late_registration={"until_level": 4}, reentry={"max_entries": 3},
        rebuys={"until_level": 3, "max_per_player": 1},  # the first busts come in level 3
    )
    shover = PlayerProfile("shover", think=Distribution("fixed", 2.0))
    result = AcceleratedTournament(
        structure, entrants=20, seed=6, late_entrants=6, profiles=[shover], check_chips=True
    ).run()
    assert result.rebuys > 0 and result.reentries > 0
    assert result.entries == 26 + result.reentries
    assert result.prize_pool == 100 * (result.entries + result.rebuys)
    assert len(result.finishing_order) == result.entries and result.chips_conserved


def test_the_fast_example_structure_runs_to_a_winner() -> None:  # TOURN-1, TOURN-10
    """The team's seconds-long example event (sim/tournaments/fast-test.yaml, a 1 s clock), with bots
    quicker than its clock and late entrants."""
    structure = load_structure(Path(__file__).resolve().parent.parent / "sim/tournaments/fast-test.yaml")
    quick = PlayerProfile("strength", think=Distribution("uniform", 0.3, 0.1, 0.5))
    result = AcceleratedTournament(
        structure, entrants=12, late_entrants=4, seed=8, profiles=[quick], check_chips=True
    ).run()
    assert result.chips_conserved and len(result.finishing_order) == result.entries >= 12
    assert result.levels[0]["stakes"] == {"small_bet": 2, "big_bet": 4, "ante": 0, "bring_in": 1,
                                          "small_blind": 0, "big_blind": 0}


def test_a_sit_and_go_starts_when_full() -> None:  # TOURN-9
    structure = load_structure(Path(__file__).resolve().parent.parent / "sim/tournaments/draw-nl-sng.yaml")
    run = AcceleratedTournament(structure, entrants=5, seed=9, check_chips=True)
    result = run.run()
    assert structure.max_entrants == 5 and result.entries == 5
    assert [p["prize"] for p in result.finishing_order] == [*run.director.payouts(), 0, 0, 0]
    assert result.chips_conserved


PINNED = {
    # (example structure, entrants, seed): (hands, virtual seconds, finishing order by player)
    ("stud8-turbo", 12, 1): (107, 4453.985034825223, "p9 p11 p2 p8 p4 p3 p1 p7 p5 p6 p10 p12"),
    ("5stud-sng", 8, 2): (115, 5896.9063403954415, "p4 p1 p8 p3 p5 p7 p2 p6"),
    ("draw-nl-sng", 5, 3): (91, 3480.2397812071645, "p4 p5 p2 p3 p1"),
}


def test_a_seed_plays_the_tournament_it_always_played() -> None:
    """The default field on example structures of three games (stud hi-lo, five card stud,
    no-limit draw: percentiles, the low, push or fold, the draw), pinned to the hand and the
    float: work on speed must not change a single decision. A deliberate change of play re-pins
    the values and says why."""
    examples = Path(__file__).resolve().parent.parent / "sim/tournaments"
    played = {}
    for name, entrants, seed in PINNED:
        result = AcceleratedTournament(load_structure(examples / f"{name}.yaml"), entrants=entrants, seed=seed).run()
        order = " ".join(p["player"] for p in result.finishing_order)
        played[name, entrants, seed] = (result.hands, result.duration_s, order)
    assert played == PINNED
