"""The live driver: one tournament's :class:`~.director.Director` fed with real time, its commands
carried out on tournament tables of remote table servers.

Time is tournament seconds since the tournament was created, from the event loop's monotonic
clock. The director is not re-entrant, so every input (a player's registration, a hand's result,
a level change at :meth:`Director.next_wakeup`, a lost table) is a *step* queued for the one task
that runs them in order: it calls the director, publishes the new events to the :class:`EventFeed`,
and carries out the commands before it takes the next step. Commands of one table run in their
order; tables run concurrently. ``DealHand`` is the exception: its call lasts as long as the
hand, so it runs as a task of its own whose result comes back as another step.

Where the tables go is decided by a pure model, :class:`~.table_placement.TablePlacement`: this
driver feeds it what happens (the director opens or closes a table, a server is lost or back, a
call is answered) and carries out its decisions (:meth:`LiveTournament._enact`): the calls to the
table servers, the director's rebuilds, the offers of unplaced tables.

Faults: a call a table server does not answer (:class:`~.remote.TableServerDown`) makes the
server down (:class:`~.servers.TableServers`), and every table the tournament had there is
lost: ``Director.table_lost`` voids its running hand (every stack back to its start, TOURN-11)
and returns the commands that rebuild it, with the stacks the director holds, on a server that
is up. A table server that answers with an error (:class:`~.remote.TableRefused`: the director
and the table disagree) has that one table rebuilt the same way. Results of a table's earlier
placement (its *epoch*) are stale and dropped. The copies the tables leave on the servers are
closed as the model says, the tournament's end notwithstanding: it hears of the servers until the
last of them is gone. A table no server takes is offered again every :data:`PLACE_RETRY_S`
seconds while a server is up.

Durability: with a :class:`~.journal.Journal`, every director input goes through one call
(:meth:`LiveTournament._input`) that commits it there before the director sees it, and takes the
director's snapshot when one is due. A driver made with a director restored from the journal
first finds its tables on the servers and reconciles each (:mod:`.recovery`), then takes inputs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterable

import grpc

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.director import events as ev
from tablestorm.services.director import inputs as di
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
from tablestorm.services.director.director import Director, DirectorError
from tablestorm.services.director.snapshot import snapshot
from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.engine.tournament_table import HandResult
from tablestorm.services.rpc.errors import ServiceError
from tablestorm.services.tournament import convert
from tablestorm.services.tournament.feed import EventFeed
from tablestorm.services.tournament.journal import Journal
from tablestorm.services.tournament.metrics import TournamentMetrics
from tablestorm.services.tournament.recovery import Found, Verdict, reconcile
from tablestorm.services.tournament.remote import TableRefused, TableServerDown
from tablestorm.services.tournament.servers import TableServers
from tablestorm.services.tournament.table_placement import (
    Abandon,
    Answer,
    Close,
    Copy,
    Create,
    Decision,
    Lose,
    NotPlaced,
    Offer,
    OfferLater,
    Placed,
    Placement,
    Rebuild,
    TablePlacement,
)
from tablestorm.services.tournament.tally import Tally

log = logging.getLogger(__name__)

Step = Callable[[float], list[Command]]
"""One input of the director at tournament time ``now``: returns its commands."""
WAKE_MARGIN_S = 0.001
"""A level change is run this long after it is due: the loop may fire a timer a tick early."""
PLACE_RETRY_S = 1.0
"""An unplaced table is offered to the servers up this often (one may refuse it for a while)."""


def _about(event: ev.TournamentEvent) -> str:
    """The player whose entry a public event is of ("" for the tournament's own events)."""
    player = getattr(event, "player_id", None)
    if isinstance(player, str):
        return player
    entry = getattr(event, "entry_id", None)
    return entry.rpartition("#")[0] if isinstance(entry, str) else ""


class TournamentHalted(Exception):
    """The tournament stopped: the server is shutting down, or a bug was found (logged)."""


class LiveTournament:
    """One tournament being played: the director, its tables on remote servers, its event feed."""

    def __init__(
        self,
        tournament_id: str,
        structure: TournamentStructure,
        *,
        seed: int,
        table_seed: int | None,
        servers: TableServers,
        metrics: TournamentMetrics,
        hand_pause_s: float = 0.0,
        director_token: str | None = None,
        journal: Journal | None = None,
        restored: Director | None = None,
        created: float | None = None,
        tally: Tally | None = None,
    ) -> None:
        """``seed`` drives the director's draws; ``table_seed`` the tables' shuffles (TABLE-2:
        reproducible from it, the table id and the hand number; None: the servers' CSPRNG);
        ``hand_pause_s``: each DealHand waits this long first (the pause between hands);
        ``director_token``: the tables' (None: a new one). ``journal``: every input is written
        there before the director sees it. ``restored``: the director rebuilt from the journal
        after a restart (its tables are found, :meth:`_recover`, before any input runs), and
        ``created`` the wall-clock time the tournament was created (tournament time runs on
        from it, the outage included), ``tally`` its hands counted until then."""
        self.tournament_id = tournament_id
        self.structure = structure
        self.director = restored or Director(structure, seed=seed, tournament_id=tournament_id)
        self.feed = EventFeed()
        self.paused = self.director.paused
        self.halted: str | None = None
        """Why the tournament stopped before its end, if it did."""
        self.idle = asyncio.Event()
        """Set while no step is queued or running, no hand is being dealt and no call of the
        placement (CreateTable, CloseTable) is under way: a quiescent tournament."""
        self.idle.set()
        loop = self._loop = asyncio.get_running_loop()
        elapsed = 0.0 if created is None else max(time.time() - created, self.director.last_input_at)
        self._created = loop.time() - elapsed
        self._token = director_token or secrets.token_urlsafe(32)
        """The director token of every table of this tournament."""
        self._journal = journal
        self._table_seed = table_seed
        self._hand_pause_s = hand_pause_s
        self._servers = servers
        self._metrics = metrics
        self._steps: asyncio.Queue[tuple[Step, asyncio.Future[None] | None]] = asyncio.Queue()
        self._running_step = False
        self._placement = TablePlacement(servers.endpoints, down=[e for e in servers.endpoints if not servers.is_up(e)])
        self._opening: dict[str, tuple[OpenTable, asyncio.Future[bool]]] = {}
        """The OpenTable being carried out per table, and whether a server took the table."""
        self._calls: dict[Copy, asyncio.Task[None]] = {}
        """The placement's calls under way (one at a time per copy: the model waits for each answer)."""
        self._dealing: dict[str, asyncio.Task[None]] = {}
        """The DealHand call under way per placed table."""
        self._progress: dict[str, float] = {}
        """Per table placed or unplaced, the monotonic time of its last progress (placed, a hand
        ended, or first not taken): what the stall metric measures."""
        self._retry: asyncio.TimerHandle | None = None
        """The next offer of the unplaced tables, while some server is up and refused them."""
        self._seen = 0
        """Director events already published."""
        self._deals = 0
        """DealHand calls under way."""
        self.tally = tally or Tally()
        self._wake: asyncio.TimerHandle | None = None
        self._wake_at: float | None = None
        self._late_open = False
        self._dealing_allowed = False
        self._dealing_since = 0.0
        self._stall_since: float | None = None
        self._game = structure.game.code
        for counter in (metrics.hands, metrics.hands_voided, metrics.eliminations):
            counter.labels(self._game)  # at zero from the first tournament of the game: 0, not "no data"
        metrics.clock_seconds.labels(tournament_id).set(structure.clock_seconds)
        metrics.last_hand_age.labels(tournament_id).set_function(self._stalled_for)
        metrics.level_time_left.labels(tournament_id).set_function(lambda: self.director.time_left(self.now()))
        self._unlisten: Callable[[], None] | None = servers.listen(self._server_changed)
        if restored is not None:
            self._publish()  # the feed as it was: watchers resume by seq
            if self.director.finished:
                self._finish()
        self._task = loop.create_task(self._run(recovering=restored is not None and not self.director.finished))
        self._update()

    # ----------------------------------------------------------------- views

    @property
    def hands(self) -> int:
        """The :class:`~.tally.Tally`'s counts, across restarts."""
        return self.tally.hands

    @property
    def hands_dealt(self) -> int:
        return self.tally.hands_dealt

    @property
    def tables_lost(self) -> int:
        return self.tally.tables_lost

    @property
    def hands_by_players(self) -> Counter[int]:
        return self.tally.hands_by_players

    def now(self) -> float:
        """Tournament seconds since creation."""
        return self._loop.time() - self._created

    @property
    def status(self) -> str:
        """``registering``, ``running``, ``paused`` or ``finished``."""
        if self.director.finished:
            return "finished"
        if not self.director.started:
            return "registering"
        return "paused" if self.paused else "running"

    def state(self) -> tpb.TournamentState:
        return convert.state_to_proto(
            self.director,
            tournament_id=self.tournament_id,
            status=self.status,
            late_open=self._late_open,
            last_seq=self.feed.last_seq,
            now=self.now(),
        )

    def _stalled_for(self) -> float:
        """Seconds since the stalest table last finished a hand while it could deal (0: none)."""
        since = self._stall_since
        return 0.0 if since is None else max(0.0, time.monotonic() - since)

    # ----------------------------------------------------------------- inputs

    async def submit(self, step: Step) -> None:
        """Run ``step`` in order with every other input and carry out its commands; DirectorError
        if the director refuses it (then nothing changed); TournamentHalted once stopped."""
        if self.halted is not None:
            raise TournamentHalted(self.halted)
        future: asyncio.Future[None] = self._loop.create_future()
        self._push(step, future)
        await future

    async def give(self, given: di.Input) -> None:
        """:meth:`submit` the director input ``given``."""
        await self.submit(lambda now: self._input(given, now))

    async def register(self, player_id: str, auto_rebuy: bool) -> str:
        """Enter (or re-enter) ``player_id``; returns the new entry's id."""
        entry: list[str] = []

        def step(now: float) -> list[Command]:
            seen = len(self.director.events)
            commands = self._input(di.Register(player_id, auto_rebuy), now)
            entry.extend(e.entry_id for e in self.director.events[seen:] if type(e) is ev.Registered)
            return commands

        await self.submit(step)
        return entry[0]

    async def pause(self) -> None:
        await self.give(di.Pause())

    async def resume(self) -> None:
        await self.give(di.Resume())

    def _input(self, given: di.Input, now: float) -> list[Command]:
        """The director's input, journaled first (a snapshot after it when one is due)."""
        journal, due = self._journal, False
        if journal is not None:
            due = journal.append(self.tournament_id, now, given)
        refused: DirectorError | None = None
        try:
            commands = di.apply(self.director, given, now)
        except DirectorError as exc:
            refused, commands = exc, []
        if due:
            assert journal is not None
            journal.snapshot(self.tournament_id, snapshot(self.director), self.tally.dumps(commands))
        if refused is not None:
            raise refused
        self.paused = self.director.paused
        return commands

    def _push(self, step: Step, future: asyncio.Future[None] | None = None) -> None:
        if self.halted is not None:
            return
        self.idle.clear()
        self._steps.put_nowait((step, future))

    # ----------------------------------------------------------------- the one task running steps

    async def _run(self, recovering: bool) -> None:
        try:
            if recovering:
                await self._recover()
            while True:
                step, future = await self._steps.get()
                self._running_step = True
                try:
                    commands = step(self.now())
                except DirectorError as exc:
                    if future is None:
                        log.error("the director refused an input of the driver", extra=self._about(error=str(exc)))
                    elif not future.done():
                        future.set_exception(exc)
                else:
                    self._publish()
                    await self._execute(commands)
                    if future is not None and not future.done():
                        future.set_result(None)
                self._running_step = False
                self._update()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug (ChipInvariantError among them): the tournament stops here
            log.exception("tournament halted", extra=self._about())
            await self._halt(f"stopped by an internal error: {exc}", grpc.StatusCode.INTERNAL)

    def _about(self, **fields: object) -> dict[str, object]:
        return {"tournament_id": self.tournament_id, **fields}

    def _publish(self) -> None:
        """The director's new events onto the feed, counted in the metrics."""
        events = self.director.events
        metrics, game = self._metrics, self._game
        for event in events[self._seen :]:
            kind = type(event)
            if kind is ev.Started:
                self._late_open = self.structure.late_registration is not None
            elif kind is ev.LateRegistrationClosed or kind is ev.Finished:
                self._late_open = False
            elif kind is ev.Eliminated:
                metrics.eliminations.labels(game).inc()
            elif kind is ev.HandVoided:
                metrics.hands_voided.labels(game).inc()
            self.feed.publish(convert.event_to_proto(event), _about(event))
        self._seen = len(events)

    def _update(self) -> None:
        """After every step: the next level change, the gauges, the stall clock, idleness."""
        director = self.director
        wake = director.next_wakeup()
        if wake != self._wake_at:
            if self._wake is not None:
                self._wake.cancel()
            self._wake_at = wake
            self._wake = None if wake is None else self._loop.call_at(self._created + wake + WAKE_MARGIN_S, self._tick)
        if not director.finished and self.halted is None:
            tid, m = self.tournament_id, self._metrics
            m.entries.labels(tid).set(director.entries)
            m.players_left.labels(tid).set(director.players_left)
            m.tables.labels(tid).set(len(director.tables))
            m.level.labels(tid).set(director.play_level if director.started else 0)
            m.hand_for_hand.labels(tid).set(1 if director.hand_for_hand else 0)
        now = self._loop.time()
        allowed = self.status == "running" and not director.level.is_break
        if allowed and not self._dealing_allowed:
            self._dealing_since = now
        self._dealing_allowed = allowed
        lasts = self._progress.values()
        self._stall_since = max(self._dealing_since, min(lasts)) if allowed and lasts else None
        self._settle_idle()

    def _tick(self) -> None:
        self._wake, self._wake_at = None, None
        self._push(lambda now: self._input(di.Tick(), now))

    def _settle_idle(self) -> None:
        busy = self._running_step or self._deals or self._calls
        if self._steps.empty() and not busy:
            self.idle.set()
        else:
            self.idle.clear()

    # ----------------------------------------------------------------- carrying out commands

    async def _execute(self, commands: list[Command]) -> None:
        """Each table's commands in their order, the tables concurrently."""
        by_table: dict[str, list[Command]] = {}
        finished = False
        for command in commands:
            if isinstance(command, TournamentFinished):
                finished = True
            else:
                by_table.setdefault(command.table_id, []).append(command)
        await asyncio.gather(*(self._carry_out(table_id, group) for table_id, group in by_table.items()))
        if finished:
            self._finish()

    async def _carry_out(self, table_id: str, commands: list[Command]) -> None:
        """One table's commands in their order. After an OpenTable no server took, or a call that
        failed, the rest are redone when the table is rebuilt (the director holds what they did);
        its CloseTable is carried out all the same."""
        going = True
        for command in commands:
            if isinstance(command, CloseTable):
                await self._close_table(table_id)
            elif isinstance(command, OpenTable):
                going = await self._open(command)
            elif going:
                going = await self._apply(table_id, command)

    async def _open(self, command: OpenTable) -> bool:
        """Offer ``command``'s table to the servers up, least loaded first: whether one took it."""
        placed: asyncio.Future[bool] = self._loop.create_future()
        self._opening[command.table_id] = (command, placed)
        candidates = [client.endpoint for client in self._servers.candidates()]
        self._enact(self._placement.open(command.table_id, convert.wire_table_id(command.table_id), candidates))
        return await placed

    async def _close_table(self, table_id: str) -> None:
        """The director closes the table: its copy goes once its hand, if any, has played out."""
        placement = self._placement.where(table_id)
        self._progress.pop(table_id, None)
        self._enact(self._placement.close(table_id))
        closing = None if placement is None else self._calls.get(placement.copy)
        if closing is not None:
            await asyncio.wait([closing])  # not cancelled with this step: the model awaits its answer

    async def _apply(self, table_id: str, command: Command) -> bool:
        """One director call on the table where it is placed: whether it is still there after it."""
        placement = self._placement.where(table_id)
        if placement is None:
            return False  # lost while these commands waited
        client, wire_id, token = self._servers.client(placement.copy.endpoint), placement.copy.wire_id, self._token
        try:
            if isinstance(command, SeatPlayer):
                ticket = await client.seat_player(token, wire_id, command.seat, command.entry_id, command.stack)
                assigned = tpb.SeatAssigned(
                    entry_id=command.entry_id,
                    table_id=wire_id,
                    seat=command.seat,
                    endpoint=client.endpoint,
                    seat_token=ticket.seat_token,
                    resume_after_seq=ticket.resume_after_seq,
                )
                self.feed.private(command.player_id, tpb.TournamentEvent(at_s=self.now(), seat_assigned=assigned))
            elif isinstance(command, RemovePlayer):
                await client.remove_player(token, wire_id, command.seat)
            elif isinstance(command, AddChips):
                await client.add_chips(token, wire_id, command.seat, command.chips)
            elif isinstance(command, DealHand):
                self._deals += 1
                self.tally.hands_dealt += 1
                self._dealing[table_id] = self._loop.create_task(self._deal(table_id, placement, command))
            else:
                assert isinstance(command, SetAway), command  # the others are not calls on a placed table
                await client.set_away(token, wire_id, command.seat, command.away)
        except (TableServerDown, TableRefused) as exc:
            self._failed(table_id, placement.epoch, exc)
            return False
        return True

    async def _deal(self, table_id: str, placement: Placement, command: DealHand) -> None:
        """One DealHand call; its result (or the table's loss) comes back as a step."""
        try:
            if self._hand_pause_s > 0:
                await asyncio.sleep(self._hand_pause_s)
            client = self._servers.client(placement.copy.endpoint)
            try:
                result = await client.deal_hand(
                    self._token, placement.copy.wire_id, command.hand_number, command.stakes
                )
            except (TableServerDown, TableRefused) as exc:
                self._failed(table_id, placement.epoch, exc)
                return
            self._push(self._hand_finished(table_id, placement.epoch, result))
        finally:
            self._deals -= 1
            if self._dealing.get(table_id) is asyncio.current_task():
                del self._dealing[table_id]
            self._settle_idle()

    def _hand_finished(self, table_id: str, epoch: int, result: HandResult) -> Step:
        def step(now: float) -> list[Command]:
            if not self._placement.current(table_id, epoch):
                return []  # the table was lost meanwhile: this result is of a table that is gone
            self._progress[table_id] = self._loop.time()
            self.tally.result(len(result.seats), result.voided)
            if not result.voided:
                self._metrics.hands.labels(self._game).inc()
            return self._input(di.HandFinished(result._replace(table_id=table_id)), now)

        return step

    # ----------------------------------------------------------------- a restart

    async def _recover(self) -> None:
        """After a restart, before any input: find this tournament's tables on the table servers
        up and reconcile each with the director (:mod:`.recovery`): adopted as it is, its missed
        result asked for again, the deal it never got made, or rebuilt; the copies it does not
        keep are closed."""
        self._running_step = True
        prefix = convert.wire_table_id(f"{self.tournament_id}/t")
        endpoints = [e for e in self._servers.endpoints if self._servers.is_up(e)]
        listed = await asyncio.gather(
            *(self._servers.client(e).tables(prefix) for e in endpoints), return_exceptions=True
        )
        copies: dict[str, list[Found]] = {}
        for endpoint, found in zip(endpoints, listed, strict=True):
            if isinstance(found, TableServerDown):
                self._servers.report_down(endpoint, str(found))
            elif isinstance(found, BaseException):
                raise found
            else:
                for copy in found:
                    copies.setdefault(copy.wire_id, []).append(Found(endpoint, copy))
        verdicts: Counter[str] = Counter()
        for table in self.director.seating():
            done = reconcile(table, copies.pop(convert.wire_table_id(table.table_id), []))
            verdicts[done.verdict.value] += 1
            self._orphan(done.stale)
            if done.kept is None:
                self._push(self._rebuild(table.table_id))
                continue
            endpoint = done.kept.endpoint
            placement = self._placement.adopt(table.table_id, Copy(endpoint, done.kept.copy.wire_id))
            self._servers.placed(endpoint)
            self._progress[table.table_id] = self._loop.time()
            if done.verdict is not Verdict.ADOPT:
                assert table.stakes is not None
                deal = DealHand(table.table_id, table.hand_number, table.stakes)
                self._deals += 1
                self._dealing[table.table_id] = self._loop.create_task(self._deal(table.table_id, placement, deal))
        for stale in copies.values():
            self._orphan(stale)
        log.info("tournament recovered", extra=self._about(tables=dict(verdicts), events=self.feed.last_seq))
        self._running_step = False

    def _rebuild(self, table_id: str) -> Step:
        """The step rebuilding a table no server holds as the director does."""
        return lambda now: self._rebuilt([Rebuild(table_id, lost=True)], now)

    def _orphan(self, copies: Iterable[Found]) -> None:
        for found in copies:
            self._enact(self._placement.orphan(Copy(found.endpoint, found.copy.wire_id)))

    # ----------------------------------------------------------------- the placement's decisions

    def _enact(self, decisions: Iterable[Decision]) -> list[Rebuild]:
        """Carry out the placement's decisions, but for the director's rebuilds: returned, as only
        a step calls the director (:meth:`_rebuilt`)."""
        rebuilds: list[Rebuild] = []
        for decision in decisions:
            if isinstance(decision, Create):
                self._servers.placed(decision.copy.endpoint)  # counted before the call: tables opened at once spread
                self._call(decision.copy, self._create(decision))
            elif isinstance(decision, Close):
                self._call(decision.copy, self._close(decision.copy))
            elif isinstance(decision, Placed):
                self._placed(decision)
            elif isinstance(decision, NotPlaced):
                self._not_placed(decision)
            elif isinstance(decision, Abandon):
                self._abandon(decision)
            elif isinstance(decision, Lose):
                self._push(self._lost(decision.table_id, decision.epoch))
            elif isinstance(decision, OfferLater):
                if self._retry is None:
                    self._retry = self._loop.call_later(PLACE_RETRY_S, self._offer_again)
            elif isinstance(decision, Offer):
                if self._retry is not None:
                    self._retry.cancel()
                    self._retry = None
                for table_id in decision.table_ids:
                    self._push(self._offered(table_id))
            else:
                rebuilds.append(decision)
        return rebuilds

    def _call(self, copy: Copy, call: Coroutine[None, None, None]) -> None:
        task = self._calls[copy] = self._loop.create_task(call)
        task.add_done_callback(lambda _: self._called(copy, task))
        self._settle_idle()

    def _called(self, copy: Copy, task: asyncio.Task[None]) -> None:
        if self._calls.get(copy) is task:
            del self._calls[copy]
        error = None if task.cancelled() else task.exception()
        if error is not None:  # a bug: the step waiting on a placement raises it, and the tournament halts
            log.error("a placement call failed", exc_info=error, extra=self._about())
            for _, placed in self._opening.values():
                if not placed.done():
                    placed.set_exception(error)
        self._settle_idle()

    async def _create(self, create: Create) -> None:
        command, _ = self._opening[create.table_id]
        endpoint, wire_id = create.copy.endpoint, create.copy.wire_id
        try:
            await self._servers.client(endpoint).open_table(
                self._token, wire_id, command.options, hand_number=command.hand_number, seed=self._table_seed
            )
            answer = Answer.OPENED
        except TableServerDown as exc:
            self._servers.report_down(exc.endpoint, str(exc))
            answer = Answer.UNANSWERED
        except TableRefused as exc:
            if create.table_id not in self._placement.unplaced:  # e.g. RESOURCE_EXHAUSTED (its table limit): said once
                log.warning("a table server refused a table", extra=self._about(table_id=wire_id, error=str(exc)))
            answer = Answer.REFUSED
        if answer is not Answer.OPENED:
            self._servers.released(endpoint)
        self._enact(self._placement.created(create.table_id, answer))

    async def _close(self, copy: Copy) -> None:
        try:
            gone = await self._servers.client(copy.endpoint).close_table(copy.wire_id)
        except TableServerDown as exc:
            self._servers.report_down(exc.endpoint, str(exc))
            gone = False
        except TableRefused as exc:  # NOT_FOUND: gone already (the server restarted since)
            gone = True
            if exc.code != grpc.StatusCode.NOT_FOUND:
                log.info("stale table not closed", extra=self._about(table_id=copy.wire_id, error=str(exc)))
        self._enact(self._placement.closed(copy, gone))
        self._let_go()

    def _placed(self, placed: Placed) -> None:
        now = self._loop.time()
        if placed.was_unplaced:
            waited = round(now - self._progress[placed.table_id], 3)
            wire_id = placed.placement.copy.wire_id
            log.info("an unplaced table is placed", extra=self._about(table_id=wire_id, waited_s=waited))
        self._progress[placed.table_id] = now
        self._opened(placed.table_id, True)

    def _not_placed(self, not_placed: NotPlaced) -> None:
        if not_placed.first:
            wire_id = convert.wire_table_id(not_placed.table_id)
            log.warning("no table server takes the table now", extra=self._about(table_id=wire_id))
            self._progress[not_placed.table_id] = self._loop.time()
        self._opened(not_placed.table_id, False)

    def _opened(self, table_id: str, placed: bool) -> None:
        _, future = self._opening.pop(table_id)
        if not future.done():  # the step carrying it out may be cancelled (the server shuts down)
            future.set_result(placed)

    def _abandon(self, abandon: Abandon) -> None:
        """The table left its placement: its running deal is dropped."""
        self._servers.released(abandon.placement.copy.endpoint)
        self._progress.pop(abandon.table_id, None)
        dealing = self._dealing.pop(abandon.table_id, None)
        if dealing is not None:
            dealing.cancel()

    def _offer_again(self) -> None:
        self._retry = None
        self._enact(self._placement.offers())

    # ----------------------------------------------------------------- faults

    def _server_changed(self, endpoint: str, up: bool) -> None:
        self._enact(self._placement.server_back(endpoint) if up else self._placement.server_lost(endpoint))

    def _failed(self, table_id: str, epoch: int, exc: TableServerDown | TableRefused) -> None:
        """A call on the table failed: the table is rebuilt. Unanswered, its server is down, and so
        every table there lost (a table is never left placed on a server down: the model loses one
        opened there meanwhile). Refused: NOT_FOUND is a host fault, not a bug (the server restarted
        since the table was opened there, before the health checks could notice); any other status
        means the director and the table disagree."""
        if isinstance(exc, TableServerDown):
            self._servers.report_down(exc.endpoint, str(exc))
            return
        if exc.code == grpc.StatusCode.NOT_FOUND:
            log.warning("a table server lost a table", extra=self._about(table_id=table_id, error=str(exc)))
        else:
            log.error("a table server refused a call", extra=self._about(table_id=table_id, error=str(exc)))
        self._push(self._lost(table_id, epoch))

    def _lost(self, table_id: str, epoch: int) -> Step:
        """The step losing the table's placement ``epoch`` and rebuilding the table (nothing if it
        was lost or closed already)."""
        return lambda now: self._rebuilt(self._placement.lose(table_id, epoch), now)

    def _offered(self, table_id: str) -> Step:
        """The step offering an unplaced table again: rebuilt if a server is up."""
        return lambda now: self._rebuilt(self._placement.offer(table_id), now)

    def _rebuilt(self, decisions: list[Decision], now: float) -> list[Command]:
        """A step's decisions carried out, and the director's commands rebuilding its tables."""
        commands: list[Command] = []
        for rebuild in self._enact(decisions):
            if rebuild.lost:
                self._metrics.tables_lost.inc()
                self.tally.tables_lost += 1
                log.warning("table lost: rebuilding it", extra=self._about(table_id=rebuild.table_id))
            commands += self._input(di.TableLost(rebuild.table_id), now)
        return commands

    # ----------------------------------------------------------------- the end

    def _finish(self) -> None:
        self.feed.end()
        self._stop_metrics()
        self._let_go()

    def _let_go(self) -> None:
        """Once the tournament is over and the last copy of its tables is gone from the servers,
        it stops hearing of them (a copy left on a server down is closed when it is back)."""
        over = self.director.finished or self.halted is not None
        if over and not self._placement.stale and self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    def _stop_metrics(self) -> None:
        for timer in (self._wake, self._retry):
            if timer is not None:
                timer.cancel()
        for gauge in self._metrics.per_tournament:
            gauge.remove(self.tournament_id)

    async def _halt(self, reason: str, code: grpc.StatusCode) -> None:
        """Stop the tournament before its end: pending inputs fail, deals are abandoned, the
        tables are closed, and every Watch stream ends with ``code``."""
        self.halted = reason
        while not self._steps.empty():
            _, future = self._steps.get_nowait()
            if future is not None and not future.done():
                future.set_exception(TournamentHalted(reason))
        self._enact(self._placement.halt())
        while self._calls:  # the closings, and the openings under way (closed once answered)
            await asyncio.wait(list(self._calls.values()))
        self.feed.end(ServiceError(code, f"tournament {self.tournament_id!r} {reason}"))
        if not self.director.finished:
            self._stop_metrics()
        self._let_go()
        self._running_step = False
        self._settle_idle()

    def abandon(self) -> None:
        """Stop where it stands, as if the process died: no pause, no drain, no table closed, no
        event; every task and timer of it cancelled (the journal is written by its steps only)."""
        self.halted = "abandoned"
        self._task.cancel()
        for task in [*self._dealing.values(), *self._calls.values()]:
            task.cancel()
        for timer in (self._wake, self._retry):
            if timer is not None:
                timer.cancel()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    async def close(self, drain_s: float) -> None:
        """The server is shutting down: no new hands (the tournament is paused), running hands get
        ``drain_s`` seconds to finish, then the tables close and Watch streams end UNAVAILABLE."""
        if self.halted is not None or self.director.finished:
            return
        if self.status == "running":
            with contextlib.suppress(DirectorError, TournamentHalted):  # it finished, or halted, meanwhile
                await self.pause()
        try:
            await asyncio.wait_for(self.idle.wait(), drain_s)
        except TimeoutError:
            log.warning("hands still running at shutdown", extra=self._about(deals=self._deals))
        self._task.cancel()
        if not self.director.finished:
            await self._halt("ended: the tournament server is shutting down", grpc.StatusCode.UNAVAILABLE)
