"""``tablestorm schedule compare``: two runs of a day, B against A, paired replication by replication.

Both files are read and checked before anything is written (not a schedule.json, one without
per-replication values, different replications: one line naming the file and the key, exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tablestorm.sim.inputs import writable

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm schedule compare A.json B.json``: what changed from run A of a day to run B.

    A and B are schedule.json files of tablestorm schedule, best run with the same --seed and
    --replications: each event's draws then depend only on the root seed, the replication and the
    event's name, so an event left as it was is the same in both, and the difference B - A of a
    replication is the change alone. Per minute of the day and per event, the differences of the
    paired replications and their quantiles: compare.json and compare.html in --out. Exit status:
    0 compared; 2 a file is not a schedule.json, has no per-replication values, or the two runs do
    not have the same replications.
    """
    p = sub.add_parser("compare", help="compare two runs of a day (schedule.json), replication by replication",
                       description=register.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A.json", help="the first run's schedule.json (the baseline)")
    p.add_argument("b", metavar="B.json", help="the second run's schedule.json (the what-if)")
    p.add_argument("--out", default="out/compare", help="directory for compare.json and compare.html")


def run(args: argparse.Namespace) -> int:
    """Compare the two runs ``args`` names once both are read and checked; the exit status."""
    from tablestorm.sim.schedule.compare import compare, read_run, write_compare
    from tablestorm.sim.schedule.compare_report import write_compare_html

    out = writable(Path(args.out), "--out", directory=True)
    data = compare(read_run(Path(args.a)), read_run(Path(args.b)))
    path = write_compare(data, out)
    page = write_compare_html(data, out)
    print(json.dumps({"a": data["a"]["file"], "b": data["b"]["file"], "paired": data["paired"],
                      "changed_minutes": data["changed"]["any"], "warnings": data["warnings"]}))
    print(f"report: {page} ({path.name} beside it)", file=sys.stderr)
    return 0
