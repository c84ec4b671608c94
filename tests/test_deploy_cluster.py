"""deploy/kuberay/ and deploy/image/: what can be checked without a cluster or a container engine.

The KubeRay manifests validate against the KubeRay CRDs' OpenAPI schemas (``../shared/kuberay``)
with jsonschema, strictly: a field the schema does not name is an error here, where the API server
would silently drop it. The pieces agree with each other: custom resource names, metrics ports,
pod labels the PodMonitors select and relabel, the reports volume, one image and one Ray version.
Every command the Dockerfile, compose.yaml and the RayJobs run goes through the real argument
parser it will meet (``tablestorm``'s, and Ray's for ``ray start``), and every file they name
exists. The slow test replays the image's build stage without Docker: the same files, the wheel
with the mypyc-compiled engine, installed in a fresh virtualenv, imported and run.
"""

from __future__ import annotations

import contextlib
import copy
import fnmatch
import functools
import importlib.metadata
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from dockerfile_parse import DockerfileParser  # type: ignore[import-untyped]
from support.kuberay import errors

from tablestorm.sim.cli import _build_parser
from tablestorm.sim.cluster.nodes import FLEET_RESOURCE, METRICS_PORT_ENV, TABLE_HOST_RESOURCE
from tablestorm.sim.load.scenario import load
from tablestorm.sim.tournament.structure_file import load_structure

ROOT = Path(__file__).resolve().parent.parent
KUBERAY = ROOT / "deploy" / "kuberay"
IMAGE = ROOT / "deploy" / "image"
GRAFANA = ROOT / "deploy" / "grafana"
PROMETHEUS = ROOT / "deploy" / "prometheus"
WORKDIR = PurePosixPath("/app")
"""The image's working directory: it holds the repository's sim/**/*.yaml at the same paths."""


def manifests(name: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((KUBERAY / name).read_text()) if doc]


def manifest(name: str) -> dict[str, Any]:
    (doc,) = manifests(name)
    return doc


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((IMAGE / "compose.yaml").read_text())
    return data


def dockerfile() -> DockerfileParser:
    return DockerfileParser(path=str(IMAGE / "Dockerfile"))


def build_args() -> dict[str, str]:
    """The Dockerfile's global ARGs (before its first FROM) and their defaults."""
    found: dict[str, str] = {}
    for instruction in dockerfile().structure:
        if instruction["instruction"] == "FROM":
            return found
        if instruction["instruction"] == "ARG":
            name, _, default = instruction["value"].partition("=")
            found[name] = default
    return found


# ----------------------------------------------------------------------------- the CRD schemas


@pytest.mark.parametrize(("name", "kind"), [
    ("raycluster.yaml", "rayclusters"), ("rayjob-load.yaml", "rayjobs"), ("rayjob-tournament.yaml", "rayjobs"),
])
def test_manifest_is_valid_for_its_crd(name: str, kind: str) -> None:
    document = manifest(name)
    assert document["apiVersion"] == "ray.io/v1"
    assert document["kind"] == {"rayclusters": "RayCluster", "rayjobs": "RayJob"}[kind]
    assert errors(kind, document) == []


def test_schema_validation_catches_a_misspelt_field_and_a_wrong_type() -> None:
    cluster = manifest("raycluster.yaml")
    misspelt = copy.deepcopy(cluster)
    misspelt["spec"]["workerGroupSpecs"][0]["rayStartParam"] = misspelt["spec"]["workerGroupSpecs"][0].pop(
        "rayStartParams")
    assert any("rayStartParam" in e for e in errors("rayclusters", misspelt))
    wrong = copy.deepcopy(cluster)
    wrong["spec"]["workerGroupSpecs"][0]["maxReplicas"] = "16"
    assert any(e.startswith("spec.workerGroupSpecs.0.maxReplicas") for e in errors("rayclusters", wrong))
    job = manifest("rayjob-load.yaml")
    job["spec"]["entrypoint"] = ["tablestorm", "load"]
    assert any(e.startswith("spec.entrypoint") for e in errors("rayjobs", job))


# ----------------------------------------------------------------------------- the pieces agree


def groups() -> dict[str, dict[str, Any]]:
    return {g["groupName"]: g for g in manifest("raycluster.yaml")["spec"]["workerGroupSpecs"]}


def container(template: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = template["spec"]["containers"][0]
    return first


def ports(template: dict[str, Any]) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in container(template).get("ports", [])}


