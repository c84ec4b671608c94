"""The tournament director: pure, deterministic rules of one tournament, with time as an argument.

Every input is a method call carrying ``now`` (tournament seconds, never decreasing) and returns
the :mod:`commands <.commands>` for the tables, in order; the director never calls a table and
keeps no clock of its own, so the same code runs live (gRPC tables, bots on Ray) and accelerated
(in-process tables on a virtual clock). Given the structure, the seed and the same inputs, a
tournament replays exactly. Besides the commands it keeps an append-only list of
:mod:`tournament events <.events>` and answers queries (level, players left, stacks, payouts...).

What it owns, by rule:

* TOURN-1 levels: the clock advances on every input; a hand keeps the stakes it was dealt with
  and the next :class:`~.commands.DealHand` carries the new level's.
* TOURN-2 seating: the start, late entries and re-entries draw their seats at random (a late
  entry or re-entry draws among the tables with the fewest players [decision: as online rooms do,
  so that no balancing follows], opening a table when every seat is taken).
* TOURN-3 breaking, then TOURN-4 balancing, after every hand end (see :meth:`Director._settle`).
* TOURN-5 hand-for-hand from the bubble, TOURN-6 finishing order, TOURN-9 payouts, TOURN-10
  rebuys, add-ons, late registration and re-entry, and TOURN-11: after every hand the chips in
  play must equal the starting stacks of all entries plus rebuys and add-ons, players in transit
  included; a violation raises :class:`ChipInvariantError` (a bug, never an input error).

Balancing moves wait for the giving table's hand to end (its players are dealt in); in the draw
game a player moved to a table that is dealing waits beside it, in transit, until its hand ends,
and then takes the seat that posts the big blind soonest by that table's fresh positions.

Cost: an input touches the tables and players it is about plus a few lookups in sorted
structures (tables by size, players by stack): nothing per hand scans every table or player.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from tablestorm.services.director import events as ev
from tablestorm.services.director.clock import LevelClock
from tablestorm.services.director.commands import (
    AddChips,
    CloseTable,
    Command,
    DealHand,
    OpenTable,
    RemovePlayer,
    SeatPlayer,
    SetAway,
    TournamentFinished,
)
from tablestorm.services.director.entries import Entry, TableState
from tablestorm.services.director.finishing import FinishingOrder, tiers_by_stack
from tablestorm.services.director.payouts import payout_table, places_paid
from tablestorm.services.director.stacks import StackBoard
from tablestorm.services.director.structure import Level, TournamentStructure
from tablestorm.services.director.tables import TableIndex
from tablestorm.services.engine import Stakes
from tablestorm.services.engine.tournament_table import HandResult

__all__ = [
    "AuditError",
    "ChipInvariantError",
    "Director",
    "DirectorError",
    "Placing",
    "SeatView",
    "Standing",
    "TableSeating",
    "TableSummary",
]

REGISTERING, RUNNING, FINISHED = "registering", "running", "finished"
HOLD_SHORT = 3
"""TOURN-4: a table this many players short of the largest holds its next deal."""


class DirectorError(ValueError):
    """An input the director refuses; nothing changed. The message names the field at fault."""


class ChipInvariantError(RuntimeError):
    """TOURN-11 does not hold: chips appeared or vanished. Always a bug, never a bad input."""


class AuditError(AssertionError):
    """:meth:`Director.audit` found the director's books inconsistent (a bug)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One entry in the standings: still in (``stack``) or out (``place``, ``prize``)."""

    entry_id: str
    player_id: str
    stack: int
    place: int | None
    prize: int | None


@dataclass(frozen=True, slots=True)
class TableSummary:
    """One table as a lobby shows it."""

    table_id: str
    players: int
    """Seated, plus those in transit to it."""
    given: int
    """Players it gave to balancing."""
    dealing: bool
    breaking: bool
    held: bool
    """TOURN-4: three or more players short of the largest table, it deals no hand until balanced."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """One occupied seat."""

    seat: int
    entry_id: str
    player_id: str
    stack: int
    away: bool


@dataclass(frozen=True, slots=True)
class TableSeating:
    """One open table as the director holds it: what a restart checks a table server's copy
    against, and what an operator's tools inspect without playing to it."""

    table_id: str
    seats: tuple[SeatView, ...]
    """The occupied seats, in seat order (stacks as of the start of a running hand)."""
    arriving: tuple[str, ...]
    """Draw game: entries moved to it in balancing, waiting for its running hand to end."""
    hand_number: int
    """The last hand it was told to deal (0: none yet)."""
    dealing: bool
    stakes: Stakes | None
    """The stakes its last hand was dealt with (None before its first)."""
    breaking: bool
    positions: tuple[int, ...]
    """Draw game: every seat in the order it posts the big blind from the next hand, the small
    blind's last (TOURN-4); empty in stud, and until the table reported a hand."""

    @property
    def next_big_blind(self) -> int | None:
        """Draw game: the occupied seat due the next big blind (None: unknown, or stud)."""
        taken = {s.seat for s in self.seats}
        return next((seat for seat in self.positions if seat in taken), None)


@dataclass(frozen=True, slots=True)
class Placing:
    """One line of the finishing order."""

    place: int
    entry_id: str
    player_id: str
    prize: int


