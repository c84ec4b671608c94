"""Soak: hours of load with faults, watching for what short runs never show (leaks, drift, lost chips).

    .venv/bin/python benchmarks/soak.py [--bots 2000] [--minutes 30] [--kill-every 5] [--out out/soak]

A `tablestorm load` run of every game at 1 s think (``sim/scenarios/capacity-1s-think.yaml``) for
``--minutes``, with a table host killed every ``--kill-every`` minutes (``kill-host@...`` chaos) and
replaced by a new one, as a platform restarts a crashed server (its tables are rebuilt there from
the ledger, so the survivors keep a steady load and their memory can be compared over time). The
kills spare ``host-0``: it serves from the first minute to the last, the host whose memory the
verdict judges, while every kill hits one of the others (the replacement of the last). Each
minute the resident memory (RSS) of every host and fleet is sampled and the minute's p99 round trip
recorded. The verdict, checked at the end:

- memory growth after the first 5 minutes (the warm-up: tables, hand histories and caches filling)
  under 5 % for every host and fleet alive from then to the end;
- no chip lost (chips conserved by the ledger, across every kill);
- no protocol violation.

Writes ``soak.json`` (the samples and the verdict), ``soak.html`` (RSS and p99 per minute, through
the shared report layer) and the load run's own report under ``load/``; the last line printed is one
JSON object. Real time, not simulated: 30 minutes takes 30 minutes.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tablestorm.sim.load.chaos import ChaosEvent  # noqa: E402
from tablestorm.sim.load.driver import LoadTest, RunState  # noqa: E402
from tablestorm.sim.load.scenario import load  # noqa: E402
from tablestorm.sim.reporting import html, plots, style  # noqa: E402
from tablestorm.sim.reporting.meta import run_metadata  # noqa: E402

WARM_UP_MINUTES = 5
GROWTH_LIMIT = 0.05
SAMPLE_TIMEOUT = 10.0
SPARED = "host-0"
"""The host no kill picks: alive throughout, so its memory is judged from the warm-up to the end."""


def _sample(state: RunState) -> dict[str, int]:
    """Every live host's and fleet's RSS in bytes now (those that answer within the timeout)."""
    import ray

    actors = {**state.deployment.hosts, **state.deployment.fleets}
    refs = {name: handle.resident_bytes.remote() for name, handle in actors.items()}
    ready, _ = ray.wait(list(refs.values()), num_returns=len(refs), timeout=SAMPLE_TIMEOUT)
    rss = {}
    for name, ref in refs.items():
        if ref in ready:
            try:
                rss[name] = int(ray.get(ref))
            except ray.exceptions.RayActorError:
                continue  # killed this minute: its replacement shows up next time
    return rss


def _reference(samples: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The sample at the end of the warm-up, that growth is measured from (None: the run was shorter)."""
    return next((s for s in samples if s["minute"] >= WARM_UP_MINUTES), None)


def _growth(samples: list[dict[str, Any]]) -> dict[str, float]:
    """Each actor's RSS growth from the end of the warm-up to the last sample it gave."""
    start = _reference(samples)
    if start is None:
        return {}
    growth = {}
    for name, first in start["rss"].items():
        last = [s["rss"][name] for s in samples if name in s["rss"]][-1]
        if samples[-1]["rss"].get(name) is not None:  # alive to the end: comparable
            growth[name] = round((last - first) / first, 4)
    return growth


def _percent_growth(samples: list[dict[str, Any]], name: str) -> list[float]:
    """``name``'s RSS each minute as a change from the end of the warm-up, in percent (none before)."""
    reference = _reference(samples)
    assert reference is not None, "judged actors have a reference sample"
    start = reference["rss"][name]
    return [
        100 * (s["rss"][name] / start - 1) if s["minute"] >= WARM_UP_MINUTES and name in s["rss"] else float("nan")
        for s in samples
    ]


