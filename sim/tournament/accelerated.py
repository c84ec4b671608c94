"""The accelerated driver: one tournament in one process, on a virtual clock, as fast as it computes.

:class:`AcceleratedTournament` runs a :class:`~tablestorm.services.director.director.Director` with
in-process :class:`~tablestorm.services.engine.tournament_table.TournamentTable` s. Time is an event queue in
virtual seconds: every decision takes the think time its player's profile draws, every hand the
dealing time of its cards and the pause between hands (:mod:`.profiles`), and the director's level
changes come when :meth:`Director.next_wakeup` says. A hand is played through when it is dealt
and its end queued at the time it took (see :meth:`AcceleratedTournament._deal`). Bots decide
with the live bots' strategies on the View a live client would have built
(:class:`.view.HandViews`), so the reported duration is a forecast of the live tournament and the
decisions are the live ones.

Reproducible from the root seed: cards from the engine's seeded shuffler ``(seed, table id, hand
number)`` with the table service's id of the table (``convert.wire_table_id``: what a live run's
tables shuffle with), each player's decisions and think times from their own ``random.Random``
(:func:`.profiles.player_seed`), the director's draws from its own seed, and the driver's own
choices (late arrival times, which table a fault hits) from a fourth stream.

A timed-out player is marked away by the table (TOURN-7): folded on their turns for the rest of
the hand, and back for the next one, as a live bot that sees itself away asks to come back.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablestorm.services.director import commands as cmd
from tablestorm.services.director import events as ev
from tablestorm.services.director.director import Director, DirectorError
from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.engine import Action, ActionKind, Hand, Stakes
from tablestorm.services.engine.tournament_table import TournamentTable
from tablestorm.services.tournament.convert import wire_table_id
from tablestorm.sim.bots.kinds import strategy_for
from tablestorm.sim.bots.strategies import Strategy
from tablestorm.sim.tournament.profiles import (
    DEFAULT_PROFILES,
    ONLINE_DEALING,
    DealingModel,
    PlayerProfile,
    assign_profiles,
    driver_rng,
    player_seed,
)
from tablestorm.sim.tournament.summary import TournamentResult, summarize
from tablestorm.sim.tournament.view import HandViews, engine_action

__all__ = ["AcceleratedTournament", "ChipCheckError"]

TIMEOUT = Action(ActionKind.TIMEOUT)
_END, _ARRIVE, _FAULT = 0, 1, 2
"""Kinds of queued happenings (a tuple's third field): a hand's end, a late entrant, a lost table."""


class ChipCheckError(AssertionError):
    """With ``check_chips``: the tables' chips and the director's disagree (TOURN-11)."""


@dataclass(slots=True)
class _Player:
    player_id: str
    profile: PlayerProfile
    strategy: Strategy
    rng: random.Random


@dataclass(slots=True)
class _Table:
    table: TournamentTable
    epoch: int
    """Unique to this table object: what was queued for a table since lost or closed is stale."""


class AcceleratedTournament:
    """One tournament of ``entrants`` bots (plus ``late_entrants`` arriving during late registration)."""

    def __init__(
        self,
        structure: TournamentStructure,
        *,
        entrants: int,
        seed: int,
        profiles: Sequence[PlayerProfile] = DEFAULT_PROFILES,
        dealing: DealingModel = ONLINE_DEALING,
        late_entrants: int = 0,
        late_arrivals: Sequence[float] | None = None,
        faults: Sequence[float] = (),
        check_chips: bool = False,
        observe: Callable[[str, Hand], None] | None = None,
        tournament_id: str = "accelerated",
    ) -> None:
        """``late_arrivals``: the virtual times the ``late_entrants`` arrive at, one each (default:
        uniform over the late registration period). ``faults``: virtual times at which a table
        (drawn at random) is lost and rebuilt, its running hand voided (TOURN-11). ``check_chips``:
        after every input, sum every table's chips and the players' in transit against the
        director's count, and audit the director's books (:meth:`Director.audit`; costs
        O(players) each time).
        ``observe`` is called with every hand as it is dealt, with its table's id (measurements, tests)."""
        if entrants < 2 and not late_entrants:
            raise ValueError(f"entrants: at least 2 are needed, got {entrants}")
        if late_entrants and structure.late_registration is None:
            raise ValueError("late_entrants: the structure has no late registration")
        if late_arrivals is not None and len(late_arrivals) != late_entrants:
            raise ValueError(f"late_arrivals: {len(late_arrivals)} times for {late_entrants} late entrants")
        self.structure = structure
        self.seed = seed
        self.dealing = dealing
        self.check_chips = check_chips
        self._observe = observe
        self.director = Director(structure, seed=seed, tournament_id=tournament_id)
        self._rng = driver_rng(seed)
        total = entrants + late_entrants
        chosen = assign_profiles(total, profiles, self._rng)
        strategies = {p.kind: strategy_for(p.kind) for p in chosen}
        self._players = {
            f"p{k}": _Player(f"p{k}", profile, strategies[profile.kind], random.Random(player_seed(seed, f"p{k}")))
            for k, profile in enumerate(chosen, 1)
        }
        self._by_entry: dict[str, _Player] = {}
        """Each entry seated so far, by the id the tables know it by."""
        self._entrants = entrants
        self._late = [f"p{k}" for k in range(entrants + 1, total + 1)]
        self._late_arrivals = None if late_arrivals is None else tuple(late_arrivals)
        self._faults = sorted(faults)
        self._tables: dict[str, _Table] = {}
        self._queue: list[tuple[float, int, int, str, int]] = []
        """(time, order, kind, table id or player id, table epoch)."""
        self._order = 0
        self._now = 0.0
        self._seen = 0
        """Director events already looked at (eliminations, add-on windows)."""
        self.hands = 0
        self.hands_by_players: Counter[int] = Counter()
        """Hands dealt, by the number of players dealt in."""
        self._final_chips = 0
        self._finished = False
        self._wake: float | None = None
        """The director's next wakeup, as of its last input."""
        self._clock = structure.clock_seconds

    # ----------------------------------------------------------------- what the run shows

    def profile(self, player_id: str) -> PlayerProfile:
        """The profile player ``player_id`` plays with."""
        return self._players[player_id].profile

    @property
    def now(self) -> float:
        """Virtual seconds from the start: the time of what is being handled (an ``observe``
        callback reads the hand's deal time here)."""
        return self._now

    def table(self, table_id: str) -> TournamentTable:
        """The engine table open under ``table_id`` (KeyError once closed)."""
        return self._tables[table_id].table

    def dealt_profiles(self, table_id: str) -> tuple[PlayerProfile, ...]:
        """The profile of each player dealt into the running hand of ``table_id``, in the hand's
        order of players (who plays the hand an ``observe`` callback is shown)."""
        table = self._tables[table_id].table
        profiles = []
        for k in table.hand_seats:
            seat = table.seats[k]
            assert seat is not None  # a seat dealt in is taken
            profiles.append(self._by_entry[seat.player_id].profile)
        return tuple(profiles)

    # ----------------------------------------------------------------- the run

    def run(self) -> TournamentResult:
        """Play the tournament to its winner; returns its summary."""
        director = self.director
        self._schedule_arrivals()
        for at in self._faults:
            self._push(at, _FAULT, "")
        for player_id in list(self._players)[: self._entrants]:
            self._register(player_id)  # a sit-and-go starts with its last seat taken
        if not director.started:
            self._execute(director.start(0.0))
        queue = self._queue
        while not self._finished:
            wake = self._wake
            if wake is not None and (not queue or wake <= queue[0][0]):
                self._now = wake
                self._execute(director.tick(wake))
                continue
            if not queue:
                raise RuntimeError(f"the tournament stalled at {self._now:.0f} s: nothing is due")
            at, _, kind, key, epoch = heapq.heappop(queue)
            self._now = at
            if kind == _END:
                table = self._tables.get(key)
                if table is not None and table.epoch == epoch:
                    self._hand_over(key, table)
            elif kind == _ARRIVE:
                self._register(key)
            else:
                self._fault()
        conserved = self._final_chips == director.expected_chips == director.largest_stack
        return summarize(
            director, seed=self.seed, hands=self.hands, hands_by_players=self.hands_by_players,
            chips_conserved=conserved,
        )

    def _push(self, at: float, kind: int, key: str, epoch: int = 0) -> None:
        self._order += 1
        heapq.heappush(self._queue, (at, self._order, kind, key, epoch))

    def _schedule_arrivals(self) -> None:
        """Late entrants arrive at their ``late_arrivals`` or at uniform times over the late
        registration period."""
        late = self.structure.late_registration
        if late is None or not self._late:
            return
        if self._late_arrivals is not None:
            for player_id, at in zip(self._late, self._late_arrivals, strict=True):
                self._push(at, _ARRIVE, player_id)
            return
        last = self.structure.play_levels[late.until_level - 1]
        closes = sum(level.duration_s for level in self.structure.levels[: last + 1])
        for player_id in self._late:
            self._push(self._rng.uniform(0.0, closes), _ARRIVE, player_id)

    def _register(self, player_id: str) -> None:
        try:
            commands = self.director.register(player_id, self._now, auto_rebuy=self._players[player_id].profile.rebuys)
        except DirectorError:
            return  # registration closed (or the field is full) before this player arrived
        self._execute(commands)

    def _fault(self) -> None:
        """A table (drawn at random) is lost with its running hand; the director rebuilds it."""
        if not self._tables or self._finished:
            return
        table_id = self._rng.choice(sorted(self._tables))
        del self._tables[table_id]
        self._execute(self.director.table_lost(table_id, self._now))

    # ----------------------------------------------------------------- commands

    def _execute(self, commands: Sequence[cmd.Command]) -> None:
        for command in commands:
            if type(command) is cmd.DealHand:
                self._deal(command.table_id, command.hand_number, command.stakes)
            elif type(command) is cmd.SeatPlayer:
                self._tables[command.table_id].table.seat_player(command.seat, command.entry_id, command.stack)
                self._by_entry[command.entry_id] = self._players[command.player_id]
            elif type(command) is cmd.RemovePlayer:
                self._tables[command.table_id].table.remove_player(command.seat)
            elif type(command) is cmd.AddChips:
                self._tables[command.table_id].table.add_chips(command.seat, command.chips)
            elif type(command) is cmd.SetAway:
                self._tables[command.table_id].table.set_away(command.seat, command.away)
            elif type(command) is cmd.OpenTable:
                table = TournamentTable(  # the live table's id: its shuffles are the live ones (TABLE-2)
                    wire_table_id(command.table_id), command.options, seed=self.seed,
                    hand_number=command.hand_number, keep_history=False,
                )
                self._order += 1
                self._tables[command.table_id] = _Table(table, self._order)
            elif type(command) is cmd.CloseTable:
                self._final_chips += self._tables.pop(command.table_id).table.total_chips()
            elif type(command) is cmd.TournamentFinished:
                self._finished = True
        self._wake = self.director.next_wakeup()
        self._react()
        if self.check_chips and self.director.started and not self._finished:
            self._check()
            self.director.audit()

    def _react(self) -> None:
        """What bots do about the director's news: re-enter when out during late registration,
        take the add-on when its window opens."""
        director = self.director
        events = director.events
        while self._seen < len(events):
            event = events[self._seen]
            self._seen += 1
            if type(event) is ev.Eliminated:
                player = self._players[event.player_id]
                if player.profile.reenter:
                    self._register(event.player_id)
            elif type(event) is ev.AddOnWindow and event.open:
                for standing in director.standings():
                    if standing.place is None and self._players[standing.player_id].profile.add_on:
                        try:
                            self._execute(director.add_on(standing.player_id, self._now))
                        except DirectorError:
                            continue  # out in the meantime, or the window is not theirs (their table dealt)

    def _check(self) -> None:
        on_tables = sum(t.table.total_chips() for t in self._tables.values())
        moving = sum(stack for _, stack in self.director.in_transit())
        if on_tables + moving != self.director.expected_chips:
            raise ChipCheckError(
                f"at {self._now:.1f} s: {on_tables} chips on tables + {moving} in transit,"
                f" the director expects {self.director.expected_chips} (TOURN-11)"
            )

    # ----------------------------------------------------------------- hands

    def _deal(self, table_id: str, hand_number: int, stakes: Stakes) -> None:
        """Deal and play the hand through at once, and queue its end at the virtual time it takes.

        Nothing outside a running hand can change it (the director only seats players in empty
        seats of a dealing table), so playing it whole when it is dealt is the same as playing it
        decision by decision on the clock, and costs one queued event a hand instead of one per action.
        """
        state = self._tables[table_id]
        table = state.table
        hand = table.start_hand(stakes)
        if table.hand_number != hand_number:
            raise RuntimeError(f"table {table_id} dealt hand {table.hand_number}, the director asked for {hand_number}")
        self.hands_by_players[hand.n] += 1
        if self._observe is not None:
            self._observe(table_id, hand)
        clock = self._clock
        seats, dealt = table.seats, table.hand_seats
        by_entry = self._by_entry
        views = HandViews(hand, hand_number=hand_number)
        elapsed = self.dealing.between_hands_s
        while hand.actor >= 0:
            actor = hand.actor
            occupant = seats[dealt[actor]]
            assert occupant is not None
            if occupant.away:
                action = table.away_action()  # TOURN-7: the table acts for them at once
            else:
                player = by_entry[occupant.player_id]
                strategy = player.strategy
                decision = strategy.decide(views.of(actor, needs_board=strategy.needs_board), player.rng)
                think = clock if decision is None else player.profile.think.sample(player.rng)
                if decision is None or think >= clock:
                    action, think = TIMEOUT, clock  # CLOCK-2, then TOURN-7: away
                else:
                    action = engine_action(decision)
                    think += self.dealing.action_s
                elapsed += think
            table.apply(dealt[actor] + 1, action)
        elapsed += self.dealing.cards_time(hand.events)
        self._push(self._now + elapsed, _END, table_id, state.epoch)

    def _hand_over(self, table_id: str, state: _Table) -> None:
        """The hand's time is up: players the clock marked away come back (as a live bot asks to as
        soon as it sees itself away), then the director takes the result."""
        table = state.table
        record = table.last_record
        assert record is not None
        for seat in record.seats:
            occupant = table.seats[seat - 1]
            if occupant is not None and occupant.away:
                self._execute(self.director.set_away(self._by_entry[occupant.player_id].player_id, False, self._now))
        result = table.result()._replace(table_id=table_id)
        if not result.voided:
            self.hands += 1
        self._execute(self.director.hand_finished(result, self._now))
