"""How a tournament played, in the terms published figures use (docs/calibration.md).

A :class:`Tally` watches an accelerated tournament's hands as they are dealt (its ``observe``
hook; a hand is played through before the next one is dealt, so each is read complete) and its
director at each level; :meth:`Tally.dynamics` then gives the figures the calibration bands
check: the pace (hands per table-hour by players dealt in), how fast the field thins, the
average stack in big blinds (big bets) against the share of the field left, the depth at the
end, how often a deep stack goes all in, the short stacks' push/fold shares, the share of hands
players enter, and the shape of the stacks.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tablestorm.services.director import events as ev
from tablestorm.services.director.director import Director
from tablestorm.services.engine import ActionKind, Hand
from tablestorm.services.engine.events import Acted, ForcedBet, RoundStarted
from tablestorm.sim.tournament.summary import TournamentResult

__all__ = ["DEEP", "SHORT", "Dynamics", "Tally"]

DEEP = 40.0
"""Stacks of at least this many big blinds are deep: they rarely go all in (T4)."""
SHORT = 10.0
"""Stacks of at most this many big blinds play push or fold (T4, S7)."""
_VOLUNTARY = frozenset({ActionKind.CALL, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})


@dataclass(slots=True)
class _Counts:
    dealt: Counter[int] = field(default_factory=Counter)
    """Hands by players dealt in."""
    deep_hands: int = 0
    """Hands with a deep stack dealt in."""
    deep_all_ins: int = 0
    """Hands where a deep stack went all in on the first round."""
    seats: int = 0
    entered: int = 0
    """Players dealt in, and those who put chips in voluntarily on the first round (VPIP)."""
    sb_folded_to: int = 0
    sb_shoves: int = 0
    bb_facing_shove: int = 0
    bb_calls: int = 0


class Tally:
    """Counts what :class:`Dynamics` reports: pass :meth:`observe` as the driver's ``observe``,
    then :meth:`watch` its director and clock (the survivors' stacks as each play level begins,
    each table's time from deal to deal)."""

    def __init__(self) -> None:
        self._director: Director | None = None
        self._clock: Callable[[], float] = lambda: 0.0
        self._pending: list[Hand] = []
        self._counts = _Counts()
        self._level = 0
        self._dealt = 0
        self._hands_to_first_bust: int | None = None
        self._seen = 0
        """Director events already searched for the first elimination."""
        self._last_deal: dict[str, tuple[float, int]] = {}
        self._gaps: dict[int, list[float]] = {}
        self.shapes: list[tuple[float, int, float]] = []
        """(seconds, players left, mean/median of their stacks) as each play level began."""

    def watch(self, director: Director, clock: Callable[[], float]) -> None:
        self._director, self._clock = director, clock

    def observe(self, table_id: str, hand: Hand) -> None:
        self._read_pending()
        self._pending.append(hand)
        now = self._clock()
        last = self._last_deal.get(table_id)
        if last is not None:  # the table's previous hand took this long, deal to deal
            self._gaps.setdefault(last[1], []).append(now - last[0])
        self._last_deal[table_id] = (now, hand.n)
        self._dealt += 1
        director = self._director
        if director is not None and self._hands_to_first_bust is None:
            events = director.events
            if any(type(e) is ev.Eliminated for e in events[self._seen:]):
                self._hands_to_first_bust = self._dealt - 1  # the hands dealt before this one
            self._seen = len(events)
        if director is not None and director.play_level != self._level:
            self._level = director.play_level
            stacks = [s.stack for s in director.standings() if s.place is None and s.stack > 0]
            if len(stacks) >= 2:
                self.shapes.append((self._clock(), len(stacks), statistics.mean(stacks) / statistics.median(stacks)))

    def _read_pending(self) -> None:
        for hand in self._pending:
            self._read(hand)
        self._pending.clear()

    def _read(self, hand: Hand) -> None:
        counts = self._counts
        counts.dealt[hand.n] += 1
        stakes = hand.options.stakes
        big_bet = hand.options.variant.is_stud or hand.options.structure.value == "fixed_limit"
        unit = stakes.big_bet if big_bet else stakes.big_blind
        depth = [stack / unit for stack in hand.starting_stacks]
        deep = any(d >= DEEP for d in depth)
        counts.deep_hands += deep
        counts.seats += hand.n
        entered: set[int] = set()
        deep_all_in = False
        first_actions: list[Acted] = []
        for event in hand.events:
            if type(event) is RoundStarted and event.street > 0:
                break
            if type(event) is Acted:
                first_actions.append(event)
                if event.kind in _VOLUNTARY:
                    entered.add(event.player)
                if event.all_in and depth[event.player] >= DEEP:
                    deep_all_in = True
        counts.entered += len(entered)
        counts.deep_all_ins += deep_all_in
        if not big_bet and hand.n >= 2:
            self._blind_versus_blind(hand, first_actions, depth)

    def _blind_versus_blind(self, hand: Hand, actions: Sequence[Acted], depth: Sequence[float]) -> None:
        """Folded round to the small blind, both blinds short: does it shove, does the big blind call?"""
        posted = {event.kind: event.player for event in hand.events if type(event) is ForcedBet}
        small, big = posted.get("small_blind"), posted.get("big_blind")
        if small is None or big is None or depth[small] > SHORT or depth[big] > SHORT:
            return
        before = [a for a in actions if a.player not in (small, big)]
        if any(a.kind is not ActionKind.FOLD for a in before):
            return
        rest = [a for a in actions if a.player in (small, big)]
        if not rest or rest[0].player != small:
            return
        counts = self._counts
        counts.sb_folded_to += 1
        if rest[0].all_in:
            counts.sb_shoves += 1
            answer = next((a for a in rest[1:] if a.player == big), None)
            if answer is not None:
                counts.bb_facing_shove += 1
                counts.bb_calls += answer.kind is ActionKind.CALL

    def dynamics(self, result: TournamentResult, seats: int) -> Dynamics:
        """The figures of the finished run ``result`` of this tally's tournament (``seats`` a table)."""
        self._read_pending()
        counts = self._counts
        return Dynamics(
            duration_s=result.duration_s,
            hands=result.hands,
            entries=result.entries,
            hands_per_hour_per_table=result.hands_per_hour_per_table,
            dealt=dict(counts.dealt),
            hands_per_hour_by_players={n: 3600 * len(gaps) / sum(gaps) for n, gaps in self._gaps.items() if sum(gaps)},
            first_elimination_s=min((e["t"] for e in result.eliminations), default=None),
            hands_to_first_bust=self._hands_to_first_bust,
            elimination_times=sorted(e["t"] for e in result.eliminations),
            play_levels=[(level["play_level"], level["start_s"]) for level in result.levels if not level["break"]],
            seats=seats,
            left=[(row["minute"], row["players"]) for row in result.timeline],
            average_units=[
                (level["start_s"], level["average_stack_bb"]) for level in result.levels
                if not level["break"] and level["average_stack_bb"] is not None
            ],
            end_units=_end_units(result),
            deep_all_in_share=counts.deep_all_ins / counts.deep_hands if counts.deep_hands else None,
            vpip=counts.entered / counts.seats if counts.seats else None,
            blind_versus_blind=(counts.sb_folded_to, counts.sb_shoves, counts.bb_facing_shove, counts.bb_calls),
            stack_shape=[shape for _, players, shape in self.shapes if 10 <= players <= result.entries / 2],
        )


def _end_units(result: TournamentResult) -> float | None:
    stakes = next((level["stakes"] for level in reversed(result.levels) if level["stakes"]), None)
    unit = (stakes["big_bet"] or stakes["big_blind"]) if stakes else 0
    return result.chips / unit if unit else None


@dataclass(frozen=True, slots=True)
class Dynamics:
    """One run's figures (seconds; units are big bets in fixed limit, big blinds otherwise)."""

    duration_s: float
    hands: int
    entries: int
    hands_per_hour_per_table: float
    dealt: dict[int, int]
    hands_per_hour_by_players: dict[int, float]
    """A table's hands per hour, deal to deal, by players dealt in."""
    first_elimination_s: float | None
    hands_to_first_bust: int | None
    """Hands dealt before the first elimination (1: someone busted in the first hand)."""
    elimination_times: list[float]
    play_levels: list[tuple[int, float]]
    """(play level, seconds it began)."""
    seats: int
    """A full table's seats: the final table is this many players."""
    left: list[tuple[int, int]]
    """(minute, players left)."""
    average_units: list[tuple[float, float]]
    """(seconds, the average stack in units) as each play level began."""
    end_units: float | None
    """Chips in play over the last level's unit."""
    deep_all_in_share: float | None
    """Of the hands with a deep stack dealt in, the share where one went all in on the first round."""
    vpip: float | None
    blind_versus_blind: tuple[int, int, int, int]
    """Short blinds, folded round to the small blind: how often, how many shoved, how many big
    blinds faced that shove, how many called."""
    stack_shape: list[float]
    """Mean over median of the survivors' stacks as each play level began, from half the field
    left down to 10 players (S5 measured it at 31 % and 12 % left)."""

    def left_at(self, minute: int) -> int:
        """Players left at ``minute`` (the last row before it)."""
        players = self.left[0][1]
        for at, count in self.left:
            if at > minute:
                break
            players = count
        return players

    def minute_down_to(self, players: int) -> int | None:
        """The first minute with at most ``players`` left; None if the field never got there."""
        return next((at for at, count in self.left if count <= players), None)

    @property
    def final_level(self) -> int:
        return self.play_levels[-1][0] if self.play_levels else 0

    def eliminated_in_level(self, level: int) -> int:
        starts = dict(self.play_levels)
        if level not in starts:
            return 0
        later = [start for lv, start in self.play_levels if lv > level]
        end = later[0] if later else float("inf")
        return sum(1 for t in self.elimination_times if starts[level] <= t < end)

    def average_from(self, share_left: float) -> list[float]:
        """Average stacks (units) at the levels begun with at most ``share_left`` of the entries
        left and more than a final table."""
        out = []
        for at, units in self.average_units:
            players = self.left_at(int(at // 60))
            if self.seats < players <= share_left * self.entries:
                out.append(units)
        return out

    def average_when_left(self, low: float, high: float) -> list[float]:
        """Average stacks (units) at the levels that began with ``low``-``high`` of the entries left."""
        out = []
        for at, units in self.average_units:
            players = self.left_at(int(at // 60))
            if low * self.entries <= players <= high * self.entries:
                out.append(units)
        return out