class Director:
    """Runs one tournament: takes inputs with their time, returns commands, records events."""

    def __init__(self, structure: TournamentStructure, *, seed: int, tournament_id: str) -> None:
        if type(seed) is not int:
            raise DirectorError(f"seed: expected a whole number, got {seed!r}")
        if not tournament_id:
            raise DirectorError("tournament_id: must not be empty")
        self.structure = structure
        self.tournament_id = tournament_id
        self._rng = random.Random(seed)
        self._options = structure.table_options()
        self._seats = structure.seats_per_table
        self._clock = LevelClock(structure.levels)
        plays = structure.play_levels
        late, rebuys, addon = structure.late_registration, structure.rebuys, structure.addon
        self._late_last = plays[late.until_level - 1] if late is not None else -1
        """Index of the last level during which late registration is open."""
        self._rebuy_last = plays[rebuys.until_level - 1] if rebuys is not None else -1
        self._addon_level = plays[addon.after_level - 1] + 1 if addon is not None else -1
        """Index of the level (a break, or the next play level) that is the add-on window."""
        self._play_number = {index: k + 1 for k, index in enumerate(plays)}
        self._state = REGISTERING
        self._now = -math.inf
        self._events: list[ev.TournamentEvent] = []
        self._entries: list[Entry] = []
        self._current: dict[str, Entry] = {}
        """Each player's latest entry."""
        self._entry_count: dict[str, int] = {}
        self._rebuy_count: dict[str, int] = {}
        self._tables: dict[str, TableState] = {}
        self._index = TableIndex(self._seats)
        self._idle: set[TableState] = set()
        """Open tables with no hand running."""
        self._tables_opened = 0
        self._at_tables = 0
        """Players seated or in transit: what breaking fits into fewer tables."""
        self._alive = 0
        self._chips = 0
        self._rebuys = 0
        self._add_ons = 0
        self._pool = 0
        self._by_stack = StackBoard()
        """The stack of every entry still in."""
        self._late_open = False
        self._rebuys_open = rebuys is not None
        self._addon_open = False
        self._addon_done = addon is None
        self._addon_tables: set[TableState] = set()
        """Without a break after the add-on level: tables still to deal their first hand of the window's level."""
        self._hfh = False
        self._round_tables: set[TableState] = set()
        """The hand-for-hand round's tables that have not finished its hand (a voided one deals it again)."""
        self._round_busted: list[tuple[Entry, int, str]] = []
        """Players out in the round so far: placed together when it ends (TOURN-5, TOURN-6)."""
        self._finishing = FinishingOrder()
        self._prizes: tuple[int, ...] | None = None
        self._paid = (0, 0)
        """(entries, places paid) for the last count of entries asked about."""

    # ----------------------------------------------------------------- the record and queries

    @property
    def events(self) -> Sequence[ev.TournamentEvent]:
        """Everything that happened, in order (append-only)."""
        return self._events

    @property
    def started(self) -> bool:
        return self._state != REGISTERING

    @property
    def finished(self) -> bool:
        return self._state == FINISHED

    @property
    def level(self) -> Level:
        return self._clock.level

    @property
    def level_index(self) -> int:
        """Index of the level in force in the structure's list (breaks included)."""
        return self._clock.index

    @property
    def play_level(self) -> int:
        """The play level in force (1-based), or the last one played during a break."""
        return max(k for index, k in self._play_number.items() if index <= self._clock.index)

    def time_left(self, now: float) -> float:
        """Seconds left in the level in force at ``now`` (inf in the last level)."""
        return self._clock.time_left(now)

    def next_wakeup(self) -> float | None:
        """When :meth:`tick` must next be called (a level change); None if nothing is due."""
        return self._clock.next_change() if self._state == RUNNING else None

    @property
    def players_left(self) -> int:
        return self._alive

    @property
    def entries(self) -> int:
        return len(self._entries)

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(self._tables)

    @property
    def average_stack(self) -> float:
        return self._chips / self._alive if self._alive else 0.0

    @property
    def largest_stack(self) -> int:
        largest = self._by_stack.largest()
        return largest[0] if largest is not None else 0

    @property
    def prize_pool(self) -> int:
        return self._pool

    @property
    def chips_in_play(self) -> int:
        return self._chips

    @property
    def expected_chips(self) -> int:
        """TOURN-11: starting stacks of every entry, plus every rebuy and add-on given."""
        s = self.structure
        rebuy = s.rebuys.stack if s.rebuys is not None else 0
        addon = s.addon.stack if s.addon is not None else 0
        return s.starting_stack * len(self._entries) + rebuy * self._rebuys + addon * self._add_ons

    @property
    def places_paid(self) -> int:
        entries = max(1, len(self._entries))
        if self._paid[0] != entries:
            payouts = self.structure.payouts
            if payouts.table is not None:
                self._paid = (entries, min(len(payouts.table), entries))
            else:
                self._paid = (entries, places_paid(entries, payouts.percent_paid))
        return self._paid[1]

    @property
    def in_the_money(self) -> bool:
        return self.started and not self._late_open and self._alive <= self.places_paid

    @property
    def hand_for_hand(self) -> bool:
        return self._hfh

    def payouts(self) -> tuple[int, ...]:
        """TOURN-9: prizes by place (index 0: the winner) for the entries and pool as they stand.

        [decision] An explicit table with more places than entries pays its first places only,
        their percents scaled up to the whole pool (a 50/30/20 sit-and-go of two pays 62.5/37.5)."""
        payouts, entries = self.structure.payouts, max(1, len(self._entries))
        explicit = payouts.table
        if explicit is not None and len(explicit) > entries:
            kept = explicit[:entries]
            explicit = tuple(100.0 * p / sum(kept) for p in kept)
        return payout_table(entries, self._pool, percent_paid=payouts.percent_paid, explicit=explicit)

    def standings(self) -> list[Standing]:
        """Players still in by stack (biggest first), then the eliminated by place."""
        live = sorted((e for e in self._entries if e.alive), key=lambda e: (-e.stack, e.number))
        out = sorted((e for e in self._entries if not e.alive), key=lambda e: (e.place or math.inf, e.number))
        return [Standing(e.entry_id, e.player_id, e.stack, e.place, e.prize) for e in live + out]

    def finishing_order(self) -> list[Placing]:
        """Every entry with a final place and prize, best first (the whole field once finished)."""
        done = [e for e in self._finishing.placed if e.place is not None and e.prize is not None]
        done.sort(key=lambda e: (e.place or 0, e.number))
        return [Placing(e.place or 0, e.entry_id, e.player_id, e.prize or 0) for e in done]

    def table_summaries(self) -> list[TableSummary]:
        """Every open table, by number."""
        largest = self._index.largest().players if len(self._index) else 0
        return [
            TableSummary(
                t.table_id, t.players, t.given, t.running, t.breaking,
                not t.breaking and t.players <= largest - HOLD_SHORT,
            )
            for t in sorted(self._tables.values(), key=lambda t: t.number)
        ]

    @property
    def paused(self) -> bool:
        return self._clock.paused

    @property
    def last_input_at(self) -> float:
        """The time of the last input (-inf before the first): the next must not be earlier."""
        return self._now

    def seating(self) -> tuple[TableSeating, ...]:
        """Every open table's seats, by table number (a read-only view)."""
        return tuple(
            TableSeating(
                t.table_id,
                tuple(
                    SeatView(k, e.entry_id, e.player_id, e.stack, e.away)
                    for k, e in enumerate(t.seats, 1) if e is not None
                ),
                tuple(e.entry_id for e, _, _ in t.arriving),
                t.dealt,
                t.running,
                self.structure.levels[t.level].stakes if t.level >= 0 else None,
                t.breaking,
                t.big_blind_order if t.reported else (),
            )
            for t in sorted(self._tables.values(), key=lambda t: t.number)
        )

    def in_transit(self) -> list[tuple[str, int]]:
        """(entry id, stack) of each player moved in balancing who waits for a table's hand to end
        (draw game): their chips are in play but on no table (TOURN-11)."""
        return [(e.entry_id, e.stack) for t in self._tables.values() for e, _, _ in t.arriving]

    def seat_of(self, player_id: str) -> tuple[str, int] | None:
        """(table id, seat) of the player's entry; seat 0 while in transit; None when not seated."""
        entry = self._current.get(player_id)
        if entry is None or not entry.alive or entry.table is None:
            return None
        return entry.table.table_id, entry.seat

    def audit(self) -> None:
        """Recount everything the director keeps incrementally, and check TOURN-4's state: the tables
        in play differ by at most one player, or the table due to give is in a hand (the move waits
        for it). O(players): for tests and debugging."""
        alive = [e for e in self._entries if e.alive]
        if sum(e.stack for e in alive) != self._chips or self._chips != self.expected_chips:
            raise ChipInvariantError(
                f"chips: entries hold {sum(e.stack for e in alive)}, counted {self._chips},"
                f" expected {self.expected_chips} (TOURN-11)"
            )
        if len(alive) != self._alive or {e.number: e.stack for e in alive} != self._by_stack.items():
            raise AuditError("the players still in are not what the director counts")
        at_tables = 0
        for table in self._tables.values():
            seated = [e for e in table.seats if e is not None]
            if any(e.table is not table or table.seats[e.seat - 1] is not e or not e.alive for e in seated):
                raise AuditError(f"table {table.table_id}: seats and entries disagree")
            if table.players != len(seated) + len(table.arriving):
                raise AuditError(f"table {table.table_id}: counted {table.players} players")
            if sorted(table.opened) != table.empty_seats():
                raise AuditError(f"table {table.table_id}: open seats {table.opened}")
            at_tables += table.players
        if at_tables != self._at_tables:
            raise AuditError(f"{at_tables} players at tables, counted {self._at_tables}")
        playing = [t for t in self._tables.values() if not t.breaking]
        if self._state == RUNNING and len(playing) > 1:
            giver = min(playing, key=lambda t: (-t.players, t.given, t.number))
            smallest = min(t.players for t in playing)
            if giver.players - smallest > 1 and not giver.running:
                raise AuditError(f"TOURN-4: {giver.table_id} ({giver.players}) could give to a table of {smallest}")

    # ----------------------------------------------------------------- inputs: registration

    def register(self, player_id: str, now: float, *, auto_rebuy: bool = False) -> list[Command]:
        """A player registers (before the start), registers late or re-enters (TOURN-10).

        ``auto_rebuy``: the player rebuys whenever they bust during the rebuy period."""
        self._check_now(now)
        if not isinstance(player_id, str) or not player_id:
            raise DirectorError(f"player_id: expected a non-empty string, got {player_id!r}")
        if self._state == FINISHED:
            raise DirectorError("register: the tournament is over")
        cap = self.structure.max_entrants
        if cap and len(self._entries) >= cap:
            raise DirectorError(f"register: the tournament is full ({cap} entries)")
        previous = self._current.get(player_id)
        if self._state == REGISTERING:
            if previous is not None:
                raise DirectorError(f"player_id: {player_id!r} is already registered")
        else:
            if not self._late_open_at(now):
                raise DirectorError("register: registration is closed (TOURN-10)")
            if previous is not None:
                if previous.alive:
                    raise DirectorError(f"player_id: {player_id!r} is still in the tournament")
                limit = self.structure.reentry.max_entries
                if self._entry_count[player_id] >= limit:
                    raise DirectorError(f"player_id: {player_id!r} has used all {limit} entries (TOURN-10)")
        out = self._advance(now)
        entry = self._new_entry(player_id, auto_rebuy)
        self._record(ev.Registered(now, player_id, entry.entry_id, previous is not None))
        if self._state == RUNNING:
            self._enter(entry, "reentry" if previous is not None else "late", out)
            self._settle(out)
        elif cap and len(self._entries) == cap:
            out += self.start(now)  # a sit-and-go starts when full
        return out

    def unregister(self, player_id: str, now: float) -> list[Command]:
        """Withdraw a registration [decision: before the start only, as online rooms allow]."""
        self._check_now(now)
        if self._state != REGISTERING:
            raise DirectorError("unregister: only before the start")
        entry = self._current.get(player_id)
        if entry is None:
            raise DirectorError(f"player_id: {player_id!r} is not registered")
        out = self._advance(now)
        self._entries.remove(entry)
        for number, e in enumerate(self._entries):
            e.number = number  # registration order closes up
        self._by_stack = StackBoard()
        for e in self._entries:
            self._by_stack.set(e.number, e.stack)
        del self._current[player_id]
        del self._entry_count[player_id]
        self._alive -= 1
        self._chips -= entry.stack
        self._pool -= self.structure.buy_in
        self._prizes = None
        self._record(ev.Unregistered(now, player_id))
        return out

    def start(self, now: float) -> list[Command]:
        """Open the tables, draw every seat (TOURN-2) and deal."""
        self._check_now(now)
        if self._state != REGISTERING:
            raise DirectorError("start: the tournament has already started")
        if len(self._entries) < 2:
            raise DirectorError(f"start: at least 2 entries are needed, got {len(self._entries)}")
        self._now = now
        self._state = RUNNING
        self._clock.start(now)
        self._late_open = self.structure.late_registration is not None
        out: list[Command] = []
        count = math.ceil(len(self._entries) / self._seats)
        tables = [self._open_table(out) for _ in range(count)]
        drawn = list(self._entries)
        self._rng.shuffle(drawn)
        size_of, larger = divmod(len(drawn), count)
        for k, table in enumerate(tables):
            size = size_of + (1 if k < larger else 0)
            for seat in sorted(self._rng.sample(range(1, self._seats + 1), size)):
                entry = drawn.pop()
                self._seat(entry, table, seat, out)
                self._record(ev.Seated(now, entry.entry_id, table.table_id, seat, entry.stack, "start"))
        self._record(ev.Started(now, len(self._entries), count))
        level = self._clock.level
        assert level.stakes is not None
        self._record(ev.LevelUp(now, 0, 1, level.stakes))
        self._settle(out)
        return out

    # ----------------------------------------------------------------- inputs: play

    def hand_finished(self, result: HandResult, now: float) -> list[Command]:
        """A table finished (or voided) the hand it was told to deal."""
        self._check_now(now)
        table = self._check_result(result)
        out = self._advance(now)
        table.running = False
        self._idle.add(table)
        table.reported = True
        table.big_blind_order = result.big_blind_order
        round_hand = table in self._round_tables
        busted: list[tuple[Entry, int]] = []
        for seat_result in result.seats:
            entry = table.seats[seat_result.seat - 1]
            assert entry is not None
            entry.away = seat_result.away
            self._set_stack(entry, seat_result.end)
            if seat_result.end == 0:
                busted.append((entry, seat_result.start))
        if not table.breaking:
            self._seat_arrivals(table, out)
        self._pay_queued(table, out)  # a rebuy asked for during the hand saves a bust
        out_now: list[tuple[Entry, int]] = []
        for entry, start in busted:
            if entry.stack == 0 and not self._auto_rebuy(entry, out):
                self._unseat(entry, out)
                out_now.append((entry, start))
        if round_hand and not result.voided:  # a voided round hand is dealt again
            self._round_busted += [(entry, start, table.table_id) for entry, start in out_now]
            self._round_tables.discard(table)
            self._end_round()
        elif out_now:
            self._eliminate([(entry, start, table.table_id) for entry, start in out_now])
        if table.breaking:
            self._break(table, out)
        self._check_chips()
        self._settle(out)
        return out

    def tick(self, now: float) -> list[Command]:
        """Time passed: level changes, breaks, windows opening and closing (see :meth:`next_wakeup`)."""
        self._check_now(now)
        out = self._advance(now)
        self._settle(out)
        return out

    def rebuy(self, player_id: str, now: float) -> list[Command]:
        """TOURN-10: a player at or below the threshold buys a stack; it plays in the next hand dealt."""
        self._check_now(now)
        entry = self._playing(player_id)
        rebuys = self.structure.rebuys
        if rebuys is None:
            raise DirectorError("rebuy: this tournament has no rebuys")
        if not self._rebuy_open_at(now):
            raise DirectorError("rebuy: the rebuy period is over (TOURN-10)")
        if entry.rebuy_pending:
            raise DirectorError(f"player_id: {player_id!r} already has a rebuy waiting for the next deal")
        if entry.stack > rebuys.threshold:
            raise DirectorError(
                f"player_id: {player_id!r} has {entry.stack} chips, above the rebuy threshold of {rebuys.threshold}"
            )
        if self._rebuy_count.get(player_id, 0) >= rebuys.max_per_player:
            raise DirectorError(f"player_id: {player_id!r} has used all {rebuys.max_per_player} rebuys")
        out = self._advance(now)
        self._buy(entry, rebuys.stack, rebuys.cost, "rebuy", out)
        self._settle(out)
        return out

    def add_on(self, player_id: str, now: float) -> list[Command]:
        """TOURN-10: one add-on per entry, in its window."""
        self._check_now(now)
        entry = self._playing(player_id)
        addon = self.structure.addon
        if addon is None:
            raise DirectorError("add_on: this tournament has no add-on")
        if not self._addon_open_at(entry, now):
            raise DirectorError("add_on: the add-on window is not open (TOURN-10)")
        if entry.add_on_taken:
            raise DirectorError(f"player_id: {player_id!r} has taken the add-on (one per entry)")
        out = self._advance(now)
        entry.add_on_taken = True
        self._buy(entry, addon.stack, addon.cost, "add_on", out)
        self._settle(out)
        return out

    def set_away(self, player_id: str, away: bool, now: float) -> list[Command]:
        """TOURN-7: the player is away (dealt in, folded on their turns) or back."""
        self._check_now(now)
        entry = self._playing(player_id)
        if not isinstance(away, bool):
            raise DirectorError(f"away: expected true or false, got {away!r}")
        out = self._advance(now)
        entry.away = away
        table = entry.table
        if table is not None and entry.seat:
            out.append(SetAway(table.table_id, entry.seat, entry.entry_id, away))
        self._settle(out)
        return out

    def pause(self, now: float) -> list[Command]:
        """Stop the clock and the deals; running hands finish."""
        self._check_now(now)
        if self._state != RUNNING or self._clock.paused:
            raise DirectorError("pause: the tournament is not running")
        out = self._advance(now)
        self._clock.pause(now)
        self._record(ev.Paused(now))
        return out

    def resume(self, now: float) -> list[Command]:
        self._check_now(now)
        if self._state != RUNNING or not self._clock.paused:
            raise DirectorError("resume: the tournament is not paused")
        self._now = now
        self._clock.resume(now)
        self._record(ev.Resumed(now))
        out = self._advance(now)
        self._settle(out)
        return out

    def table_lost(self, table_id: str, now: float) -> list[Command]:
        """A table died (its host crashed): its running hand is void and every stack is back to the
        hand's start (TOURN-11); the returned commands rebuild it with the stacks the director holds."""
        self._check_now(now)
        table = self._tables.get(table_id)
        if table is None:
            raise DirectorError(f"table_id: no open table {table_id!r}")
        out = self._advance(now)
        if table.running:
            table.running = False
            self._idle.add(table)
            self._record(ev.HandVoided(now, table_id, table.dealt))  # a round hand stays to be dealt again
        out.append(OpenTable(table_id, self._options, table.dealt))
        for seat, entry in enumerate(table.seats, 1):
            if entry is not None:
                out.append(SeatPlayer(table_id, seat, entry.entry_id, entry.player_id, entry.stack))
                if entry.away:
                    out.append(SetAway(table_id, seat, entry.entry_id, True))
        table.reported = False  # a new table: no positions yet
        if table.breaking:
            self._break(table, out)
        else:
            self._seat_arrivals(table, out)
            self._pay_queued(table, out)
        self._check_chips()
        self._settle(out)
        return out

    # ----------------------------------------------------------------- validation

    def _check_now(self, now: float) -> None:
        if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
            raise DirectorError(f"now: expected a finite number of seconds, got {now!r}")
        if now < self._now:
            raise DirectorError(f"now: {now} is before the last input's time {self._now}")

    def _playing(self, player_id: str) -> Entry:
        if self._state != RUNNING:
            raise DirectorError("the tournament is not running")
        entry = self._current.get(player_id)
        if entry is None or not entry.alive:
            raise DirectorError(f"player_id: {player_id!r} is not in the tournament")
        if entry.table is None:
            raise DirectorError(f"player_id: {player_id!r} is out of chips (hand-for-hand: placed when the round ends)")
        return entry

    def _check_result(self, result: HandResult) -> TableState:
        table = self._tables.get(result.table_id)
        if table is None:
            raise DirectorError(f"result.table_id: no open table {result.table_id!r}")
        if not table.running or result.hand_number != table.dealt:
            raise DirectorError(
                f"result.hand_number: table {table.table_id} is "
                + (f"dealing hand {table.dealt}" if table.running else "not dealing")
                + f", not hand {result.hand_number}"
            )
        seats, last, moved = table.seats, 0, 0
        for k, r in enumerate(result.seats):
            entry = seats[r.seat - 1] if last < r.seat <= self._seats else None
            if entry is None or entry.entry_id != r.player_id:
                raise DirectorError(f"result.seats[{k}]: seat {r.seat} does not hold {r.player_id!r} (seats ascend)")
            last = r.seat
            if r.start != entry.stack or r.end < 0 or (result.voided and r.end != r.start):
                raise ChipInvariantError(
                    f"table {table.table_id} hand {result.hand_number}: seat {r.seat} {r.player_id!r} went"
                    f" from {r.start} to {r.end} chips; the director holds {entry.stack} (TOURN-11)"
                )
            moved += r.end - r.start
        if len(result.seats) < 2:
            raise DirectorError("result.seats: a hand has at least two players")
        if moved:
            raise ChipInvariantError(
                f"table {table.table_id} hand {result.hand_number}: stacks do not add up (TOURN-11)"
            )
        return table

    def _check_chips(self) -> None:
        """TOURN-11 after every hand, table by table: chips in play, players in transit included."""
        if self._chips != self.expected_chips:
            raise ChipInvariantError(
                f"{self._chips} chips in play, {self.expected_chips} expected (TOURN-11)"
            )

    # ----------------------------------------------------------------- the clock

    def _level_at(self, now: float) -> int:
        """The index of the level in force at ``now``, without moving the clock."""
        return self._clock.index_at(now)

    def _late_open_at(self, now: float) -> bool:
        return self._late_open and self._level_at(now) <= self._late_last

    def _rebuy_open_at(self, now: float) -> bool:
        return self._rebuys_open and self._level_at(now) <= self._rebuy_last

    def _addon_open_at(self, entry: Entry, now: float) -> bool:
        if self._addon_done or self._level_at(now) != self._addon_level:
            return False
        table = entry.table
        if self.structure.levels[self._addon_level].is_break:
            return True
        return table is not None and table.level < self._addon_level

    def _advance(self, now: float) -> list[Command]:
        """Move the clock to ``now``; returns the (empty) command list the input will fill."""
        self._now = now
        out: list[Command] = []
        if self._state != RUNNING:
            return out
        for index in self._clock.advance(now):
            level = self.structure.levels[index]
            if level.stakes is None:
                self._record(ev.BreakStarted(now, index, level.duration_s))
            else:
                self._record(ev.LevelUp(now, index, self._play_number[index], level.stakes))
            if self._late_open and index > self._late_last:
                self._late_open = False
                self._record(ev.LateRegistrationClosed(now, len(self._entries)))
                self._settle_places()
            if self._rebuys_open and index > self._rebuy_last:
                self._rebuys_open = False
                self._settle_places()
            if index == self._addon_level:
                self._addon_open = True
                self._record(ev.AddOnWindow(now, True))
                if not level.is_break:
                    self._addon_tables = set(self._tables.values())
            elif self._addon_open and index > self._addon_level:
                self._close_addon()
        return out

    def _close_addon(self) -> None:
        self._addon_open = False
        self._addon_done = True
        self._addon_tables.clear()
        self._record(ev.AddOnWindow(self._now, False))
        self._settle_places()

    # ----------------------------------------------------------------- entries and chips

    def _record(self, event: ev.TournamentEvent) -> None:
        self._events.append(event)

    def _new_entry(self, player_id: str, auto_rebuy: bool) -> Entry:
        count = self._entry_count.get(player_id, 0) + 1
        self._entry_count[player_id] = count
        stack = self.structure.starting_stack
        entry = Entry(f"{player_id}#{count}", player_id, len(self._entries), stack, auto_rebuy=auto_rebuy)
        self._entries.append(entry)
        self._current[player_id] = entry
        self._alive += 1
        self._chips += stack
        self._by_stack.set(entry.number, stack)
        self._pool += self.structure.buy_in
        self._prizes = None
        return entry

    def _set_stack(self, entry: Entry, stack: int) -> None:
        """The entry now holds ``stack`` chips (after a hand, a rebuy, an add-on)."""
        if stack != entry.stack:
            self._by_stack.set(entry.number, stack)
            self._chips += stack - entry.stack
            entry.stack = stack

    def _buy(self, entry: Entry, chips: int, cost: int, reason: str, out: list[Command]) -> None:
        """A rebuy or an add-on, paid now; its chips reach the player before their next hand."""
        self._pool += cost
        self._prizes = None
        if reason == "rebuy":
            self._rebuy_count[entry.player_id] = self._rebuy_count.get(entry.player_id, 0) + 1
            entry.rebuy_pending = True
        table = entry.table
        assert table is not None
        if table.running or not entry.seat:
            table.queued.append((entry, chips, cost, reason))
        else:
            self._give(entry, chips, cost, reason, out)

    def _give(self, entry: Entry, chips: int, cost: int, reason: str, out: list[Command]) -> None:
        table = entry.table
        assert table is not None and entry.seat
        out.append(AddChips(table.table_id, entry.seat, entry.entry_id, chips, reason))
        self._set_stack(entry, entry.stack + chips)
        if reason == "rebuy":
            entry.rebuy_pending = False
            self._rebuys += 1
            self._record(ev.Rebuy(self._now, entry.entry_id, chips, cost))
        else:
            self._add_ons += 1
            self._record(ev.AddOn(self._now, entry.entry_id, chips, cost))

    def _pay_queued(self, table: TableState, out: list[Command]) -> None:
        """Chips asked for while the table dealt, to the players seated there (those in transit
        get theirs once seated)."""
        waiting = []
        for item in table.queued:
            entry, chips, cost, reason = item
            if entry.seat:
                self._give(entry, chips, cost, reason, out)
            else:
                waiting.append(item)
        table.queued = waiting

    def _auto_rebuy(self, entry: Entry, out: list[Command]) -> bool:
        """A busted player's standing rebuy preference, honoured while rebuys are open (TOURN-10)."""
        rebuys = self.structure.rebuys
        if rebuys is None or not entry.auto_rebuy or not self._rebuys_open:
            return False
        if self._rebuy_count.get(entry.player_id, 0) >= rebuys.max_per_player:
            return False
        self._buy(entry, rebuys.stack, rebuys.cost, "rebuy", out)
        return True

    # ----------------------------------------------------------------- tables and seats

    def _open_table(self, out: list[Command]) -> TableState:
        self._tables_opened += 1
        number = self._tables_opened
        table = TableState(f"{self.tournament_id}/t{number}", number, [None] * self._seats)
        table.opened = list(range(1, self._seats + 1))  # [decision] never-used seats opened in seat order
        self._tables[table.table_id] = table
        self._index.add(table)
        self._idle.add(table)
        out.append(OpenTable(table.table_id, self._options))
        return table

    def _seat(self, entry: Entry, table: TableState, seat: int, out: list[Command]) -> None:
        """Seat ``entry`` (not counted at ``table`` yet) in empty seat ``seat``."""
        table.take(entry, seat)
        self._index.resize(table, 1)
        self._at_tables += 1
        self._place(entry, out)

    def _place(self, entry: Entry, out: list[Command]) -> None:
        table = entry.table
        assert table is not None
        out.append(SeatPlayer(table.table_id, entry.seat, entry.entry_id, entry.player_id, entry.stack))
        if entry.away:
            out.append(SetAway(table.table_id, entry.seat, entry.entry_id, True))

    def _unseat(self, entry: Entry, out: list[Command]) -> tuple[TableState, int]:
        """Take ``entry`` off its table; returns where it sat."""
        table, seat = entry.table, entry.seat
        assert table is not None and seat
        table.vacate(seat)
        out.append(RemovePlayer(table.table_id, seat, entry.entry_id))
        self._index.resize(table, -1)
        self._at_tables -= 1
        entry.table, entry.seat = None, 0
        return table, seat

    def _random_seat(self, table: TableState) -> int:
        return self._rng.choice(table.empty_seats())

    def _enter(self, entry: Entry, reason: str, out: list[Command]) -> None:
        """TOURN-2: a late entry or re-entry draws a seat at one of the tables with the fewest
        players, and a table opens when every seat is taken."""
        table = self._index.draw_fewest(self._rng) if len(self._index) else None
        if table is None or table.players >= self._seats:
            table = self._open_table(out)
            self._record(ev.TableOpened(self._now, table.table_id))
        seat = self._random_seat(table)
        self._seat(entry, table, seat, out)
        self._record(ev.Seated(self._now, entry.entry_id, table.table_id, seat, entry.stack, reason))

    # ----------------------------------------------------------------- after every input

    def _settle(self, out: list[Command]) -> None:
        """What follows any change: the end, hand-for-hand, breaking, then balancing (TOURN-3),
        then the deals the gates allow."""
        if self._state != RUNNING:
            return
        if self._alive <= 1 and not self._late_open:
            self._finish(out)
            return
        self._consolidate(out)
        if self._alive <= 1 and not self._late_open:  # a broken table was the round's last
            self._finish(out)
            return
        self._balance(out)
        self._update_hand_for_hand()
        self._deal(out)

    def _update_hand_for_hand(self) -> None:
        """TOURN-5: on from the bubble (one elimination from the money) with two tables or more.
        [decision] Only once late registration is closed: before, the money is not known."""
        money = not self._late_open and self._alive <= self.places_paid
        bubble = not self._late_open and self._alive == self.places_paid + 1
        if not self._hfh and bubble and len(self._tables) > 1:
            self._hfh = True
            self._record(ev.HandForHand(self._now, True))
        elif self._hfh and (money or len(self._tables) == 1):
            self._hfh = False
            self._record(ev.HandForHand(self._now, False))

    def _consolidate(self, out: list[Command]) -> None:
        """TOURN-3: while the players fit in one table fewer, break the table with the fewest
        players (ties at random); one still dealing breaks when its hand ends."""
        index = self._index
        while len(index) > 1 and self._at_tables <= (len(index) - 1) * self._seats:
            table = index.draw_fewest(self._rng)
            index.discard(table)
            table.breaking = True
            if not table.running:
                self._break(table, out)

    def _break(self, table: TableState, out: list[Command]) -> None:
        """Seat a broken table's players (and those in transit to it) by random draw, table then
        seat, in the others' empty seats; the table must be between hands."""
        if self._index.room < table.players:
            table.breaking = False  # late entries took the room meanwhile: it plays on
            self._index.add(table)
            self._seat_arrivals(table, out)
            self._pay_queued(table, out)
            return
        movers = [(e, table.table_id, e.seat) for e in table.seats if e is not None]
        for entry, _, _ in movers:
            self._unseat(entry, out)
        movers += table.arriving
        self._index.resize(table, -len(table.arriving))
        self._at_tables -= len(table.arriving)
        table.arriving = []
        for entry, from_table, from_seat in movers:
            target = self._index.draw_with_room(self._rng)
            assert target is not None  # the room was counted above
            seat = self._random_seat(target)
            self._seat(entry, target, seat, out)
            self._record(ev.Moved(self._now, entry.entry_id, from_table, from_seat, target.table_id, seat, "break"))
        for entry, chips, cost, reason in table.queued:
            self._give(entry, chips, cost, reason, out)  # asked for in transit to it: given at the new table
        table.queued = []
        self._close(table, out)
        self._record(ev.TableBroken(self._now, table.table_id))

    def _close(self, table: TableState, out: list[Command]) -> None:
        del self._tables[table.table_id]
        self._index.discard(table)
        self._idle.discard(table)
        if table in self._round_tables:  # broken before dealing its voided round hand again
            self._round_tables.discard(table)
            self._end_round()
        if table in self._addon_tables:
            self._addon_tables.discard(table)
            if not self._addon_tables and self._addon_open:
                self._close_addon()
        out.append(CloseTable(table.table_id))

    def _balance(self, out: list[Command]) -> None:
        """TOURN-4: while two tables differ by two or more, the largest gives one player to the
        smallest; the move waits for the giving table's running hand to end."""
        index = self._index
        while len(index) > 1:
            giver, receiver = index.largest(), index.smallest()
            if giver.players - receiver.players <= 1 or giver.running:
                return
            if self.structure.game.is_stud:
                self._move_stud(giver, receiver, out)
            else:
                self._move_draw(giver, receiver, out)
            index.gave(giver)

    def _move_stud(self, giver: TableState, receiver: TableState, out: list[Command]) -> None:
        """TOURN-4, stud: to the seat that opened last at the short table, the player in that seat
        number at the giving table, or the nearest occupied seat either side (either on a tie)."""
        seat = receiver.opened[-1]
        n = self._seats
        for distance in range(n):
            near = {(seat - 1 + step) % n + 1 for step in (-distance, distance)}
            occupied = sorted(s for s in near if giver.seats[s - 1] is not None)
            if occupied:
                source = self._rng.choice(occupied)
                break
        entry = giver.seats[source - 1]
        assert entry is not None
        self._unseat(entry, out)
        self._seat(entry, receiver, seat, out)
        self._record(ev.Moved(self._now, entry.entry_id, giver.table_id, source, receiver.table_id, seat, "balance"))

    def _move_draw(self, giver: TableState, receiver: TableState, out: list[Command]) -> None:
        """TOURN-4, draw: the player due the big blind next hand at the giving table moves; a table
        that has not dealt yet has no positions, so then the player is drawn at random."""
        occupied = [s for s in giver.big_blind_order if giver.seats[s - 1] is not None] if giver.reported else []
        source = occupied[0] if occupied else self._rng.choice(
            [k + 1 for k, e in enumerate(giver.seats) if e is not None]
        )
        entry = giver.seats[source - 1]
        assert entry is not None
        self._unseat(entry, out)
        if receiver.running:
            receiver.arriving.append((entry, giver.table_id, source))  # in transit until its hand ends
            entry.table = receiver
            self._index.resize(receiver, 1)
            self._at_tables += 1
        else:
            self._arrive(entry, receiver, giver.table_id, source, out)

    def _arrive(self, entry: Entry, table: TableState, from_table: str, from_seat: int, out: list[Command]) -> None:
        """TOURN-4, draw: the seat that will post the big blind soonest, never the small blind's;
        at a table that has not dealt yet, a seat drawn at random."""
        empty = [s for s in table.big_blind_order[:-1] if table.seats[s - 1] is None] if table.reported else []
        seat = empty[0] if empty else self._random_seat(table)
        self._seat(entry, table, seat, out)
        self._record(ev.Moved(self._now, entry.entry_id, from_table, from_seat, table.table_id, seat, "balance"))

    def _seat_arrivals(self, table: TableState, out: list[Command]) -> None:
        arriving, table.arriving = table.arriving, []
        self._index.resize(table, -len(arriving))
        self._at_tables -= len(arriving)
        for entry, from_table, from_seat in arriving:
            self._arrive(entry, table, from_table, from_seat, out)

    # ----------------------------------------------------------------- dealing

    def _dealable(self, table: TableState, largest: int) -> bool:
        """Whether an idle table may deal: not breaking, two players seated, and not held by
        TOURN-4 for being three or more players short of the ``largest`` table [decision: the hold
        lasts while it is that short; two short, it deals on while its balancing move waits]."""
        return not table.breaking and table.seated >= 2 and table.players > largest - HOLD_SHORT

    def _deal(self, out: list[Command]) -> None:
        """The deal gate: nothing while paused or on a break; hand-for-hand, a round when every
        table has finished the last (TOURN-5); otherwise every idle table that may deal."""
        if self._clock.paused or self._clock.level.is_break or not self._idle:
            return
        largest = self._index.largest().players
        again = self._round_tables & self._idle  # their round hand was voided
        for table in sorted(again, key=lambda t: t.number):
            if not table.breaking and table.seated >= 2:
                self._deal_one(table, out)
        if self._hfh:
            if self._round_tables or len(self._idle) < len(self._tables):
                return
            for table in sorted(self._idle, key=lambda t: t.number):
                if self._dealable(table, largest):
                    self._deal_one(table, out)
                    self._round_tables.add(table)
            return
        ready = [table for table in self._idle if self._dealable(table, largest)]
        for table in sorted(ready, key=lambda t: t.number) if len(ready) > 1 else ready:
            self._deal_one(table, out)

    def _deal_one(self, table: TableState, out: list[Command]) -> None:
        level = self._clock.level
        assert level.stakes is not None
        table.dealt += 1
        table.running = True
        table.level = self._clock.index
        self._idle.discard(table)
        out.append(DealHand(table.table_id, table.dealt, level.stakes))
        if table in self._addon_tables:
            self._addon_tables.discard(table)
            if not self._addon_tables:
                self._close_addon()

    # ----------------------------------------------------------------- eliminations and the end

    def _end_round(self) -> None:
        """Once every table of the hand-for-hand round has finished its hand, its players out are
        placed together (TOURN-5: simultaneous, by their stacks at the start of the hand)."""
        if not self._round_tables and self._round_busted:
            group, self._round_busted = self._round_busted, []
            self._eliminate(group)

    def _eliminate(self, group: list[tuple[Entry, int, str]]) -> None:
        """TOURN-6: players out together, placed by their stacks at the start of the hand and
        announced from the lowest place up (tied players in registration order)."""
        if not group:
            return
        alive_before = self._alive
        for entry, _, _ in group:
            entry.alive = False
            self._by_stack.discard(entry.number)
            self._alive -= 1
        stacks = [(entry, start) for entry, start, _ in group]
        self._finishing.add(stacks, alive_before, len(self._entries))
        settled = self._settle_places(announce=False)
        tables = {id(entry): table_id for entry, _, table_id in group}
        for tier in reversed(tiers_by_stack(stacks)):
            for entry in tier:
                table_id, place, prize = tables[id(entry)], entry.place, entry.prize
                self._record(ev.Eliminated(self._now, entry.entry_id, entry.player_id, table_id, place, prize))
        for entry in settled:
            if id(entry) not in tables:
                self._announce(entry)

    def _announce(self, entry: Entry) -> None:
        if entry.place is not None and entry.prize is not None:
            self._record(ev.Placed(self._now, entry.entry_id, entry.place, entry.prize))

    def _settle_places(self, *, announce: bool = True) -> list[Entry]:
        """Give every pending place and prize that is final now (see :mod:`.finishing`)."""
        entries = None if self._late_open else len(self._entries)
        pool_final = not self._late_open and not self._rebuys_open and self._addon_done
        if pool_final and self._prizes is None:
            self._prizes = self.payouts()
        settled = self._finishing.settle(entries, self._prizes if pool_final else None, self.places_paid)
        if announce:
            for entry in settled:
                self._announce(entry)
        return settled

    def _finish(self, out: list[Command]) -> None:
        """One player left: they win; every window closes, every pending place and prize is given."""
        self._state = FINISHED
        self._clock.stop()
        self._rebuys_open = False
        if not self._addon_done:
            self._close_addon()
        self._hfh = False
        largest = self._by_stack.largest()
        winner = self._entries[largest[1]] if largest is not None else None
        if winner is not None:  # still "in": one player left, holding every chip
            self._finishing.add([(winner, winner.stack)], 1, len(self._entries))
        self._settle_places()
        for table in sorted(self._tables.values(), key=lambda t: t.number):
            for entry in table.seats:
                if entry is not None:
                    entry.table, entry.seat = None, 0
            self._close(table, out)
        self._at_tables = 0
        if winner is not None:
            out.append(TournamentFinished(winner.entry_id, winner.player_id))
            self._record(ev.Finished(self._now, winner.entry_id, winner.player_id, winner.prize or 0))