def test_head_runs_no_workload_and_serves_ray() -> None:
    head = manifest("raycluster.yaml")["spec"]["headGroupSpec"]
    params = head["rayStartParams"]
    assert params["num-cpus"] == "0"
    assert ports(head["template"]) == {
        "gcs-server": 6379, "dashboard": 8265, "client": 10001, "metrics": int(params["metrics-export-port"]),
    }


def test_worker_groups_offer_the_placement_resources_and_fixed_metrics_ports() -> None:
    expected = {"table-hosts": (TABLE_HOST_RESOURCE, "table_host"), "bot-fleets": (FLEET_RESOURCE, "fleet")}
    assert set(groups()) == set(expected)
    for name, group in groups().items():
        resource, role = expected[name]
        assert json.loads(json.loads(group["rayStartParams"]["resources"])) == {resource: 1}, name
        assert 1 <= group["minReplicas"] <= group["replicas"] <= group["maxReplicas"], name
        template = group["template"]
        assert template["metadata"]["labels"]["tablestorm.io/role"] == role, name
        env = {e["name"]: e["value"] for e in container(template)["env"]}
        assert ports(template) == {
            "metrics": int(group["rayStartParams"]["metrics-export-port"]), "tablestorm": int(env[METRICS_PORT_ENV]),
        }, name
    assert manifest("raycluster.yaml")["spec"]["enableInTreeAutoscaling"] is True


def test_podmonitors_select_the_pods_and_set_the_labels_the_rules_read() -> None:
    monitors = {m["metadata"]["name"]: m for m in manifests("podmonitors.yaml")}
    assert {m["kind"] for m in monitors.values()} == {"PodMonitor"}
    cluster = manifest("raycluster.yaml")
    pods = [cluster["spec"]["headGroupSpec"]["template"], *(g["template"] for g in groups().values())]
    rules = (PROMETHEUS / "rules.yml").read_text()

    def selects(monitor: dict[str, Any], labels: dict[str, str]) -> bool:
        selector = monitor["spec"]["selector"]
        if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
            return False
        return all(labels.get(e["key"]) in e["values"] for e in selector.get("matchExpressions", []))

    for name, port in (("tablestorm", "tablestorm"), ("ray", "metrics")):
        monitor = monitors[name]
        (endpoint,) = monitor["spec"]["podMetricsEndpoints"]
        assert endpoint["port"] == port
        chosen = [pod for pod in pods if selects(monitor, pod["metadata"]["labels"])]
        assert chosen and all(port in ports(pod) for pod in chosen), name
        relabeled = {r["targetLabel"]: r["sourceLabels"] for r in endpoint["relabelings"]}
        assert relabeled["cluster"] == ["__meta_kubernetes_pod_label_ray_io_cluster"], name
    tablestorm = monitors["tablestorm"]["spec"]["podMetricsEndpoints"][0]
    roles = {pod["metadata"]["labels"]["tablestorm.io/role"] for pod in pods
             if selects(monitors["tablestorm"], pod["metadata"]["labels"])}
    assert roles == {"table_host", "fleet"}
    assert {r["targetLabel"]: r["sourceLabels"] for r in tablestorm["relabelings"]}["role"] == [
        "__meta_kubernetes_pod_label_tablestorm_io_role"]
    assert all(f'role="{role}"' in rules for role in roles)


def head_volumes() -> dict[str, str]:
    """Where each claim is mounted on the head: claim name -> mount path."""
    head = manifest("raycluster.yaml")["spec"]["headGroupSpec"]["template"]
    claims = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in head["spec"]["volumes"]}
    mounts = {m["name"]: m["mountPath"] for m in container(head)["volumeMounts"]}
    assert set(claims) == set(mounts)
    return {claims[name]: mounts[name] for name in claims}


def test_rayjobs_run_on_the_cluster_and_write_to_the_reports_volume() -> None:
    cluster = manifest("raycluster.yaml")
    mounted = head_volumes()
    reports = mounted[manifest("reports-pvc.yaml")["metadata"]["name"]]
    for name in ("rayjob-load.yaml", "rayjob-tournament.yaml"):
        job = manifest(name)["spec"]
        assert job["clusterSelector"] == {"ray.io/cluster": cluster["metadata"]["name"]}, name
        out = next(argv for argv in entrypoint_commands(job["entrypoint"]) if argv[0] == "tablestorm")
        assert PurePosixPath(out[out.index("--out") + 1]).is_relative_to(reports), name


