"""deploy/grafana/: the committed dashboards are what the generator writes, and every panel works.

The drift test regenerates the JSON into a temporary directory and compares. The structural tests
hold every dashboard to what makes it importable anywhere (the datasource a variable, the cluster,
host and game variables, unique ids) and every query to the metrics the services export or the
recording rules define. The every-panel tests execute every panel's PromQL and every variable's
query through a real Prometheus's HTTP API (the ``prometheus`` binary with deploy/prometheus/),
with the variables set to All and to their first value, and require a result holding a number: a
panel naming a metric the services do not export, or a label they do not set, fails. The Load
test, Table hosts and Capacity dashboards are run against a short real load (a LoadTest on a local
Ray: slow) and a real ``tablestorm plan --serve-metrics`` (the Capacity dashboard's forecast,
whose panels must draw the plan's figures); the Tournaments dashboard against a short real tournament (``tablestorm
serve-tournaments`` over two ``tablestorm serve`` processes, played by bots to its winner through
hand-for-hand), over the whole run as Grafana draws it, where the panels must also show what the
tournament did.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import importlib.util
import io
import json
import math
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import grpc
import pytest
import yaml
from support.metrics import catalogue
from support.processes import process, stop
from support.running import run_async
from support.schedules import PER_CORE, STEADY_MINUTE, capacity_doc, steady_day, write
from support.tournaments import OPERATOR, TIMEOUT, Bot, Channels, fast_structure, operator, until

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.driver import LoadTest
from tablestorm.sim.load.prometheus import PrometheusServer, write_targets
from tablestorm.sim.load.scenario import from_mapping

if TYPE_CHECKING:  # the typed stub of a grpc.aio channel lives in the generated .pyi only
    from tablestorm.services.api.tournament_pb2_grpc import TournamentServiceAsyncStub

ROOT = Path(__file__).resolve().parent.parent
GRAFANA = ROOT / "deploy" / "grafana"
DASHBOARDS = sorted((GRAFANA / "dashboards").glob("*.json"))
TOURNAMENTS_BOARD = "tablestorm-tournaments.json"
"""Checked against a real tournament; the other dashboards against a real load run."""
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
GRAFANA_DEFAULTS = {"$__rate_interval": "30s", "$__range": "5m"}
"""Grafana's own variables, as a 2 s scrape and the dashboards' 30 minutes would set them."""


def generator() -> ModuleType:
    """deploy/grafana/generate.py, imported from its path (deploy/ is no package)."""
    pytest.importorskip("grafana_foundation_sdk", reason="pip install -e '.[deploy]' (the test extra has it)")
    spec = importlib.util.spec_from_file_location("tablestorm_grafana_generate", GRAFANA / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def dashboards() -> dict[str, dict[str, Any]]:
    return {path.name: json.loads(path.read_text()) for path in DASHBOARDS}


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def variables(dashboard: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in dashboard["templating"]["list"]}


def substitute(expr: str, values: dict[str, str]) -> str:
    for name, value in {**GRAFANA_DEFAULTS, **{f"${k}": v for k, v in values.items()}}.items():
        expr = expr.replace(name, value)
    assert "$" not in expr, expr
    return expr


# ----------------------------------------------------------------------------- without Prometheus


def test_committed_dashboards_match_the_generator(tmp_path: Path) -> None:
    module = generator()
    written = module.write(tmp_path)
    assert sorted(p.name for p in written) == [p.name for p in DASHBOARDS], "regenerate: deploy/grafana/generate.py"
    for path in written:
        assert path.read_text() == (GRAFANA / "dashboards" / path.name).read_text(), (
            f"{path.name} drifted from deploy/grafana/generate.py: run it and commit the JSON"
        )


def test_generator_rejects_an_out_path_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = generator()
    target = tmp_path / "file"
    target.write_text("")
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--out", str(target)])
    assert exit_info.value.code == 2
    assert "argument --out:" in capsys.readouterr().err and target.read_text() == ""


def test_dashboards_import_as_they_are() -> None:
    boards = dashboards()
    assert {b["title"] for b in boards.values()} == {
        "tablestorm / Load test", "tablestorm / Table hosts", "tablestorm / Tournaments", "tablestorm / Capacity",
    }
    assert len({b["uid"] for b in boards.values()}) == len(boards)
    for name, board in boards.items():
        named = variables(board)
        assert named["datasource"]["type"] == "datasource" and named["datasource"]["query"] == "prometheus", name
        for variable in ("cluster", "host", "game"):
            assert named[variable]["type"] == "query", (name, variable)
            assert named[variable]["datasource"]["uid"] == "${datasource}", (name, variable)
            assert named[variable]["includeAll"] and named[variable]["allValue"] == ".*", (name, variable)
        ids = [p["id"] for p in board["panels"]]
        assert len(ids) == len(set(ids)) and 0 not in ids, name
        for panel in panels(board):
            assert panel["datasource"]["uid"] == "${datasource}", (name, panel["title"])
            assert panel["targets"], (name, panel["title"])
            for target in panel["targets"]:
                assert target["datasource"]["uid"] == "${datasource}", (name, panel["title"])
                assert 'cluster=~"$cluster"' in target["expr"], (name, panel["title"], "not narrowed to $cluster")


def test_every_query_names_exported_metrics_or_recording_rules() -> None:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    recorded = {rule["record"] for group in groups for rule in group["rules"] if "record" in rule}
    exported = catalogue() | {"up"}
    for name, board in dashboards().items():
        exprs = [t["expr"] for p in panels(board) for t in p["targets"]]
        exprs += [v["query"] for v in variables(board).values() if v["type"] == "query"]
        for expr in exprs:
            for metric in re.findall(r"([a-zA-Z_:][\w:]*)\{", expr):
                base = re.sub(r"_(bucket|count|sum)$", "", metric)
                assert metric in recorded or metric in exported or base in exported, (name, metric)


def test_the_stall_panel_draws_what_the_alert_reads() -> None:
    """The panel's ratio is the TournamentStalled alert's, its line the generator's STALL_CLOCKS."""
    clocks = generator().STALL_CLOCKS
    groups = yaml.safe_load(RULES.read_text())["groups"]
    alert = next(rule for group in groups for rule in group["rules"] if rule.get("alert") == "TournamentStalled")
    assert alert["expr"] == (
        f"tablestorm_tournament_last_hand_age_seconds > {clocks} * tablestorm_tournament_clock_seconds"
    )
    assert f"over {clocks} action clocks" in " ".join(alert["annotations"]["summary"].split())
    board = dashboards()[TOURNAMENTS_BOARD]
    panel = next(p for p in panels(board) if p["title"] == "Longest wait for a hand, in clocks")
    assert re.fullmatch(r"max by \(tournament\) \(tablestorm_tournament_last_hand_age_seconds\{[^}]*\}"
                        r" / tablestorm_tournament_clock_seconds\{[^}]*\}\)", panel["targets"][0]["expr"])
    assert f"above {clocks}" in panel["description"]


