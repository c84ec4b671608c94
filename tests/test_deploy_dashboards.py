"""deploy/grafana/: the committed dashboards are what the generator writes, and every panel works.

The drift test regenerates the JSON into a temporary directory and compares. The structural tests
hold every dashboard to what makes it importable anywhere (the datasource a variable, the cluster,
host and game variables, unique ids) and every query to the metrics the services export or the
recording rules define. The every-panel test runs a short real load (a LoadTest on a local Ray,
scraped by the ``prometheus`` binary with deploy/prometheus/), then executes every panel's PromQL
and every variable's query through Prometheus's HTTP API, with the variables set to All and to
their first value, and requires a result holding a number: a panel naming a metric the services do
not export, or a label they do not set, fails it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import math
import re
import shutil
import sys
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from test_runtime_metrics import catalogue

from sim.distributions import Distribution
from sim.driver import LoadTest
from sim.scenario import from_mapping

ROOT = Path(__file__).resolve().parent.parent
GRAFANA = ROOT / "deploy" / "grafana"
DASHBOARDS = sorted((GRAFANA / "dashboards").glob("*.json"))
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


# ----------------------------------------------------------------------------- every panel, for real


VARIABLES = ("cluster", "host", "game")


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
    expr: str
    value: str = ""
    """What it returned the first time it held a number (for the report)."""
    last: str = "never ran"


@pytest.mark.slow
@pytest.mark.usefixtures("ray_local")
def test_every_panel_returns_data_from_a_real_load(tmp_path: Path) -> None:
    if shutil.which("prometheus") is None:
        pytest.skip("the prometheus binary is not installed (Debian: apt-get install prometheus; .ci/run does)")
    scenario = dataclasses.replace(
        from_mapping({
            "name": "panels", "bots": 80, "hosts": 2, "fleets": 2, "duration_s": 30, "clock_seconds": 0.5,
            "seed": 5, "games": [{"game": "7stud"}, {"game": "7stud8"}, {"game": "5stud"}, {"game": "7a5draw"}],
        }),
        think=Distribution("uniform", 0.015, 0.0, 0.03),
    )
    boards = dashboards()
    checks: list[Check] = []
    found: dict[tuple[str, str], list[str]] = {}
    """(board, variable) -> the values its query offered."""
    errors: list[str] = []
    test: LoadTest

    def api(path: str, **params: Any) -> Any:
        return test.prometheus_server.api(path, **params)

    def label_values(query: str, chosen: dict[str, str]) -> list[str]:
        match = re.fullmatch(r"label_values\((.*), (\w+)\)", query)
        assert match is not None, query
        selector = substitute(match.group(1), chosen)
        values: list[str] = api(f"/api/v1/label/{match.group(2)}/values", **{"match[]": selector})
        return sorted(values)

    def plan() -> bool:
        """Every panel's queries under All and under the first values, once every variable offers one."""
        for name, board in boards.items():
            named = variables(board)
            every = dict.fromkeys(VARIABLES, ".*")
            first = dict(every)
            for variable in VARIABLES:
                values = label_values(named[variable]["query"], first)
                if not values:
                    return False
                found[(name, variable)] = values
                first[variable] = grafana_regex(values[0])
            for panel in panels(board):
                for target in panel["targets"]:
                    for label, chosen in (("All", every), ("first", first)):
                        checks.append(Check(name, panel["title"], label, substitute(target["expr"], chosen)))
        return True

    def on_second(second: int, state: Any) -> None:
        if second < 8:  # Prometheus scrapes from about the 6th second
            return
        try:
            if not checks and not plan():
                return
            for check in checks:
                if check.value:
                    continue
                result = api("/api/v1/query", query=check.expr)["result"]
                numbers = [float(series["value"][1]) for series in result]
                check.last = json.dumps(result)[:300] if result else "empty"
                if any(not math.isnan(n) for n in numbers):
                    check.value = ", ".join(f"{n:.4g}" for n in numbers[:4]) + (" ..." if len(numbers) > 4 else "")
        except (urllib.error.URLError, RuntimeError) as exc:
            errors.append(f"second {second}: {exc!r}")

    test = LoadTest(scenario, tmp_path, prometheus=True, stream=io.StringIO(), on_second=on_second)
    summary = test.run().summary
    print(f"\nrun: hands={summary['hands']} errors={summary['errors_total']} api errors={errors[:5]}")
    for (board, variable), values in sorted(found.items()):
        print(f"VARIABLE {board} | ${variable} | {values}")
    for check in checks:
        print(f"{'PASS' if check.value else 'FAIL'} [{check.variables}] {check.board} | {check.panel} | "
              f"{check.expr} => {check.value or check.last}")
    assert checks, f"the variables never all had values: {found}, {errors}"
    failed = [f"{c.board} | {c.panel} [{c.variables}]: {c.expr} => {c.last}" for c in checks if not c.value]
    assert not failed, failed
    panel_count = sum(1 for board in boards.values() for _ in panels(board))
    assert len({(c.board, c.panel) for c in checks}) == panel_count