def test_the_tournament_job_journals_to_its_own_volume_on_the_head() -> None:
    """The tournament server runs on the head (the driver's node): its journal must be on a
    persistent volume mounted there, not the reports one (a restart reads it back)."""
    claim = manifest("journal-pvc.yaml")
    assert claim["kind"] == "PersistentVolumeClaim" and claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    journals = head_volumes()[claim["metadata"]["name"]]
    job = manifest("rayjob-tournament.yaml")["spec"]
    argv = next(argv for argv in entrypoint_commands(job["entrypoint"]) if argv[0] == "tablestorm")
    assert PurePosixPath(argv[argv.index("--journal") + 1]).is_relative_to(journals)


def images() -> dict[str, str]:
    found = {"compose ray-head": compose()["services"]["ray-head"]["image"]}
    cluster = manifest("raycluster.yaml")["spec"]
    found["head"] = container(cluster["headGroupSpec"]["template"])["image"]
    found |= {name: container(g["template"])["image"] for name, g in groups().items()}
    for name in ("rayjob-load.yaml", "rayjob-tournament.yaml"):
        found[name] = container(manifest(name)["spec"]["submitterPodTemplate"])["image"]
    return found


def test_one_image_and_one_ray_version_everywhere() -> None:
    assert len(set(images().values())) == 1, images()
    services = compose()["services"]
    assert services["ray-worker"]["image"] == services["ray-head"]["image"]
    assert manifest("raycluster.yaml")["spec"]["rayVersion"] == build_args()["RAY_VERSION"]


# ----------------------------------------------------------------------------- commands and files


def entrypoint_commands(entrypoint: str) -> list[list[str]]:
    """A shell entrypoint's commands (``a && b``), each as its argv."""
    return [shlex.split(part) for part in entrypoint.split("&&")]


def commands() -> Iterator[tuple[str, list[str], PurePosixPath]]:
    """(where, argv, working directory) of every command the deploy files run."""
    for name in ("rayjob-load.yaml", "rayjob-tournament.yaml"):
        cwd = WORKDIR
        for argv in entrypoint_commands(manifest(name)["spec"]["entrypoint"]):
            if argv[0] == "cd":
                cwd = PurePosixPath(argv[1])
                continue
            yield name, argv, cwd
    for service, spec in compose()["services"].items():
        if "command" in spec and spec["image"].startswith("tablestorm:"):
            yield f"compose {service}", spec["command"], WORKDIR
    (cmd,) = [i["value"] for i in dockerfile().structure if i["instruction"] == "CMD"]
    yield "Dockerfile CMD", json.loads(cmd), WORKDIR
    for line in (IMAGE / "compose.yaml").read_text().splitlines():  # the header's documented command
        if line.startswith("#") and "tablestorm load" in line:
            yield "compose.yaml header", shlex.split(line.lstrip("# ")), WORKDIR


def in_repo(path: str, cwd: PurePosixPath) -> Path:
    """Where a path the image resolves (from ``cwd``) is in this repository: the image's /app is
    the repository's root for the sim/ files it holds."""
    image_path = cwd / path
    assert image_path.is_relative_to(WORKDIR), f"{image_path}: the image holds data files under {WORKDIR} only"
    return ROOT / image_path.relative_to(WORKDIR)


RAY_PARSE = """
import click, json, sys
from ray.scripts.scripts import cli
for argv in json.load(sys.stdin):
    try:
        context = cli.commands[argv[0]].make_context("ray " + argv[0], argv[1:])
        print(json.dumps({"params": context.params}, default=str))
    except (KeyError, click.ClickException) as exc:
        print(json.dumps({"error": str(exc)}))
"""