# ----------------------------------------------------------------------------- every panel, for real


def query_variables(dashboard: dict[str, Any]) -> list[str]:
    """The dashboard's query variables, in their order (each may name the ones before it)."""
    return [v["name"] for v in dashboard["templating"]["list"] if v["type"] == "query"]


def grafana_regex(value: str) -> str:
    """A variable's value as Grafana writes it into a PromQL regex: escaped, the escapes escaped
    again for the PromQL string it sits in."""
    return re.escape(value).replace("\\", "\\\\")


@dataclasses.dataclass
class Check:
    """One query of one panel, with the variables it runs under (All or each one's first value)."""

    board: str
    panel: str
    variables: str
    ref: str
    """The query's refId in its panel (A, B, ...)."""
    expr: str
    instant: bool
    """A stat panel: Grafana runs its query at the end of the range; a time series over the range."""
    value: str = ""
    """What it returned the first time it held a number (for the report)."""
    last: str = "never ran"
    peak: float = -math.inf
    """The largest number it returned."""

    def record(self, result: list[dict[str, Any]]) -> None:
        """A query's result (an instant vector or a range's matrix)."""
        numbers = [float(point[1]) for series in result for point in series.get("values", [series.get("value")])]
        numbers = [n for n in numbers if not math.isnan(n)]
        self.last = json.dumps(result)[:300] if result else "empty"
        self.peak = max([self.peak, *numbers])
        if numbers and not self.value:
            self.value = ", ".join(f"{n:.4g}" for n in numbers[:4]) + (" ..." if len(numbers) > 4 else "")


