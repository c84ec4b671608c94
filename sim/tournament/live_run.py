"""The live tournament: table hosts, a tournament server and player fleets on Ray, real clocks.

:class:`LiveTournamentRun` deploys the run's table hosts (:class:`~tablestorm.sim.cluster.deployment.Deployment`, as
a load run does), a :class:`~.actors.TournamentActor` on the driver's node (so that losing any
other node never takes the tournament along) given the hosts' endpoints, and player fleets
(:class:`~.actors.PlayerFleetActor`) spread over the nodes. The players are those of the
accelerated driver for the same seed: ids ``p1..pN``, profiles drawn from the same stream
(:func:`.profiles.driver_rng`), each deciding from ``player_seed(seed, id)``; the tournament id is
the same and the tables shuffle with the live tables' ids in both, so both modes deal and decide
alike. The fleets register their players one after the other, fleets in turn, so that the
director sees the registrations in the accelerated order (its seat draw follows it).

Once a second the driver reads the tournament's state for the live view and fires the chaos events
that are due (``kill-host@Ns``: the host actor is killed; the tournament server finds its tables
lost and rebuilds them, TOURN-11; ``kill-tournament-server@Ns``: the tournament server's process
is killed with SIGKILL and a new one started on the same port from its journal, ``journal.db`` in
the output directory unless ``--journal`` names another, which it then finds its tables from
and carries on, the players' Watch streams resuming after the last event they saw). It stops
when the tournament finishes, halts, runs past the time limit, or is interrupted (SIGINT or
SIGTERM: the files are written all the same).

What only a live run measures: the **start burst** (seconds from the start until every starting
table has dealt its first hand, to its first turn) and the **move latency** (from a moved
player's ``Moved`` event to its first turn at the new table).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from tablestorm.sim.bots.tournament_player import Entrant
from tablestorm.sim.cluster import connection
from tablestorm.sim.cluster.deployment import CALL_TIMEOUT, START_TIMEOUT, ActorInfo, Deployment, remote, within
from tablestorm.sim.cluster.interruption import Interruption, abort_in
from tablestorm.sim.tournament.command import TOURNAMENT_ID, TournamentArgs
from tablestorm.sim.tournament.outputs import tournament_document
from tablestorm.sim.tournament.profiles import assign_profiles, driver_rng, player_seed
from tablestorm.sim.tournament.terminal import TournamentView

if TYPE_CHECKING:
    from tablestorm.services.director.structure import TournamentStructure
    from tablestorm.sim.tournament.profiles import PlayerProfile

__all__ = ["LiveRoom", "LiveTournamentRun", "entrants_of", "run_live"]

POLL_S = 1.0
"""Seconds between the driver's looks at the tournament (the live view, chaos, the end)."""
REGISTER_S = 1.0
"""Seconds one registration may take, at most, on top of START_TIMEOUT for a fleet's (one after another)."""
MIN_RPC_TIMEOUT_S = 10.0
"""The bots' table calls' deadline when every action clock is shorter."""


def entrants_of(entrants: int, profiles: Sequence[PlayerProfile], seed: int) -> list[Entrant]:
    """The field of ``entrants`` players, as the accelerated driver makes it for the same seed."""
    assigned = assign_profiles(entrants, profiles, driver_rng(seed))
    return [
        Entrant(
            player_id=f"p{k}", bot_kind=profile.kind, think=profile.think, seed=player_seed(seed, f"p{k}"),
            auto_rebuy=profile.rebuys, add_on=profile.add_on, reenter=profile.reenter,
        )
        for k, profile in enumerate(assigned, 1)
    ]


