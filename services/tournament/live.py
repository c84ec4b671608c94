"""The live driver: one tournament's :class:`~.director.Director` fed with real time, its commands
carried out on tournament tables of remote table servers.

Time is tournament seconds since the tournament was created, from the event loop's monotonic
clock. The director is not re-entrant, so every input (a player's registration, a hand's result,
a level change at :meth:`Director.next_wakeup`, a lost table) is a *step* queued for the one task
that runs them in order: it calls the director, publishes the new events to the :class:`EventFeed`,
and carries out the commands before it takes the next step. Commands of one table run in their
order; tables run concurrently. ``DealHand`` is the exception: its call lasts as long as the
hand, so it runs as a task of its own whose result comes back as another step.

Faults: a call a table server does not answer (:class:`~.remote.TableServerDown`) makes the
server down (:class:`~.servers.TableServers`), and every table the tournament had there is
lost: ``Director.table_lost`` voids its running hand (every stack back to its start, TOURN-11)
and returns the commands that rebuild it, with the stacks the director holds, on a server that
is up. A table server that answers with an error (:class:`~.remote.TableRefused`: the director
and the table disagree) has that one table rebuilt the same way. Results of a table's earlier
placement (its *epoch*) are stale and dropped. The copy a lost table may have left on its server
is *stale*: closed there as soon as that server is up (at once if it still is), and closed before
the table is rebuilt on that same server, so a rebuild never meets its own stale copy. A table no
server takes (all down, or the only one up still plays out the stale copy's hand) is offered again
every :data:`PLACE_RETRY_S` seconds while a server is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.director import events as ev
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
from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.engine.tournament_table import HandResult
from tablestorm.services.rpc.errors import ServiceError
from tablestorm.services.tournament import convert
from tablestorm.services.tournament.feed import EventFeed
from tablestorm.services.tournament.metrics import TournamentMetrics
from tablestorm.services.tournament.remote import RemoteTables, TableRefused, TableServerDown
from tablestorm.services.tournament.servers import TableServers

log = logging.getLogger(__name__)

Step = Callable[[float], list[Command]]
"""One input of the director at tournament time ``now``: returns its commands."""
WAKE_MARGIN_S = 0.001
"""A level change is run this long after it is due: the loop may fire a timer a tick early."""
PLACE_RETRY_S = 1.0
"""An unplaced table is offered to the servers up this often (one may refuse it for a while)."""

StaleCopy = tuple[str, str]
"""A lost table's copy that may still be on its server: ``(endpoint, wire table id)``."""


def _about(event: ev.TournamentEvent) -> str:
    """The player whose entry a public event is of ("" for the tournament's own events)."""
    player = getattr(event, "player_id", None)
    if isinstance(player, str):
        return player
    entry = getattr(event, "entry_id", None)
    return entry.rpartition("#")[0] if isinstance(entry, str) else ""


class TournamentHalted(Exception):
    """The tournament stopped: the server is shutting down, or a bug was found (logged)."""