SETTLED_S = 3.0
"""How far behind now the instant checks read: longer than a scrape interval (2 s, deploy/prometheus),
so every sample up to then is in."""


class Panels:
    """Every panel query of some dashboards, run through a real Prometheus's HTTP API under the
    variables at All and at their first values (once every variable offers one)."""

    def __init__(self, boards: dict[str, dict[str, Any]], api: Callable[..., Any]) -> None:
        self.boards = boards
        self.api = api
        self.checks: list[Check] = []
        self.found: dict[tuple[str, str], list[str]] = {}
        """(board, variable) -> the values its query offered."""

    def _label_values(self, query: str, chosen: dict[str, str]) -> list[str]:
        match = re.fullmatch(r"label_values\((.*), (\w+)\)", query)
        assert match is not None, query
        values: list[str] = self.api(f"/api/v1/label/{match.group(2)}/values",
                                     **{"match[]": substitute(match.group(1), chosen)})
        return sorted(values)

    def plan(self) -> bool:
        """The checks, if every variable of every dashboard offers a value yet."""
        checks = []
        for name, board in self.boards.items():
            named = variables(board)
            every = dict.fromkeys(query_variables(board), ".*")
            first = dict(every)
            for variable in every:
                values = self._label_values(named[variable]["query"], first)
                if not values:
                    return False
                self.found[(name, variable)] = values
                first[variable] = grafana_regex(values[0])
            for panel in panels(board):
                for target in panel["targets"]:
                    for label, chosen in (("All", every), ("first", first)):
                        expr = substitute(target["expr"], chosen)
                        checks.append(Check(name, panel["title"], label, target["refId"], expr,
                                            panel["type"] == "stat"))
        self.checks = checks
        return True

    def run_now(self) -> None:
        """Every check still without a number, as an instant query at one moment :data:`SETTLED_S`
        ago: each reads the same samples, so a query over every host never misses what the same
        query over one of them saw a moment later (a rare series, the GC's, did once)."""
        moment = f"{time.time() - SETTLED_S:.3f}"
        for check in self.checks:
            if not check.value:
                check.record(self.api("/api/v1/query", query=check.expr, time=moment)["result"])

    def run_over(self, start: float, end: float, step: float = 2.0) -> None:
        """Every check as Grafana draws it over [start, end]: a time series a point per scrape
        interval (``step``), the last at ``end``; a stat at ``end``."""
        first = end - step * math.ceil((end - start) / step)
        for check in self.checks:
            if check.instant:
                result = self.api("/api/v1/query", query=check.expr, time=f"{end:.3f}")["result"]
            else:
                result = self.api("/api/v1/query_range", query=check.expr, start=f"{first:.3f}", end=f"{end:.3f}",
                                  step=f"{step:g}")["result"]
            check.record(result)

    def peak(self, panel: str, ref: str = "A", variables: str = "All") -> float:
        """The largest number one query of a panel returned."""
        return next(c.peak for c in self.checks if (c.panel, c.ref, c.variables) == (panel, ref, variables))

    def assert_every_panel_returned(self) -> None:
        for (board, variable), values in sorted(self.found.items()):
            print(f"VARIABLE {board} | ${variable} | {values}")
        for check in self.checks:
            print(f"{'PASS' if check.value else 'FAIL'} [{check.variables}] {check.board} | {check.panel} | "
                  f"{check.expr} => {check.value or check.last}")
        assert self.checks, f"the variables never all had values: {self.found}"
        failed = [f"{c.board} | {c.panel} [{c.variables}]: {c.expr} => {c.last}" for c in self.checks if not c.value]
        assert not failed, failed
        panel_count = sum(1 for board in self.boards.values() for _ in panels(board))
        assert len({(c.board, c.panel) for c in self.checks}) == panel_count