def _blocks(entrants: Sequence[Entrant], fleets: int) -> list[list[Entrant]]:
    """``fleets`` contiguous blocks of the field, as even as they go (p1.. in the first)."""
    size, extra = divmod(len(entrants), fleets)
    blocks, start = [], 0
    for k in range(fleets):
        end = start + size + (1 if k < extra else 0)
        blocks.append(list(entrants[start:end]))
        start = end
    return blocks


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class LiveRoom:
    """Table hosts, a tournament server and player fleets on the Ray this process is connected to:
    deployed once (:meth:`deploy`), then any number of tournaments played on them by id."""

    def __init__(self, ray: Any, out: Path, *, hosts: int, fleets: int, hand_pause_s: float,
                 longest_clock_s: float, journal: Path | None = None) -> None:
        """``hand_pause_s``: the tournament server's pause before every hand (the tables' own time
        between hands); ``longest_clock_s``: the longest action clock of the tournaments to be
        played, which the bots' table calls must outwait (:data:`MIN_RPC_TIMEOUT_S` at least);
        ``journal``: the tournament server's journal (a file there is the run's own: replaced)."""
        self.ray = ray
        self.hosts = hosts
        self.fleet_count = fleets
        self.hand_pause_s = hand_pause_s
        self.rpc_timeout = max(MIN_RPC_TIMEOUT_S, longest_clock_s)
        self.deployment = Deployment(ray, out, host_limits={}, bot_config={}, start=time.time())
        self.tournament: Any = None
        """The tournament server's actor."""
        self.journal = journal
        self.tournament_servers_killed: list[dict[str, Any]] = []
        self._tournament_args: tuple[Any, ...] = ()
        """How the tournament server's actor is made (its tables, pause, journal and port)."""
        self._tournament_info: dict[str, Any] = {}
        self.fleets: dict[str, Any] = {}
        self.hosts_killed: list[dict[str, Any]] = []
        self._players: dict[str, dict[str, int]] = {}
        """Players of each tournament in each fleet."""
        self._host_info: dict[str, ActorInfo] = {}
        """Every table host started, by id (a killed one's stays)."""
        self._nodes: dict[str, str] = {}
        """The Ray nodes alive at the deploy: id -> address."""

    def deploy(self) -> None:
        """Start the hosts, the tournament server on this node, and the fleets."""

        from tablestorm.sim.tournament.actors import PlayerFleetActor

        ray, deployment = self.ray, self.deployment
        self._nodes = self.nodes_alive()
        hosts = deployment.start_hosts(self.hosts)
        self._host_info = {h: deployment.info[h] for h in hosts}
        endpoints = [deployment.info[h].endpoint for h in hosts]
        if self.journal is not None:
            for stale in (self.journal, *(Path(f"{self.journal}{tail}") for tail in ("-wal", "-shm"))):
                stale.unlink(missing_ok=True)
        self._tournament_args = (endpoints, self.hand_pause_s, None if self.journal is None else str(self.journal))
        endpoint = self._start_tournament_server(0)["endpoint"]
        placement = deployment.placement
        for k in range(self.fleet_count):
            fleet_id = f"players-{k}"
            strategy = placement.strategy([*deployment.running, *self.fleets])
            self.fleets[fleet_id] = remote(PlayerFleetActor).options(scheduling_strategy=strategy).remote(
                endpoint, {"rpc_timeout": self.rpc_timeout}
            )
            info = within(ray, self.fleets[fleet_id].start.remote(), START_TIMEOUT, f"player fleet {fleet_id}")
            placement.placed({fleet_id: info["node_id"]})

    def _start_tournament_server(self, port: int) -> dict[str, Any]:
        """The tournament server's actor on this node (so that losing another never takes it along)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from tablestorm.sim.tournament.actors import TournamentActor

        ray = self.ray
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        self.tournament = remote(TournamentActor).options(scheduling_strategy=here).remote(
            *self._tournament_args, port
        )
        info: dict[str, Any] = within(ray, self.tournament.start.remote(), START_TIMEOUT, "the tournament server")
        self._tournament_info = info
        return info

    def kill_tournament_server(self, at_s: float) -> dict[str, Any]:
        """Chaos, ``at_s`` seconds into the run: SIGKILL the tournament server's process, then start
        it again on the same port from its journal; returns when, how long until it served again
        (a new actor's start included), and its journal's size then."""
        assert self.journal is not None, "a journal is what it restarts from"
        began = time.monotonic()
        os.kill(self._tournament_info["pid"], signal.SIGKILL)  # on this node (see _start_tournament_server)
        self.ray.kill(self.tournament, no_restart=True)  # dead already: Ray forgets it at once
        port = int(self._tournament_info["endpoint"].rpartition(":")[2])
        info = self._start_tournament_server(port)
        killed = {"at_s": round(at_s, 3), "restart_s": round(time.monotonic() - began, 3),
                  "journal_read_s": round(info["start_s"], 3), "journal_bytes": info["journal_bytes"],
                  "tournaments_restored": info["restored"]}
        self.tournament_servers_killed.append(killed)
        return killed

    def create(self, tournament_id: str, structure: TournamentStructure, seed: int,
               entrants: Sequence[Entrant]) -> None:
        """Open a tournament for registration and give its players to the fleets (p1.. in the first)."""
        ray = self.ray
        within(ray, self.tournament.create.remote(tournament_id, structure, seed), CALL_TIMEOUT,
               "the tournament server")
        blocks = _blocks(entrants, min(len(self.fleets), len(entrants)))
        self._players[tournament_id] = {}
        for (fleet_id, fleet), block in zip(self.fleets.items(), blocks, strict=False):
            self._players[tournament_id][fleet_id] = len(block)
            within(ray, fleet.enter.remote(tournament_id, block), CALL_TIMEOUT, f"player fleet {fleet_id}")

    def register(self, tournament_id: str) -> int:
        """Register its players, fleets in turn (the registration order is p1..pN); returns the
        tournament's last seq then."""
        last = 0
        for fleet_id, players in self._players[tournament_id].items():
            bound = START_TIMEOUT + REGISTER_S * players
            last = within(self.ray, self.fleets[fleet_id].register.remote(tournament_id), bound,
                          f"player fleet {fleet_id} registering")
        return last

    def seat(self, tournament_id: str, last: int) -> None:
        """Its registered players follow it (``last``: :meth:`register`'s seq). A sit-and-go started
        at its last registration: its players follow it from the first event; an MTT's skip the
        registrations, which they need not read a thousand times each."""
        resume_after = None if self.status(tournament_id)["status"] != "registering" else last
        within(self.ray, [self.fleets[f].play.remote(tournament_id, resume_after)
                          for f in self._players[tournament_id]], CALL_TIMEOUT, "the fleets")

    def begin(self, tournament_id: str) -> None:
        """Start it (the seat draw, then the deals); a started sit-and-go is left alone."""
        within(self.ray, self.tournament.begin.remote(tournament_id), CALL_TIMEOUT, "the tournament server")

    def status(self, tournament_id: str) -> dict[str, Any]:
        """What the live view shows (:meth:`TournamentActor.status`), now."""
        status: dict[str, Any] = within(self.ray, self.tournament.status.remote(tournament_id), CALL_TIMEOUT,
                                        "the tournament server")
        return status

    def result(self, tournament_id: str, seed: int) -> dict[str, Any]:
        """The director's record and the run's checks (:meth:`TournamentActor.result`)."""
        result: dict[str, Any] = within(self.ray, self.tournament.result.remote(tournament_id, seed), CALL_TIMEOUT,
                                        "the tournament server")
        return result

    def kill_host(self, at_s: float) -> dict[str, Any] | None:
        """Chaos, ``at_s`` seconds into the run: kill the first live table host (its tables are
        rebuilt elsewhere by the server); returns what was killed (None with a single host left)."""
        deployment = self.deployment
        if len(deployment.hosts) < 2:
            return None
        host_id = sorted(deployment.hosts)[0]
        info = deployment.info[host_id]
        deployment.remove_host(host_id)
        killed = {"at_s": round(at_s, 3), "host": host_id, "endpoint": info.endpoint}
        self.hosts_killed.append(killed)
        return killed

    def players_report(self) -> dict[str, Any]:
        """What the fleets' players saw, over every tournament played here: the bots' actions,
        timeouts, errors and protocol violations, seats, move latencies, first turns by table."""
        reports = self.deployment.broadcast(self.fleets, "collect")
        moves = [x for r in reports for x in r["move_latencies"]]
        errors: dict[str, int] = {}
        calls: dict[str, int] = {}
        for report in reports:
            for into, key in ((errors, "errors"), (calls, "call_errors")):
                for code, count in report[key].items():
                    into[code] = into.get(code, 0) + count
        first: dict[str, float] = {}
        for table_id, at in (pair for r in reports for pair in r["first_seats"]):
            if at is not None:
                first[table_id] = min(first.get(table_id, at), at)
        return {
            "first_turns": first,
            "move_latency_ms": {
                "count": len(moves),
                "p50": None if not moves else 1000 * (_percentile(moves, 0.5) or 0.0),
                "p99": None if not moves else 1000 * (_percentile(moves, 0.99) or 0.0),
                "max": None if not moves else 1000 * max(moves),
            },
            "seats_assigned": sum(r["seats"] for r in reports),
            "actions": sum(r["actions"] for r in reports),
            "timeouts": sum(r["timeouts"] for r in reports),
            "late_actions": sum(r["late_actions"] for r in reports),
            "seats_by_node": self._seats_by_node(reports),
            "errors": errors,
            "call_errors": calls,
            "protocol_violations": sum(len(r["violations"]) for r in reports),
            "violations": [v for r in reports for v in r["violations"]][:20],
        }

    def nodes_alive(self) -> dict[str, str]:
        """The Ray nodes alive now: id -> address."""
        return {n["NodeID"]: n["NodeManagerAddress"] for n in self.ray.nodes() if n.get("Alive")}

    def nodes_lost(self) -> list[dict[str, str]]:
        """The nodes alive at the deploy and gone now, each with its address (what names a lost host
        where one address is a machine) and id (where several nodes share one)."""
        alive = self.nodes_alive()
        return [{"node_id": node, "address": address} for node, address in self._nodes.items() if node not in alive]

    def _seats_by_node(self, reports: Sequence[dict[str, Any]]) -> dict[str, int]:
        """Seats assigned at each Ray node's table hosts (the killed ones' included)."""
        nodes = {info.endpoint: info.node_id for info in self._host_info.values()}
        counts: dict[str, int] = {}
        for report in reports:
            for endpoint, count in report["seats_by_endpoint"].items():
                node = nodes.get(endpoint, "unknown")
                counts[node] = counts.get(node, 0) + count
        return counts

    def teardown(self, interruption: Interruption) -> None:
        """Stop and end every actor started here. The actors are asked to stop first (each answer
        waited for up to 30 s), unless a signal stopped the command at once, or stops the asking:
        then they are ended without it."""
        deployment = self.deployment
        try:
            if not interruption.aborted:
                failed = self.ray.exceptions.RayError  # an actor dead or late: it is ended below
                with contextlib.suppress(failed):
                    deployment.broadcast(self.fleets, "stop", timeout=30.0)
                if self.tournament is not None:
                    with contextlib.suppress(failed):
                        self.ray.get(self.tournament.stop.remote(), timeout=30.0)
                deployment.broadcast(deployment.hosts, "stop", timeout=30.0)
        except Exception as exc:  # the Abort itself, or wrapped by the native code it interrupted
            if abort_in(exc) is None:
                raise
        with interruption.shielded("ending the run's actors"):
            for handle in [*self.fleets.values(), *([self.tournament] if self.tournament is not None else [])]:
                deployment.end(handle)
            deployment.kill_all()


class LiveTournamentRun:
    """One live tournament on a room of its own, on the Ray this process is connected to."""

    def __init__(self, request: TournamentArgs, run: dict[str, Any], *, stream: TextIO,
                 interruption: Interruption | None = None) -> None:
        import ray

        self.request = request
        self.run_meta = run
        self.interruption = interruption or Interruption()
        self.view = TournamentView(stream)
        self.room = LiveRoom(ray, request.out, hosts=request.hosts, fleets=request.fleets,
                             hand_pause_s=request.dealing.between_hands_s,
                             longest_clock_s=request.structure.clock_seconds, journal=request.journal)
        self.registration_s: float | None = None
        """Seconds the players took to register, one after the other."""

    # ----------------------------------------------------------------- the run

    def run(self) -> dict[str, Any]:
        """Deploy, play to the end (or the limit, or a signal), collect; returns tournament.json."""
        request, room = self.request, self.room
        try:
            room.deploy()
            room.create(TOURNAMENT_ID, request.structure, request.seed,
                        entrants_of(request.entrants, request.profiles, request.seed))
            interrupted = self._play()
            with self.interruption.shielded("collecting the tournament's record"):
                return self._document(interrupted)
        finally:
            room.teardown(self.interruption)

    def _play(self) -> bool:
        """Register, start and follow the tournament; returns whether it was interrupted."""
        with self.interruption.running() as interruption:
            try:
                began = time.monotonic()
                last = self.room.register(TOURNAMENT_ID)
                self.registration_s = time.monotonic() - began
                self.room.seat(TOURNAMENT_ID, last)
                self.room.begin(TOURNAMENT_ID)
                return self._follow(interruption)
            except Exception as exc:  # the Abort itself, or wrapped by the native code it interrupted
                if abort_in(exc) is None:
                    raise
                return True

    def _follow(self, interruption: Interruption) -> bool:
        request, room = self.request, self.room
        chaos = sorted(request.chaos, key=lambda event: event.at)
        began = time.monotonic()
        while True:
            status = room.status(TOURNAMENT_ID)
            self.view.update(status)
            if status["status"] == "finished" or status["halted"] is not None:
                return False
            elapsed = time.monotonic() - began
            while chaos and chaos[0].at <= elapsed:
                if chaos.pop(0).action == "kill-tournament-server":
                    back = room.kill_tournament_server(elapsed)
                    self.view.note(f"chaos: killed the tournament server at {elapsed:.1f} s; back from its journal"
                                   f" ({back['journal_bytes']} bytes) in {back['restart_s']:.2f} s")
                    continue
                killed = room.kill_host(elapsed)
                if killed is not None:
                    self.view.note(f"chaos: killed table host {killed['host']} ({killed['endpoint']}) at "
                                   f"{elapsed:.1f} s")
            if elapsed > request.time_limit_s:
                self.view.note(f"the time limit ({request.time_limit_s:g} s, --time-limit) is up: stopping")
                return False
            if interruption.requested.wait(POLL_S):
                return True

    # ----------------------------------------------------------------- the end

    def _document(self, interrupted: bool) -> dict[str, Any]:
        request, room = self.request, self.room
        self.view.finish()
        outcome = room.result(TOURNAMENT_ID, request.seed)
        players = room.players_report()
        first = players.pop("first_turns")
        started = outcome["started_at"]
        live = {
            "hosts": request.hosts,
            "fleets": request.fleets,
            "nodes": len(room.nodes_alive()),
            "nodes_lost": room.nodes_lost(),
            "hosts_killed": room.hosts_killed,
            "tournament_servers_killed": room.tournament_servers_killed,
            "tables_lost": outcome["tables_lost"],
            "hands_voided": outcome["hands_voided"],
            "halted": outcome["halted"],
            "registration_s": self.registration_s,
            "start_burst_s": None if started is None or not first else max(first.values()) - started,
            **players,
        }
        return tournament_document(outcome["summary"], mode="live", finished=outcome["finished"],
                                   interrupted=interrupted, run=self.run_meta, live=live,
                                   field=request.field_summary())


def run_live(request: TournamentArgs, run: dict[str, Any], *, stream: TextIO,
             interruption: Interruption) -> dict[str, Any]:
    """``tablestorm tournament`` without ``--accelerated``: connect (or start a local loopback Ray),
    play, and leave the cluster as found; ClusterError or DeploymentError when Ray is out of reach,
    :class:`~tablestorm.sim.cluster.interruption.Abort` when a signal stopped it before its start."""
    info = connection.connect(request.address, timeout=request.connect_timeout)
    try:
        return LiveTournamentRun(request, run, stream=stream, interruption=interruption).run()
    finally:
        if info.started_here:
            with interruption.shielded("stopping Ray"):
                connection.disconnect()
