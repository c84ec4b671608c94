"""Load against table servers an SRE already runs (``tablestorm load --target HOST:PORT,...``).

Like Locust's ``--host`` or a k6 script's URL: the run starts no table hosts. It creates its tables
on the given servers, round robin, through the TableService API (CreateTable), or, with ``--tables
existing``, plays the cash tables their ListTables shows (paged through; a table's free seats by
GetTable). The fleets run on Ray as always and connect to the servers directly, over TLS with
``--tls-ca``.

The run owns nothing there, so there is no ledger and no recovery. The driver checks every server
once a second; one that stops answering for :data:`LOST_AFTER_S` is lost: its bots report what they
saw (UNAVAILABLE) until they are told to stop where they sit, the others go on, and the summary
says what was lost (the server, its tables, the chips last seen there, the bots' seats). Chips are
counted per server from the servers' own state: what the bots bought and cashed out at its tables,
against what its tables hold by GetTable at the end with every hand over (and what they held when
the run found them); the run's chips are conserved when they are on every server that survived.
With ``--tables existing`` that holds as long as nobody but the bots sits down or leaves meanwhile.
"""

from __future__ import annotations

import secrets
import ssl
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub
from tablestorm.services.fields import FieldError
from tablestorm.services.table import convert
from tablestorm.sim.cluster.deployment import DeploymentError
from tablestorm.sim.load.scenario import Scenario
from tablestorm.sim.load.seat_pool import SeatPool
from tablestorm.sim.load.table_sites import ChipTally, Outages, ServerLoss, SiteEnd, SiteFacts, TableChips

__all__ = [
    "CREATE",
    "EXISTING",
    "LOST_AFTER_S",
    "CallFailed",
    "GivenServers",
    "Target",
    "parse_servers",
    "probe",
    "read_ca",
]

CREATE: Final = "create"
"""``--tables create``: the run creates its tables on the servers (and closes them at the end)."""
EXISTING: Final = "existing"
"""``--tables existing``: the run plays the cash tables it finds there (and leaves them open)."""
RPC_TIMEOUT: Final = 10.0
"""Seconds each call of the driver to a server may take."""
CHECK_TIMEOUT: Final = 3.0
"""Seconds the once-a-second check of a server may take."""
LOST_AFTER_S: Final = 3.0
"""A server that has not answered the checks for this long is lost."""
HANDS_OVER_S: Final = 30.0
"""How long the end waits for a table's running hand to end before its chips are unknown."""
HAND_POLL_S: Final = 0.1
"""How often the end asks a table with a running hand again (the API has no call that waits)."""
_PAGE: Final = 1000
_NOT_ANSWERING: Final = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


@dataclass(frozen=True, slots=True)
class Target:
    """``--target`` as given: the servers, the CA to trust (TLS), whose tables to play."""

    servers: tuple[str, ...]
    tls_ca: bytes | None = None
    """PEM: every connection is TLS, trusting this CA."""
    tables: str = CREATE
    game: str | None = None
    """With :data:`EXISTING`: only the tables of this game (``--game``)."""

    def channel(self, server: str) -> grpc.Channel:
        """A channel of the driver's own calls to ``server``."""
        if self.tls_ca is None:
            return grpc.insecure_channel(server)
        return grpc.secure_channel(server, grpc.ssl_channel_credentials(self.tls_ca))


def parse_servers(text: str) -> tuple[str, ...]:
    """``HOST:PORT[,HOST:PORT...]`` as endpoints; :class:`FieldError` naming ``--target`` otherwise."""
    servers = [part.strip() for part in text.split(",")]
    for server in servers:
        host, _, port = server.rpartition(":")
        if not host.strip("[]") or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise FieldError("--target", f"expected HOST:PORT with a port of 1 to 65535, got {server!r}")
    repeated = sorted({server for server in servers if servers.count(server) > 1})
    if repeated:
        raise FieldError("--target", f"{', '.join(repeated)} given more than once")
    return tuple(servers)


def read_ca(path: str) -> bytes:
    """The CA certificates of ``--tls-ca``, read and checked (:class:`FieldError` naming the flag)."""
    try:
        with open(path, "rb") as handle:
            pem = handle.read()
    except OSError as exc:
        raise FieldError("--tls-ca", f"cannot read {path}: {exc.strerror}") from None
    try:
        ssl.create_default_context(cadata=pem.decode("ascii"))
    except (UnicodeDecodeError, ssl.SSLError, ValueError):
        raise FieldError("--tls-ca", f"{path} holds no PEM certificate") from None
    return pem


def probe(target: Target, timeout: float) -> None:
    """Every server answers a ListTables within ``timeout`` seconds (over TLS with the CA), before
    anything starts; :class:`FieldError` naming the first that does not."""
    for server in target.servers:
        with target.channel(server) as channel:
            try:
                TableServiceStub(channel).ListTables(pb.ListTablesRequest(page_size=1), timeout=timeout)
            except grpc.RpcError as exc:
                raise FieldError(
                    f"--target {server}", f"no TableService answered within {timeout:g} s "
                    f"({exc.code().name}: {exc.details()})"
                ) from None