@contextlib.contextmanager
def forecast_exporter(inputs: Path, prometheus_dir: Path) -> Iterator[str]:
    """A real ``tablestorm plan --serve-metrics 0`` of a steady day (:func:`schedule_data.steady_day`)
    at :data:`schedule_data.PER_CORE` without headroom, registered as deploy/README.md says: its
    address alone in a file of ``forecast/`` beside the Prometheus config. Yields its target; at
    the end SIGTERM, which must exit 0."""
    schedule = write(inputs / "schedule.json", steady_day())
    capacity = write(inputs / "capacity.json", capacity_doc(PER_CORE))
    with process("plan", "--schedule", str(schedule), "--capacity", str(capacity), "--out", str(inputs / "plan"),
                 "--headroom", "0", "--serve-metrics", "0") as (plan, _summary):
        assert plan.stdout is not None and plan.stderr is not None
        serving = plan.stdout.readline()  # after the plan's summary, the metrics address
        assert serving, plan.stderr.read()
        target = f"127.0.0.1:{json.loads(serving)['port']}"
        (prometheus_dir / "forecast").mkdir(parents=True)
        (prometheus_dir / "forecast" / "plan.json").write_text(json.dumps([{"targets": [target]}]))
        yield target
        stop(plan)


DRAWN_AFTER_S = 20.0
"""Into the 30-second load, the panels are drawn over the run so far (the forecast's and the two
hosts' series all scraped by then): their peaks are checked against the plan's figures."""


@pytest.mark.usefixtures("ray_local")  # 40 s, in CI's default run: the dashboards' acceptance test
def test_every_panel_returns_data_from_a_real_load(tmp_path: Path) -> None:
    """A 30-second load of the four games on two table hosts, and a plan's forecast exporter, both
    scraped by the run's Prometheus: every panel of the Load test, Table hosts and Capacity
    dashboards returns a number, and the forecast panels draw the plan's figures (at p50 and p90:
    the steady day's tables, players and hands/s, the cores its plan needs), two cores present
    (a table host each) and the spare cores those make."""
    if shutil.which("prometheus") is None:
        pytest.skip("the prometheus binary is not installed (Debian: apt-get install prometheus; .ci/run does)")
    scenario = dataclasses.replace(
        from_mapping({
            "name": "panels", "bots": 80, "hosts": 2, "fleets": 2, "duration_s": 30, "clock_seconds": 0.5,
            "seed": 5, "games": [{"game": "7stud"}, {"game": "7stud8"}, {"game": "5stud"}, {"game": "7a5draw"}],
        }),
        think=Distribution("uniform", 0.015, 0.0, 0.03),
    )
    boards = {name: board for name, board in dashboards().items() if name != TOURNAMENTS_BOARD}
    errors: list[str] = []
    test: LoadTest

    def api(path: str, **params: Any) -> Any:
        return test.prometheus_server.api(path, **params)

    checked = Panels(boards, api)
    forecast_up: list[dict[str, Any]] = []

    def on_second(second: int, state: Any) -> None:
        if second < 8:  # Prometheus scrapes from about the 6th second
            return
        try:
            if checked.checks or checked.plan():
                checked.run_now()
                if not forecast_up and time.time() - state.start >= DRAWN_AFTER_S:
                    checked.run_over(state.start, time.time())
                    forecast_up.extend(api("/api/v1/query", query='up{job="forecast"}')["result"])
        except (urllib.error.URLError, RuntimeError) as exc:
            errors.append(f"second {second}: {exc!r}")

    inputs = tmp_path / "inputs"
    inputs.mkdir()
    with forecast_exporter(inputs, tmp_path / "prometheus") as target:
        test = LoadTest(scenario, tmp_path, prometheus=True, stream=io.StringIO(), on_second=on_second)
        summary = test.run().summary
    print(f"\nrun: hands={summary['hands']} errors={summary['errors_total']} api errors={errors[:5]}")
    checked.assert_every_panel_returned()
    # The forecast job labelled the plan's exporter as the dashboards select it.
    assert [(r["metric"], r["value"][1]) for r in forecast_up] == [
        ({"__name__": "up", "cluster": "local", "instance": target, "job": "forecast", "role": "forecast"}, "1"),
    ]
    for panel, quantity in (("Tables: forecast and live", "tables"),
                            ("Seated players: forecast and measured", "seated_players"),
                            ("Hands per second: forecast and measured", "hands_per_s")):
        assert checked.peak(panel, "A") == STEADY_MINUTE[quantity]["p50"], panel
        assert checked.peak(panel, "B") == STEADY_MINUTE[quantity]["p90"], panel
        assert checked.peak(panel, "C") > 0, panel  # the load's tables, seats, hands
    cores = "Table-host cores: needed, present, used"
    assert (checked.peak(cores, "A"), checked.peak(cores, "B"), checked.peak(cores, "C")) == (1, 3, 2)
    assert checked.peak(cores, "D") > 0  # the hosts' CPU
    spare = "Spare cores against the forecast"
    assert (checked.peak(spare, "A"), checked.peak(spare, "B")) == (1, -1)  # 2 present - 1; 2 - 3: short