@functools.cache
def ray_parses() -> dict[tuple[str, ...], dict[str, Any]]:
    """Every ``ray SUBCOMMAND ...`` the deploy files run, through Ray's own click parser, in one
    subprocess: importing Ray here would do so before :mod:`tablestorm.sim.cluster.connection` pins a local
    Ray to loopback."""
    runs = [argv[1:] for _, argv, _ in commands() if argv[0] == "ray"]
    done = subprocess.run([sys.executable, "-c", RAY_PARSE], input=json.dumps(runs),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {tuple(argv): json.loads(line) for argv, line in zip(runs, done.stdout.splitlines(), strict=True)}


def parse_ray(argv: list[str]) -> dict[str, Any]:
    parsed = ray_parses()[tuple(argv)]
    assert "error" not in parsed, f"ray {shlex.join(argv)}: {parsed['error']}"
    params: dict[str, Any] = parsed["params"]
    return params


def parse_tablestorm(argv: list[str]) -> Any:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            return _build_parser().parse_args(argv)
        except SystemExit as exc:
            if exc.code == 0:  # --help
                return None
            raise AssertionError(f"tablestorm {shlex.join(argv)}: {stderr.getvalue().strip()}") from exc


@pytest.mark.parametrize(("where", "argv", "cwd"), list(commands()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_is_one_the_cli_accepts(where: str, argv: list[str], cwd: PurePosixPath) -> None:
    program, *args = argv
    if program == "ray":
        resources = parse_ray(args).get("resources")
        if resources and resources != "{}":
            assert set(json.loads(resources)) == {TABLE_HOST_RESOURCE, FLEET_RESOURCE}, where
        return
    assert program == "tablestorm", (where, argv)
    parsed = parse_tablestorm(args)
    if args and args[0] == "load":
        assert parsed.address == "auto" or where == "Dockerfile CMD", f"{where}: joins the cluster it runs on"
        scenario = in_repo(parsed.scenario, cwd)
        assert scenario.is_file(), f"{where}: {scenario} is not in the image"
        load(scenario)
    if args and args[0] == "tournament":
        assert parsed.address == "auto", f"{where}: joins the cluster it runs on"
        structure = in_repo(parsed.structure, cwd)
        assert structure.is_file(), f"{where}: {structure} is not in the image"
        load_structure(structure)


def test_every_file_the_dockerfile_copies_exists_and_nothing_built_leaks_in() -> None:
    ignored = [line.strip() for line in (IMAGE / "Dockerfile.dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    copies = [i["value"].split() for i in dockerfile().structure if i["instruction"] == "COPY"]
    assert copies
    for words in copies:
        if any(w.startswith("--from=") for w in words):
            continue
        *sources, _destination = [w for w in words if not w.startswith("--")]
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
    for built in ("services/engine/_compiled.json", "services/engine/hand.cpython-311-x86_64-linux-gnu.so",
                  ".venv", "out", "sim/__pycache__"):
        # Docker's `**/` matches no directory too.
        assert any(fnmatch.fnmatch(built, p) or fnmatch.fnmatch(built, p.removeprefix("**/")) for p in ignored), built
    stages = [i["value"] for i in dockerfile().structure if i["instruction"] == "FROM"]
    assert [s.split()[-1] for s in stages] == ["build", "runtime"]
    runtime = (IMAGE / "Dockerfile").read_text().split(" AS runtime", 1)[1]
    assert "gcc" not in runtime and "--no-index" in runtime, "the runtime stage compiles and fetches nothing"


def test_compose_stack_wires_its_ports_and_files() -> None:
    services = compose()["services"]
    assert set(services) == {"ray-head", "ray-worker", "prometheus", "grafana"}
    assert (ROOT / services["ray-head"]["build"]["dockerfile"]).resolve() == IMAGE / "Dockerfile"
    assert (IMAGE / services["ray-head"]["build"]["context"]).resolve() == ROOT

    def flags(command: list[str]) -> dict[str, str]:
        return dict(arg.split("=", 1) for arg in command if arg.startswith("--") and "=" in arg)

    def published(service: str) -> dict[int, int]:
        return {int(c): int(h) for h, c in (p.split(":") for p in services[service].get("ports", []))}

    head = flags(services["ray-head"]["command"])
    head_ports = ports(manifest("raycluster.yaml")["spec"]["headGroupSpec"]["template"])
    assert published("ray-head") == {int(head["--dashboard-port"]): 8265, int(head["--ray-client-server-port"]): 10001}
    assert {int(head["--dashboard-port"]), int(head["--ray-client-server-port"]), int(head["--port"])} == {
        head_ports["dashboard"], head_ports["client"], head_ports["gcs-server"]}
    assert flags(services["ray-worker"]["command"])["--address"] == f"ray-head:{head['--port']}"

    prometheus = flags(services["prometheus"]["command"])
    prometheus_port = int(prometheus["--web.listen-address"].rsplit(":", 1)[1])
    assert published("prometheus") == {prometheus_port: prometheus_port}
    datasources = GRAFANA / "provisioning" / "datasources" / "prometheus.yaml"
    (source,) = yaml.safe_load(datasources.read_text())["datasources"]
    assert source["url"] == f"http://prometheus:{prometheus_port}"
    config_dir = PurePosixPath(prometheus["--config.file"]).parent
    mounts = {m.split(":")[1]: m.split(":")[0] for m in services["prometheus"]["volumes"]}
    config = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text())
    for name in ("prometheus.yml", *config["rule_files"]):
        assert (IMAGE / mounts[str(config_dir / name)]).resolve() == PROMETHEUS / name
    file_sd = {job["job_name"]: PurePosixPath(job["file_sd_configs"][0]["files"][0]).parent
               for job in config["scrape_configs"]}
    assert mounts[str(config_dir / file_sd["tablestorm"])] == "targets"
    assert mounts[str(config_dir / file_sd["forecast"])] == "forecast"
    assert mounts[str(config_dir / file_sd["ray"])] == "ray-tmp" and mounts["/tmp/ray"] == "ray-tmp"
    head_mounts = {m.split(":")[1]: m.split(":")[0] for m in services["ray-head"]["volumes"]}
    assert head_mounts["/tmp/ray"] == "ray-tmp"
    (targets_dir,) = [path for path, volume in head_mounts.items() if volume == "targets"]
    # tablestorm load --out OUT writes OUT/prometheus/targets/tablestorm.json.
    assert targets_dir.endswith("/prometheus/targets") and f"--out {targets_dir.removesuffix('/prometheus/targets')}" \
        in (IMAGE / "compose.yaml").read_text()
    assert targets_dir in (IMAGE / "Dockerfile").read_text(), "the image creates it, owned by the user runs write as"
    (forecast_dir,) = [path for path, volume in head_mounts.items() if volume == "forecast"]
    assert forecast_dir in (IMAGE / "Dockerfile").read_text(), "the image creates it, owned by the user runs write as"

    grafana = services["grafana"]
    (provider,) = yaml.safe_load((GRAFANA / "provisioning" / "dashboards" / "tablestorm.yaml").read_text())["providers"]
    grafana_mounts = {m.split(":")[1]: (IMAGE / m.split(":")[0]).resolve() for m in grafana["volumes"]}
    assert grafana_mounts[provider["options"]["path"]] == GRAFANA / "dashboards"
    assert grafana_mounts["/etc/grafana/provisioning"] == GRAFANA / "provisioning"
    sdk = importlib.metadata.version("grafana-foundation-sdk").split("!")[-1]
    assert grafana["image"].split(":")[1].rsplit(".", 1)[0] == sdk.rsplit(".", 1)[0], (
        "Grafana runs the version the dashboards' SDK targets")


# ----------------------------------------------------------------------------- the image's build stage


@pytest.mark.slow
def test_the_build_stage_makes_a_wheel_whose_compiled_engine_imports(tmp_path: Path) -> None:
    """What the Dockerfile's build and runtime stages do, without Docker: the files its COPY lines
    name (less the .dockerignore'd), ``pip wheel`` (mypyc compiles the engine), then the wheel
    installed in a fresh virtualenv, imported from elsewhere: the engine's modules load compiled."""
    context = tmp_path / "src"
    ignore = shutil.ignore_patterns("*.so", "_compiled.json", "__pycache__", "*.egg-info", "build")
    for words in (i["value"].split() for i in dockerfile().structure if i["instruction"] == "COPY"):
        if any(w.startswith("--from=") for w in words):
            continue
        *sources, _ = [w for w in words if not w.startswith("--")]
        for source in sources:
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, context / source, ignore=ignore)
            else:
                context.mkdir(exist_ok=True)
                shutil.copy(ROOT / source, context / source)
    wheels, venv = tmp_path / "wheels", tmp_path / "venv"
    pip = [sys.executable, "-m", "pip"]
    env = {k: v for k, v in os.environ.items() if k != "TABLESTORM_COMPILE"}
    done = subprocess.run([*pip, "wheel", "-q", "--no-deps", "--wheel-dir", str(wheels), str(context)],
                          capture_output=True, text=True, timeout=1200, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = wheels.glob("tablestorm-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel), "mypy_extensions"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    probe = ("import tablestorm.services.engine as e, tablestorm.services.engine.hand as h, "
             "tablestorm.services.engine.evaluation as v;"
             "print(h.__file__); print(v.__file__)")
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert all(line.endswith(".so") for line in done.stdout.split()), done.stdout
    done = subprocess.run([str(venv / "bin" / "tablestorm"), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "load" in done.stdout, done.stderr
    yamls = {p.relative_to(context) for p in (context / "sim").rglob("*.yaml")}
    assert yamls and Path("sim/scenarios/smoke.yaml") in yamls, "the runtime stage's /app"