def soak_page(result: dict[str, Any]) -> str:
    """``soak.html``: RSS, growth and p99 per minute, and the verdict (the shared report layer)."""
    samples = result["samples"]
    minutes = [s["minute"] for s in samples]
    names = sorted({n for s in samples for n in s["rss"]})
    kills = [plots.Mark(k["at_s"] / 60, f"kill {k['host']}") for k in result["kills"]]
    rss_title = "Resident memory per host and fleet"
    rss = plots.lines(
        minutes,
        [plots.Series(n, [s["rss"].get(n, float("nan")) / 2**20 for s in samples]) for n in names],
        title=rss_title, xlabel="minute", ylabel="RSS (MiB)", vlines=kills,
    )
    growth_title = "Growth of the hosts and fleets judged (alive from the warm-up to the end)"
    growth = plots.lines(
        minutes,
        [plots.Series(name, _percent_growth(samples, name)) for name in sorted(result["growth"])],
        title=growth_title, xlabel="minute", ylabel=f"RSS growth since minute {WARM_UP_MINUTES} (%)",
        from_zero=False, hlines=[plots.Mark(100 * GROWTH_LIMIT, f"limit {GROWTH_LIMIT:.0%}", style.RED)], vlines=kills,
    )
    p99_title = "p99 action round trip per minute"
    p99 = plots.lines(
        minutes, [plots.Series("p99 round trip", [s["p99_ms"] for s in samples])],
        title=p99_title, xlabel="minute", ylabel="ms",
    )
    verdict = result["verdict"]
    badge = html.verdict([{"ok": ok} for ok in verdict.values()])
    return html.page(
        f"tablestorm soak: {result['bots']} bots, {result['minutes']} min", result["run"]["command_line"], badge, [
            html.cards([
                html.card("max RSS growth", 100 * max(result["growth"].values(), default=0.0), "%"),
                html.card("chips conserved", result["chips_conserved"]),
                html.card("protocol violations", result["protocol_violations"]),
                html.card("hosts killed", len(result["kills"])),
            ]),
            html.section("Over time", html.figure(rss_title, rss) + html.figure(growth_title, growth)
                         + html.figure(p99_title, p99), "charts"),
            html.section("Verdict", html.key_values("check", verdict)),
        ],
        f"Growth is measured from minute {WARM_UP_MINUTES} (the warm-up) to the end, for every actor alive "
        f"throughout; the kills spare {SPARED}, and the killed hosts are replaced, their tables rebuilt "
        "from the ledger.",
    )


def soak_result(
    bots: int, minutes: float, command: list[str], started: float, samples: list[dict[str, Any]],
    summary: dict[str, Any],
) -> dict[str, Any]:
    """``soak.json``: the samples, the load run's summary figures, the growth and the verdict."""
    growth = _growth(samples)
    return {
        "bots": bots,
        "minutes": minutes,
        "run": run_metadata(command, started),
        "samples": samples,
        "kills": summary["recoveries"],
        "growth": growth,
        "chips_conserved": summary["chips_conserved"],
        "protocol_violations": summary["protocol_violations"],
        "errors": summary["errors"],
        "hands": summary["hands"],
        "actions": summary["actions"],
        "verdict": {
            f"RSS growth after minute {WARM_UP_MINUTES} < {GROWTH_LIMIT:.0%}": bool(growth)
            and max(growth.values()) < GROWTH_LIMIT,
            "chips conserved": summary["chips_conserved"] is True,
            "no protocol violation": summary["protocol_violations"] == 0,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--kill-every", type=float, default=5.0, help="minutes between host kills")
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--scenario", default=str(ROOT / "sim/scenarios/capacity-1s-think.yaml"))
    parser.add_argument("--out", type=Path, default=ROOT / "out/soak")
    args = parser.parse_args(argv)
    if args.hosts < 2:
        parser.error(f"--hosts: at least 2 (host-0 is spared, the kills hit the others), got {args.hosts}")
    duration = args.minutes * 60
    scenario = dataclasses.replace(
        load(args.scenario), name="soak", bots=args.bots, stages=(), duration_s=duration, hosts=args.hosts,
        thresholds=("chips_conserved==true", "protocol_violations==0"),
    )
    kills = tuple(
        ChaosEvent("kill-host", minute * 60)
        for minute in range(int(args.kill_every), int(args.minutes), max(1, int(args.kill_every)))
    )
    samples: list[dict[str, Any]] = []
    started = time.time()
    command = ["benchmarks/soak.py", *(argv or sys.argv[1:])]

    def on_second(second: int, state: RunState) -> None:
        if second % 60 == 59:  # the end of each minute
            window = state.stats.window(second - 59, second + 1)
            p99 = window.latency.percentile(99)
            samples.append({
                "minute": (second + 1) // 60,
                "rss": _sample(state),
                "p99_ms": None if p99 is None else round(p99 * 1000, 3),
                "bots_online": state.bots_online,
                "protocol_violations": state.stats.protocol_violations,
            })
            print(f"soak: minute {samples[-1]['minute']}: {len(samples[-1]['rss'])} actors, p99 "
                  f"{samples[-1]['p99_ms']} ms, bots {state.bots_online}", file=sys.stderr, flush=True)

    test = LoadTest(scenario, args.out / "load", chaos=kills, stream=io.StringIO(), on_second=on_second,
                    replace_dead_hosts=True, spared_hosts=(SPARED,),
                    command=command)
    summary = test.run().summary
    result = soak_result(args.bots, args.minutes, command, started, samples, summary)
    growth = result["growth"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "soak.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "soak.html").write_text(soak_page(result), encoding="utf-8")
    print(json.dumps({
        "bots": args.bots, "minutes": args.minutes, "max_growth": max(growth.values(), default=None),
        "chips_conserved": result["chips_conserved"], "protocol_violations": result["protocol_violations"],
        "kills": len(result["kills"]), "ok": all(result["verdict"].values()),
    }))
    return 0 if all(result["verdict"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