# ----------------------------------------------------------------------------- the Tournaments dashboard

ENTRANTS = 12
"""The last of them registers and never connects: the clock acts for him once, and from then on
he is away, dealt in and folded at once (TOURN-7)."""
STRUCTURE = fast_structure("7stud", seats=4, levels=60, level_s=1.0, clock_seconds=4.0,
                           payouts=tpb.Payouts(table=[30.0, 18.0, 12.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.5, 3.0, 2.5]))
"""Twelve 4-max entries, eleven paid: the field starts on the bubble, one elimination from the money
at three tables, so hand-for-hand (TOURN-5) begins with the first hands, whatever the cards, and
ends at the first elimination. (A bubble further on is skipped whenever one hand puts two players
out across it, which the cards and the 1-second levels decide: about one tournament in fifteen
with six paid.) The clock (4 s, two scrapes) is what a held hand waits."""


async def holds(prometheus: PrometheusServer, query: str, timeout: float = 60.0) -> list[dict[str, Any]]:
    """The result of ``query`` once it has one. Prometheus tells no one when it has scraped, so
    this asks it again every half second until ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result: list[dict[str, Any]] = (await asyncio.to_thread(prometheus.api, "/api/v1/query", query=query))["result"]
        if result:
            return result
        assert loop.time() < deadline, f"Prometheus never returned {query} in {timeout:g} s"
        await asyncio.sleep(0.5)


async def play(stub: TournamentServiceAsyncStub, tournament_id: str, prometheus: PrometheusServer) -> None:
    """One tournament to its winner through hand-for-hand. There, the bots hold their turns (the
    round's hands wait on the clock), the operator pauses, and play resumes once Prometheus has
    scraped hand-for-hand and the pause."""
    request = tpb.TournamentRequest(tournament_id=tournament_id)
    create = tpb.CreateTournamentRequest(tournament_id=tournament_id, structure=STRUCTURE, seed=1)
    await stub.CreateTournament(create, metadata=operator())
    channels, changed = Channels(), asyncio.Condition()
    players = [Bot(f"p{k}", stub, channels, random.Random(k), changed=changed) for k in range(1, ENTRANTS + 1)]
    for bot in players:
        await bot.register(tournament_id)
    await holds(prometheus, f'tablestorm_tournament_entries{{tournament="{tournament_id}"}} == {ENTRANTS}')
    await stub.Start(request, metadata=operator())
    watching = [asyncio.ensure_future(bot.watch(tournament_id)) for bot in players[:-1]]
    watcher = players[0]
    await until(changed, lambda: bool(watcher.of("hand_for_hand")))  # from the start: see STRUCTURE
    for bot in players:
        bot.acting.clear()
    await stub.Pause(request, metadata=operator())
    await holds(prometheus, f'tablestorm_tournament_hand_for_hand{{tournament="{tournament_id}"}} == 1')
    await holds(prometheus, 'tablestorm_tournament_tournaments{status="paused"} == 1')
    for bot in players:
        bot.acting.set()
    await stub.Resume(request, metadata=operator())
    await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
    standings = await stub.GetStandings(tpb.StandingsRequest(tournament_id=tournament_id, page_size=100))
    assert standings.standings[0].stack == ENTRANTS * STRUCTURE.starting_stack  # TOURN-11: every chip
    await channels.close()


@dataclasses.dataclass
class Stack:
    """Table servers and a tournament server, as processes, and the Prometheus scraping them."""

    prometheus: PrometheusServer
    port: int
    """The tournament server's gRPC port."""
    target: str
    """The tournament server's metrics endpoint, as Prometheus names it (``instance``)."""
    tables: list[subprocess.Popen[str]]


@contextlib.contextmanager
def scraped_tournaments(tmp_path: Path, table_servers: int) -> Iterator[Stack]:
    """``table_servers`` ``tablestorm serve`` processes, a ``tablestorm serve-tournaments`` given
    them, and the ``prometheus`` binary with deploy/prometheus/ scraping all three kinds through
    file_sd (roles ``table_host`` and ``tournament_server``). Once the body is done, every process
    is stopped with SIGTERM and must exit 0; after a failure they are killed."""
    if shutil.which("prometheus") is None:
        pytest.skip("the prometheus binary is not installed (Debian: apt-get install prometheus; .ci/run does)")
    token_file = tmp_path / "operator"
    token_file.write_text(OPERATOR + "\n")
    serve = ("serve", "--port", "0", "--metrics-port", "0", "--drain-seconds", "0")
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(process(*serve)) for _ in range(table_servers)]
        tables = ",".join(f"127.0.0.1:{ports['grpc_port']}" for _, ports in servers)
        tournaments, ports = stack.enter_context(process(
            "serve-tournaments", "--tables", tables, "--port", "0", "--metrics-port", "0",
            "--operator-token-file", str(token_file), "--drain-seconds", "1",
        ))
        prometheus = PrometheusServer(tmp_path)
        stack.callback(prometheus.stop)
        target = f"127.0.0.1:{ports['metrics_port']}"
        write_targets(prometheus.targets, {
            "table_host": [f"127.0.0.1:{server_ports['metrics_port']}" for _, server_ports in servers],
            "tournament_server": [target],
        })
        prometheus.wait_ready()
        yield Stack(prometheus, ports["grpc_port"], target, [server for server, _ in servers])
        stop(tournaments)
        for server, _ in servers:
            stop(server)