class GivenServers:
    """The servers of a :class:`Target` and the run's tables on them (see the module docstring)."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self._channels = {server: target.channel(server) for server in target.servers}
        self._stubs = {server: TableServiceStub(channel) for server, channel in self._channels.items()}
        self._server_of: dict[str, str] = {}
        """Each of the run's tables -> its server."""
        self._created: set[str] = set()
        """The tables the run created (it closes them at the end)."""
        self._found_with: dict[str, int | None] = {}
        """Each table -> the chips on it when the run began (0 for a table it created; None when a
        hand was running then, so its stacks did not hold every chip)."""
        self._end_chips: dict[str, int | None] = {}
        """Each table of a surviving server -> the chips on it at the end, every hand over (None:
        a hand would not end)."""
        self._failing_since: dict[str, float] = {}
        self._lost: dict[str, ServerLoss] = {}
        self._per_server: dict[str, ChipTally] = {}

    # ----------------------------------------------------------------- opening

    def open(self, scenario: Scenario, pool: SeatPool) -> None:
        """Create the run's tables, or find the cash tables with free seats; DeploymentError (the
        run does not start) naming the server and the call that failed."""
        try:
            if self._target.tables == CREATE:
                self._create(scenario, pool)
            else:
                self._adopt(pool)
        except CallFailed as exc:
            self.stop_dealing()  # the tables created so far go again
            raise DeploymentError(f"--target: {exc}") from None

    def _create(self, scenario: Scenario, pool: SeatPool) -> None:
        servers = list(self._target.servers)
        plan = pool.plan_tables(scenario, servers, prefix=f"load-{secrets.token_hex(3)}-")
        for server, specs in plan.items():
            for spec in specs:
                request = pb.CreateTableRequest(table_id=spec.table_id, options=convert.options_to_proto(spec.options))
                if spec.seed is not None:
                    request.seed = spec.seed
                self._call(server, "CreateTable", request)
                self._server_of[spec.table_id] = server
                self._created.add(spec.table_id)
                self._found_with[spec.table_id] = 0

    def _adopt(self, pool: SeatPool) -> None:
        found: dict[str, list[tuple[str, pb.TableState]]] = {}
        for server in self._target.servers:
            found[server] = []
            for summary in self._listed(server):
                if summary.closing or summary.seats_taken >= summary.max_seats:
                    continue
                if summary.table_id in self._server_of:
                    raise DeploymentError(
                        f"--tables existing: table {summary.table_id!r} is on both {self._server_of[summary.table_id]}"
                        f" and {server}; a run tells its tables apart by id"
                    )
                state = self._call(server, "GetTable", pb.GetTableRequest(table_id=summary.table_id))
                self._server_of[summary.table_id] = server
                self._found_with[summary.table_id] = (
                    None if state.hand_running else sum(seat.stack for seat in state.seats)
                )
                found[server].append((summary.game, state))
        # Round robin over the servers, so that every bot count spreads its seats over all of them.
        for k in range(max(map(len, found.values()), default=0)):
            for tables in found.values():
                if k < len(tables):
                    game, state = tables[k]
                    pool.adopt(state.table_id, game, [s.seat for s in state.seats if s.status == pb.SEAT_STATUS_EMPTY])
        if not pool.free:
            game = f" of {self._target.game}" if self._target.game else ""
            raise DeploymentError(f"--tables existing: no cash table{game} on the --target servers has a free seat")

    def _listed(self, server: str) -> Iterator[pb.TableSummary]:
        token = ""
        while True:
            request = pb.ListTablesRequest(game=self._target.game or "", page_size=_PAGE, page_token=token)
            page: pb.ListTablesResponse = self._call(server, "ListTables", request)
            yield from page.tables
            token = page.next_page_token
            if not token:
                return

    def _call(self, server: str, method: str, request: Any) -> Any:
        """``method`` of ``server``'s TableService within :data:`RPC_TIMEOUT`; :class:`CallFailed`."""
        try:
            return getattr(self._stubs[server], method)(request, timeout=RPC_TIMEOUT)
        except grpc.RpcError as exc:
            raise CallFailed(server, method, exc.code(), exc.details() or "") from None

    # ----------------------------------------------------------------- during the load

    def where(self, table_id: str) -> str | None:
        server = self._server_of.get(table_id)
        return None if server is None or server in self._lost else server

    def seat_tokens(self, seats: Sequence[tuple[str, int, str]]) -> None:
        """None: without a ledger nobody holds a lost fleet's seat tokens."""
        return None

    def killable(self) -> Mapping[str, str]:
        """None: the servers are not the run's to kill."""
        return {}

    def kill(self, server: str, at_s: float) -> Outages:
        raise ValueError(f"{server} is not the run's to kill (--target servers never are)")

    def watch(self, at_s: float, chips: Mapping[str, TableChips]) -> Outages:
        """ListTables on every server not lost yet, all at once; one that has not answered for
        :data:`LOST_AFTER_S` is lost."""
        live = [server for server in self._target.servers if server not in self._lost]
        calls = {
            server: self._stubs[server].ListTables.future(pb.ListTablesRequest(page_size=1), timeout=CHECK_TIMEOUT)
            for server in live
        }
        losses = []
        for server, call in calls.items():
            try:
                call.result()
            except grpc.RpcError as exc:
                if exc.code() not in _NOT_ANSWERING:
                    self._failing_since.pop(server, None)  # it answered, if with an error
                    continue
                since = self._failing_since.setdefault(server, at_s)
                if at_s - since >= LOST_AFTER_S:
                    losses.append(self._lose(server, since, chips))
                continue
            self._failing_since.pop(server, None)
        return Outages(losses=tuple(losses))

    def _lose(self, server: str, since: float, chips: Mapping[str, TableChips]) -> ServerLoss:
        tables = tuple(sorted(t for t, s in self._server_of.items() if s == server))
        loss = ServerLoss(server, since, tables, self._on_tables(tables, chips))
        self._lost[server] = loss
        return loss

    def _on_tables(self, tables: Sequence[str], chips: Mapping[str, TableChips]) -> int | None:
        """What the run knows to be on ``tables``: what they held when found, plus what the bots
        paid there, minus what they were paid."""
        found = _total(self._found_with[t] for t in tables)
        paid = sum(chips[t].bought - chips[t].cashed_out for t in tables if t in chips)
        return None if found is None else found + paid

    # ----------------------------------------------------------------- the end

    def stop_dealing(self) -> None:
        """CloseTable the tables the run created (they leave their server once their last bot has
        stood up); found tables stay open, the bots just leave them."""
        for table_id in sorted(self._created):
            server = self._server_of[table_id]
            if server in self._lost:
                continue
            try:
                self._call(server, "CloseTable", pb.CloseTableRequest(table_id=table_id))
            except CallFailed:
                continue  # gone, or its server going: the end's count or the next check says which

    def finish(self) -> SiteEnd:
        """Read every table of the surviving servers once its hand is over (GetTable); nothing else
        is the run's to do on servers it does not own."""
        for table_id, server in sorted(self._server_of.items()):
            if server not in self._lost:
                self._end_chips[table_id] = self._chips_when_idle(server, table_id)
        return SiteEnd()

    def _chips_when_idle(self, server: str, table_id: str) -> int | None:
        """The chips on a table by GetTable once no hand runs there (0 once it closed and left);
        None when a hand is still running after :data:`HANDS_OVER_S`, or the server fails."""
        deadline = time.monotonic() + HANDS_OVER_S
        while True:
            try:
                state: pb.TableState = self._call(server, "GetTable", pb.GetTableRequest(table_id=table_id))
            except CallFailed as exc:
                return 0 if exc.code is grpc.StatusCode.NOT_FOUND and table_id in self._created else None
            if not state.hand_running:
                return sum(seat.stack for seat in state.seats)
            if time.monotonic() >= deadline:
                return None
            time.sleep(HAND_POLL_S)

    def chips(self, bots: Mapping[str, TableChips]) -> ChipTally:
        """Per surviving server: found + bought against on its tables at the end + cashed out."""
        for server in self._target.servers:
            if server in self._lost:
                continue
            tables = [t for t, s in self._server_of.items() if s == server]
            found, left = _total(self._found_with[t] for t in tables), _total(self._end_chips.get(t) for t in tables)
            bought = sum(bots[t].bought for t in tables if t in bots)
            cashed = sum(bots[t].cashed_out for t in tables if t in bots)
            self._per_server[server] = ChipTally(
                None if found is None else found + bought, None if left is None else left + cashed, left
            )
        counts = self._per_server.values()
        return ChipTally(
            _total(c.start for c in counts), _total(c.end for c in counts), _total(c.left_on_tables for c in counts)
        )

    def processing(self) -> list[tuple[float, float]]:
        """None read: the servers' histograms are on their own metrics endpoints, which the run
        does not know."""
        return []

    def describe(self) -> SiteFacts:
        servers = []
        for server in self._target.servers:
            count = self._per_server.get(server)
            lost = self._lost.get(server)
            conserved = None if count is None or count.start is None or count.end is None else count.start == count.end
            servers.append({
                "server": server,
                "tables": sum(1 for s in self._server_of.values() if s == server),
                "lost_at_s": None if lost is None else lost.at_s,
                "chips_start": None if count is None else count.start,
                "chips_end": None if count is None else count.end,
                "chips_conserved": conserved,
            })
        target = {"servers": list(self._target.servers), "tables": self._target.tables,
                  "tls": self._target.tls_ca is not None}
        return SiteFacts(tuple(servers), 0, 0, target)

    def __enter__(self) -> GivenServers:
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the driver's channels to the servers."""
        for channel in self._channels.values():
            channel.close()


def _total(counts: Iterable[int | None]) -> int | None:
    """The sum, or None when a count is unknown."""
    known = list(counts)
    return None if None in known else sum(c for c in known if c is not None)


class CallFailed(Exception):
    """A call of the driver to a given server failed: which server, which call, its status."""

    def __init__(self, server: str, method: str, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{server} {method}: {code.name}: {details}")
        self.code = code