@dataclass(slots=True)
class _Placement:
    """Where one of the director's tables is: its server, its id there, and which placement."""

    client: RemoteTables
    wire_id: str
    epoch: int
    last_hand: float
    """Monotonic time its last hand ended (or it opened): what the stall metric measures."""
    dealing: asyncio.Task[None] | None = None


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
    ) -> None:
        """``seed`` drives the director's draws; ``table_seed`` the tables' shuffles (TABLE-2:
        reproducible from it, the table id and the hand number; None: the servers' CSPRNG);
        ``hand_pause_s``: each DealHand waits this long first (the pause between hands)."""
        self.tournament_id = tournament_id
        self.structure = structure
        self.director = Director(structure, seed=seed, tournament_id=tournament_id)
        self.feed = EventFeed()
        self.paused = False
        self.halted: str | None = None
        """Why the tournament stopped before its end, if it did."""
        self.idle = asyncio.Event()
        """Set while no step is queued or running, no hand is being dealt and no stale copy being
        closed (nor a sweep waiting on closings): a quiescent tournament."""
        self.idle.set()
        loop = self._loop = asyncio.get_running_loop()
        self._created = loop.time()
        self._token = secrets.token_urlsafe(32)
        """The director token of every table of this tournament."""
        self._table_seed = table_seed
        self._hand_pause_s = hand_pause_s
        self._servers = servers
        self._metrics = metrics
        self._steps: asyncio.Queue[tuple[Step, asyncio.Future[None] | None]] = asyncio.Queue()
        self._running_step = False
        self._tables: dict[str, _Placement] = {}
        """The director's open tables that are placed, by the director's table id."""
        self._unplaced: dict[str, float] = {}
        """Open tables no server took (all down or refusing), since when: offered again while one is up."""
        self._retry: asyncio.TimerHandle | None = None
        """The next offer of the unplaced tables, while some server is up and refused them."""
        self._stale: dict[StaleCopy, RemoteTables] = {}
        """Copies of lost tables not yet known gone from their server, with that server's client."""
        self._closings: dict[StaleCopy, asyncio.Task[bool]] = {}
        """The CloseTable under way for a stale copy: one at a time, so none lands after a rebuild."""
        self._sweeps: set[asyncio.Task[None]] = set()
        """Sweeps of a server's stale copies under way (held so they are not collected)."""
        self._epochs = 0
        self._seen = 0
        """Director events already published."""
        self._deals = 0
        """DealHand calls under way."""
        self.hands = 0
        """Hands played to their end on this tournament's tables (voided ones not counted)."""
        self.hands_dealt = 0
        """Hands the director had dealt: counted as its ``DealHand`` is carried out, before the pause
        between hands, the moment a schedule forecast counts a hand (``sim/schedule/demand.py``)."""
        self.tables_lost = 0
        """Tables rebuilt after a fault (their server down, or refusing a director call)."""
        self.hands_by_players: Counter[int] = Counter()
        """Hands whose results came back, voided ones included, by the number of players dealt in."""
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
        self._unlisten = servers.listen(self._server_changed)
        self._task = loop.create_task(self._run())
        self._update()

    # ----------------------------------------------------------------- views

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

    async def register(self, player_id: str, auto_rebuy: bool) -> str:
        """Enter (or re-enter) ``player_id``; returns the new entry's id."""
        entry: list[str] = []

        def step(now: float) -> list[Command]:
            seen = len(self.director.events)
            commands = self.director.register(player_id, now, auto_rebuy=auto_rebuy)
            entry.extend(e.entry_id for e in self.director.events[seen:] if type(e) is ev.Registered)
            return commands

        await self.submit(step)
        return entry[0]

    async def pause(self) -> None:
        await self._pausing(True)

    async def resume(self) -> None:
        await self._pausing(False)

    async def _pausing(self, paused: bool) -> None:
        def step(now: float) -> list[Command]:
            commands = self.director.pause(now) if paused else self.director.resume(now)
            self.paused = paused
            return commands

        await self.submit(step)

    def _push(self, step: Step, future: asyncio.Future[None] | None = None) -> None:
        if self.halted is not None:
            return
        self.idle.clear()
        self._steps.put_nowait((step, future))

    # ----------------------------------------------------------------- the one task running steps

    async def _run(self) -> None:
        try:
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
        lasts = [p.last_hand for p in self._tables.values()] + list(self._unplaced.values())
        self._stall_since = max(self._dealing_since, min(lasts)) if allowed and lasts else None
        self._settle_idle()

    def _tick(self) -> None:
        self._wake, self._wake_at = None, None
        self._push(self.director.tick)

    def _settle_idle(self) -> None:
        busy = self._running_step or self._deals or self._closings or self._sweeps
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
        for command in commands:
            if type(command) is OpenTable:
                if not await self._open(command):
                    return  # no server took it: the rest is redone when it is rebuilt
                continue
            placement = self._tables.get(table_id)
            if placement is None:
                return  # unplaced, or lost while these commands waited
            try:
                await self._apply(table_id, placement, command)
            except TableServerDown as exc:
                self._servers.report_down(exc.endpoint, str(exc))  # every table there is lost
                return
            except TableRefused as exc:
                self._refused(table_id, placement.epoch, exc)
                return

    async def _open(self, command: OpenTable) -> bool:
        """Open ``command``'s table on the least loaded server up that takes it."""
        table_id, wire_id = command.table_id, convert.wire_table_id(command.table_id)
        for client in self._servers.candidates():
            copy = (client.endpoint, wire_id)
            if copy in self._stale and not await self._close_stale(copy):
                continue  # its stale copy there still plays out a hand (or the server is down)
            self._servers.placed(client.endpoint)  # counted before the call: tables opened at once spread
            try:
                await client.open_table(
                    self._token, wire_id, command.options, hand_number=command.hand_number, seed=self._table_seed
                )
            except (TableServerDown, TableRefused) as exc:
                self._servers.released(client.endpoint)
                if isinstance(exc, TableServerDown):
                    self._servers.report_down(exc.endpoint, str(exc))
                elif table_id not in self._unplaced:  # e.g. RESOURCE_EXHAUSTED (its table limit): said once
                    log.warning("a table server refused a table", extra=self._about(table_id=wire_id, error=str(exc)))
                continue
            self._epochs += 1
            self._tables[table_id] = _Placement(client, wire_id, self._epochs, self._loop.time())
            since = self._unplaced.pop(table_id, None)
            if since is not None:
                waited = round(self._loop.time() - since, 3)
                log.info("an unplaced table is placed", extra=self._about(table_id=wire_id, waited_s=waited))
            return True
        if table_id not in self._unplaced:
            log.warning("no table server takes the table now", extra=self._about(table_id=wire_id))
            self._unplaced[table_id] = self._loop.time()
        if self._servers.candidates():
            self._place_later()
        return False

    async def _apply(self, table_id: str, placement: _Placement, command: Command) -> None:
        client, wire_id, token = placement.client, placement.wire_id, self._token
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
        elif isinstance(command, SetAway):
            await client.set_away(token, wire_id, command.seat, command.away)
        elif isinstance(command, DealHand):
            self._deals += 1
            self.hands_dealt += 1
            placement.dealing = self._loop.create_task(self._deal(table_id, placement, command))
        else:
            assert isinstance(command, CloseTable), command  # OpenTable and TournamentFinished are not per table
            self._retire(table_id, placement)  # its hand, if any, plays out first; unanswered: closed once up
            await self._close_stale((client.endpoint, wire_id))

    async def _deal(self, table_id: str, placement: _Placement, command: DealHand) -> None:
        """One DealHand call; its result (or the table's loss) comes back as a step."""
        try:
            if self._hand_pause_s > 0:
                await asyncio.sleep(self._hand_pause_s)
            try:
                result = await placement.client.deal_hand(
                    self._token, placement.wire_id, command.hand_number, command.stakes
                )
            except TableServerDown as exc:
                self._servers.report_down(exc.endpoint, str(exc))
                return
            except TableRefused as exc:
                self._refused(table_id, placement.epoch, exc)
                return
            self._push(self._hand_finished(table_id, placement.epoch, result))
        finally:
            self._deals -= 1
            if placement.dealing is asyncio.current_task():
                placement.dealing = None
            self._settle_idle()

    def _hand_finished(self, table_id: str, epoch: int, result: HandResult) -> Step:
        def step(now: float) -> list[Command]:
            placement = self._tables.get(table_id)
            if placement is None or placement.epoch != epoch:
                return []  # the table was lost meanwhile: this result is of a table that is gone
            placement.last_hand = self._loop.time()
            self.hands_by_players[len(result.seats)] += 1
            if not result.voided:
                self.hands += 1
                self._metrics.hands.labels(self._game).inc()
            return self.director.hand_finished(result._replace(table_id=table_id), now)

        return step

    # ----------------------------------------------------------------- faults

    def _server_changed(self, endpoint: str, up: bool) -> None:
        if not up:
            for table_id, placement in list(self._tables.items()):
                if placement.client.endpoint == endpoint:
                    self._push(self._lost(table_id, placement.epoch))
            return
        self._sweep(endpoint)

    def _sweep(self, endpoint: str) -> None:
        """``endpoint`` is up: close the stale copies there, then offer the unplaced tables again."""
        closings = [self._close_stale(copy) for copy in list(self._stale) if copy[0] == endpoint]
        task = self._loop.create_task(self._server_back(closings))
        self._sweeps.add(task)
        task.add_done_callback(self._swept)
        self._settle_idle()

    async def _server_back(self, closings: list[asyncio.Future[bool]]) -> None:
        await asyncio.gather(*closings)
        self._place_unplaced()

    def _swept(self, task: asyncio.Task[None]) -> None:
        self._sweeps.discard(task)
        self._settle_idle()

    def _close_stale(self, copy: StaleCopy) -> asyncio.Future[bool]:
        """Close a stale copy (joining the closing under way, if any); resolves to whether it is
        gone (False: its hand still plays out, or its server is down)."""
        closing = self._closings.get(copy)
        if closing is None:
            closing = self._closings[copy] = self._loop.create_task(self._closing(copy))
            closing.add_done_callback(lambda _: self._closed(copy))
        return closing

    async def _closing(self, copy: StaleCopy) -> bool:
        client = self._stale.get(copy)
        if client is None:
            return True
        try:
            gone = await client.close_table(copy[1])
        except TableServerDown as exc:
            self._servers.report_down(exc.endpoint, str(exc))
            return False
        except TableRefused as exc:  # NOT_FOUND: gone already (the server restarted since)
            gone = True
            if exc.code != grpc.StatusCode.NOT_FOUND:
                log.info("stale table not closed", extra=self._about(table_id=copy[1], error=str(exc)))
        if gone:
            del self._stale[copy]
        return gone

    def _closed(self, copy: StaleCopy) -> None:
        del self._closings[copy]
        self._settle_idle()

    def _place_later(self) -> None:
        if self._retry is None:
            self._retry = self._loop.call_later(PLACE_RETRY_S, self._place_unplaced)

    def _place_unplaced(self) -> None:
        """Offer every table no server took to the servers up."""
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        for table_id in list(self._unplaced):
            self._push(self._lost(table_id, None))

    def _refused(self, table_id: str, epoch: int, exc: TableRefused) -> None:
        """A table server answered a call on the table with an error: the table is rebuilt.
        NOT_FOUND is a host fault, not a bug: the server lost the table (it restarted since the
        table was opened there, before the health checks could notice). Any other status means
        the director and the table disagree."""
        about = self._about(table_id=table_id, error=str(exc))
        if exc.code == grpc.StatusCode.NOT_FOUND:
            log.warning("a table server lost a table", extra=about)
        else:
            log.error("a table server refused a call", extra=about)
        self._push(self._lost(table_id, epoch))

    def _lost(self, table_id: str, epoch: int | None) -> Step:
        """The step rebuilding a lost table (``epoch`` None: one no server took)."""

        def step(now: float) -> list[Command]:
            if table_id not in self.director.tables:
                self._unplaced.pop(table_id, None)
                return []  # closed meanwhile
            if epoch is None:
                if table_id not in self._unplaced or not self._servers.candidates():
                    return []
                return self.director.table_lost(table_id, now)
            placement = self._tables.get(table_id)
            if placement is None or placement.epoch != epoch:
                return []  # rebuilt already
            self._retire(table_id, placement)
            endpoint = placement.client.endpoint
            if self._servers.is_up(endpoint):
                self._sweep(endpoint)  # a refused call, or the server is back already
            self._metrics.tables_lost.inc()
            self.tables_lost += 1
            log.warning("table lost: rebuilding it", extra=self._about(table_id=table_id))
            return self.director.table_lost(table_id, now)

        return step

    def _retire(self, table_id: str, placement: _Placement) -> None:
        """The table leaves its placement (closed, lost, or the tournament halted): its running deal
        is abandoned, and the copy there is stale until CloseTable says it is gone."""
        self._stale[(placement.client.endpoint, placement.wire_id)] = placement.client
        del self._tables[table_id]
        self._servers.released(placement.client.endpoint)
        if placement.dealing is not None:
            placement.dealing.cancel()

    # ----------------------------------------------------------------- the end

    def _finish(self) -> None:
        self.feed.end()
        self._stop_metrics()

    def _stop_metrics(self) -> None:
        self._unlisten()
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
        for table_id, placement in list(self._tables.items()):
            self._retire(table_id, placement)
        await asyncio.gather(*(self._close_stale(copy) for copy in list(self._stale)))
        self.feed.end(ServiceError(code, f"tournament {self.tournament_id!r} {reason}"))
        if not self.director.finished:
            self._stop_metrics()
        self._running_step = False
        self._settle_idle()

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