@functools.partial(run_async, timeout=300)
async def test_every_tournaments_panel_returns_data_from_a_real_tournament(tmp_path: Path) -> None:
    """Eleven bots and an absent player play a 7stud tournament to its winner on two table
    servers, through hand-for-hand and a pause (see :func:`scraped_tournaments`). Then every
    panel's query runs as Grafana draws it over the run (under All and the first values), each
    must return a number, and the panels the tournament is for must show what happened:
    hand-for-hand, eliminations, levels, the clock."""
    with scraped_tournaments(tmp_path, table_servers=2) as stack:
        prometheus = stack.prometheus
        checked = Panels({TOURNAMENTS_BOARD: dashboards()[TOURNAMENTS_BOARD]}, prometheus.api)
        start = time.time()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub: TournamentServiceAsyncStub = trpc.TournamentServiceStub(channel)
            await play(stub, "panels", prometheus)
        # Scraped to the end, every target: each tournament's eliminations, the hands its
        # director counted against those the table servers dealt.
        await holds(prometheus, 'tablestorm_tournament_tournaments{status="finished"} == 1')
        await holds(prometheus, f"sum(tablestorm_tournament_eliminations_total) == {ENTRANTS - 1}")
        await holds(prometheus, 'sum(tablestorm_tournament_hands_total)'
                                ' == sum(tablestorm_hands_by_kind_total{kind="tournament"})')
        rules = [r for g in prometheus.api("/api/v1/rules")["groups"] for r in g["rules"]]
        stalled = next(r for r in rules if r["name"] == "TournamentStalled")
        assert (stalled["health"], stalled["state"]) == ("ok", "inactive"), stalled  # matched, silent
        assert checked.plan(), checked.found
        await asyncio.to_thread(checked.run_over, start, time.time())
    checked.assert_every_panel_returned()
    assert checked.peak("Tournaments by status") == 1  # finished, at the end
    assert checked.peak("Players left", ref="B") == ENTRANTS  # entries
    assert checked.peak("Tables") >= 2  # three on the bubble, at the start
    assert checked.peak("Level") >= 2
    assert 0 < checked.peak("Time left in the level") <= STRUCTURE.levels[0].duration_s
    assert checked.peak("Hand-for-hand") == 1  # TOURN-5, seen by Prometheus
    assert checked.peak("Eliminations per minute") > 0
    assert checked.peak("Clock decisions per hand") > 0  # the absent player's first turn
    assert 0 <= checked.peak("Longest wait for a hand, in clocks") < generator().STALL_CLOCKS


