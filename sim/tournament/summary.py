"""What a finished tournament run reports (``tournament.json``), read off the director's record.

Everything but the run's own counters (hands played, chips checked) comes from the director's
append-only events and its finishing order, so the summary of a live run and of an accelerated
run of the same tournament are built alike. All values are JSON-safe.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tablestorm.services.director import events as ev
from tablestorm.services.director.director import Director
from tablestorm.sim.tournament import sanity

__all__ = ["TournamentResult", "summarize"]


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """One tournament, start to winner."""

    name: str
    game: str
    seed: int
    entries: int
    prize_pool: int
    places_paid: int
    chips_conserved: bool
    hands: int
    hands_by_players: dict[str, int]
    """Hands dealt by the number of players dealt in ("8": ...), voided ones included."""
    duration_s: float
    finishing_order: list[dict[str, Any]]
    """``{place, player, entry, prize}`` for every entry, best first."""
    eliminations: list[dict[str, Any]]
    """``{t, player, entry, table, place, prize}`` in the order they happened (place and prize None
    while not settled: a run summarized before its end)."""
    levels: list[dict[str, Any]]
    """``{level, play_level, break, start_s, end_s, stakes, average_stack_bb}``: the level timeline
    (the average stack in big bets as the level began, in big blinds for pot and no limit; None on a
    break)."""
    timeline: list[dict[str, Any]]
    """``{minute, players, tables}`` at the start of every minute from the tournament's start (minute 0:
    the field as it was dealt in), and at the end."""
    hands_per_hour_per_table: float
    bubble: dict[str, Any] | None
    """``{t, player, entry, place}``: who finished one place out of the money."""
    hand_for_hand: list[dict[str, float]]
    """``{start_s, end_s}`` of each hand-for-hand span (TOURN-5)."""
    rebuys: int
    add_ons: int
    reentries: int
    chips: int
    """Every chip put in play: entries, re-entries, rebuys and add-ons."""
    sanity: list[dict[str, str]]
    """``{code, message}`` of every reason the result does not look like a real event
    (:mod:`.sanity`); empty for a plausible one."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize(
    director: Director, *, seed: int, hands: int, hands_by_players: Mapping[int, int], chips_conserved: bool
) -> TournamentResult:
    """The report of ``director``'s tournament: once finished, or as far as it got (an interrupted run)."""
    events = director.events
    end = events[-1].at if events else 0.0
    placed = {p.entry_id: p for p in director.finishing_order()}
    timeline, table_seconds = _timeline(events, end)
    levels, chips = _levels(events, end, director.structure.starting_stack)
    eliminations = []
    for event in events:
        if type(event) is ev.Eliminated:
            final = placed.get(event.entry_id)
            eliminations.append({
                "t": event.at, "player": event.player_id, "entry": event.entry_id, "table": event.table_id,
                "place": None if final is None else final.place, "prize": None if final is None else final.prize,
            })
    bubble_place = director.places_paid + 1
    bubble = next(
        ({"t": e["t"], "player": e["player"], "entry": e["entry"], "place": e["place"]}
         for e in eliminations if e["place"] == bubble_place),
        None,
    )
    spans: list[dict[str, float]] = []
    for event in events:
        if type(event) is ev.HandForHand:
            if event.on:
                spans.append({"start_s": event.at, "end_s": end})
            elif spans:
                spans[-1]["end_s"] = event.at
    structure = director.structure
    return TournamentResult(
        name=structure.name,
        game=structure.game.code,
        seed=seed,
        entries=director.entries,
        prize_pool=director.prize_pool,
        places_paid=director.places_paid,
        chips_conserved=chips_conserved,
        hands=hands,
        hands_by_players={str(players): count for players, count in sorted(hands_by_players.items())},
        duration_s=end,
        finishing_order=[
            {"place": p.place, "player": p.player_id, "entry": p.entry_id, "prize": p.prize}
            for p in director.finishing_order()
        ],
        eliminations=eliminations,
        levels=levels,
        timeline=timeline,
        hands_per_hour_per_table=hands / (table_seconds / 3600) if table_seconds else 0.0,
        bubble=bubble,
        hand_for_hand=spans,
        rebuys=sum(1 for e in events if type(e) is ev.Rebuy),
        add_ons=sum(1 for e in events if type(e) is ev.AddOn),
        reentries=sum(1 for e in events if type(e) is ev.Registered and e.reentry),
        chips=chips,
        sanity=[flag.to_dict() for flag in sanity.check(
            entries=director.entries, hands=hands, dealt=sum(n * count for n, count in hands_by_players.items()),
            chips=chips, levels=levels, eliminations=eliminations, duration_s=end,
            finished=any(type(e) is ev.Finished for e in events),
            last_level=(len(structure.levels) - 1, structure.levels[-1].duration_s),
        )],
    )


def _timeline(events: Sequence[ev.TournamentEvent], end: float) -> tuple[list[dict[str, Any]], float]:
    """Players left and tables open at each minute from the start; also the table-seconds played.

    Minutes count from the ``Started`` event, not from the record's time 0: a live record counts
    from the tournament's creation, and a minute 0 taken while its players were still registering
    showed no players and no tables, a trough that never was. An accelerated run starts at 0, so
    both modes' minutes agree."""
    start = next((event.at for event in events if type(event) is ev.Started), end)
    rows: list[dict[str, Any]] = []
    players = tables = 0
    minute = 0
    last = 0.0
    table_seconds = 0.0
    for event in events:
        while start + minute * 60.0 < event.at:
            rows.append({"minute": minute, "players": players, "tables": tables})
            minute += 1
        table_seconds += tables * (event.at - last)
        last = event.at
        if type(event) is ev.Registered:
            players += 1
        elif type(event) is ev.Unregistered or type(event) is ev.Eliminated:
            players -= 1
        elif type(event) is ev.Started:
            tables = event.tables
        elif type(event) is ev.TableOpened:
            tables += 1
        elif type(event) is ev.TableBroken:
            tables -= 1
        elif type(event) is ev.Finished:
            tables = 0
    rows.append({"minute": math.ceil((end - start) / 60.0), "players": players, "tables": tables})
    return rows, table_seconds


def _levels(
    events: Sequence[ev.TournamentEvent], end: float, starting_stack: int
) -> tuple[list[dict[str, Any]], int]:
    """The level timeline, and every chip put in play."""
    levels: list[dict[str, Any]] = []
    players = chips = 0
    for event in events:
        if type(event) is ev.Registered:
            players, chips = players + 1, chips + starting_stack
        elif type(event) is ev.Unregistered:
            players, chips = players - 1, chips - starting_stack
        elif type(event) is ev.Eliminated:
            players -= 1
        elif isinstance(event, ev.Rebuy | ev.AddOn):
            chips += event.chips
        level: dict[str, Any]
        if type(event) is ev.LevelUp:
            level = {"level": event.level, "play_level": event.play_level, "break": False}
            level["stakes"] = asdict(event.stakes)
            unit = event.stakes.big_bet or event.stakes.big_blind  # pot and no limit: the big blind
            level["average_stack_bb"] = chips / players / unit if players and unit else None
        elif type(event) is ev.BreakStarted:
            level = {"level": event.level, "play_level": None, "break": True, "stakes": None, "average_stack_bb": None}
        else:
            continue
        if levels:
            levels[-1]["end_s"] = event.at
        levels.append({**level, "start_s": event.at, "end_s": end})
    return levels, chips