STALL_CLOCK_S = 0.25
"""The stall test's action clock: TournamentStalled's 30 clocks are 7.5 s."""


@pytest.mark.slow
@functools.partial(run_async, timeout=300)
async def test_tournament_stalled_pages_while_the_only_table_server_is_frozen(tmp_path: Path) -> None:
    """TournamentStalled for real. Eight bots play on one table server; it is frozen (SIGSTOP):
    its hands hang, the tournament server finds it down and has nowhere to rebuild the tables,
    which wait while dealing is allowed. 30 clocks on, Prometheus pages with the tournament's
    labels; the operator pauses, and the alert resolves (a paused tournament's tables may wait)."""
    firing = 'ALERTS{alertname="TournamentStalled", alertstate="firing"}'
    with scraped_tournaments(tmp_path, table_servers=1) as stack:
        prometheus, frozen = stack.prometheus, stack.tables[0]
        structure = fast_structure("7stud", seats=4, levels=1, level_s=600.0, clock_seconds=STALL_CLOCK_S,
                                   starting_stack=100_000)  # one long level: nobody goes out meanwhile
        request = tpb.TournamentRequest(tournament_id="stall")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.port}") as channel:
            stub: TournamentServiceAsyncStub = trpc.TournamentServiceStub(channel)
            await stub.CreateTournament(tpb.CreateTournamentRequest(tournament_id="stall", structure=structure),
                                        metadata=operator())
            channels, changed = Channels(), asyncio.Condition()
            players = [Bot(f"s{k}", stub, channels, random.Random(k), changed=changed) for k in range(1, 9)]
            for bot in players:
                await bot.register("stall")
            await stub.Start(request, metadata=operator())
            watching = [asyncio.ensure_future(bot.watch("stall")) for bot in players]
            await holds(prometheus, "sum(tablestorm_tournament_hands_total) > 0")
            assert not prometheus.api("/api/v1/query", query=firing)["result"]  # dealing: silent
            frozen.send_signal(signal.SIGSTOP)
            try:
                await holds(prometheus, firing, timeout=90)
                [alert] = [a for a in prometheus.api("/api/v1/alerts")["alerts"] if a["state"] == "firing"]
                assert alert["labels"] == {
                    "alertname": "TournamentStalled", "severity": "page", "cluster": "local", "job": "tablestorm",
                    "instance": stack.target, "role": "tournament_server", "tournament": "stall",
                }
                assert float(alert["value"]) > 30 * STALL_CLOCK_S
                assert "a table of tournament stall has finished no hand for" in alert["annotations"]["summary"]
                await stub.Pause(request, metadata=operator())
                await holds(prometheus, f"absent({firing})")
                await holds(prometheus, 'tablestorm_tournament_last_hand_age_seconds{tournament="stall"} == 0')
            finally:
                frozen.send_signal(signal.SIGCONT)
            for task in watching:
                task.cancel()
            await asyncio.gather(*watching, return_exceptions=True)
            await channels.close()
