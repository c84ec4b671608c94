"""What ``tablestorm tournament`` writes, in either mode: ``tournament.json``, ``eliminations.csv``
and ``tournament.html``.

The document is the director's record (:class:`~.summary.TournamentResult`, built alike by both
drivers) with the run around it: the mode, whether it finished or was interrupted, the field it
assumed, the run's metadata (:func:`tablestorm.sim.reporting.meta.run_metadata`) and, for a live
run, what only a live run measures. The CSV and the page are read off the document alone.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablestorm.sim.tournament.report import render_tournament_html
from tablestorm.sim.tournament.summary import TournamentResult

__all__ = ["ELIMINATION_COLUMNS", "tournament_document", "write_outputs"]

ELIMINATION_COLUMNS = ("t", "player", "entry", "table", "place", "prize")
"""``eliminations.csv``: one row per elimination, in the order they happened."""


def tournament_document(
    result: TournamentResult,
    *,
    mode: str,
    finished: bool,
    interrupted: bool,
    run: Mapping[str, Any],
    live: Mapping[str, Any] | None = None,
    field: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``tournament.json``: ``mode`` is ``accelerated`` or ``live``; ``live`` the live run's own
    measurements (None for an accelerated run); ``field`` the field the run assumed (the entrants,
    those registering late, the rates of :class:`~tablestorm.sim.tournament.field.FieldRates`), None
    when a caller does not know it."""
    return {
        **result.to_dict(), "mode": mode, "finished": finished, "interrupted": interrupted,
        "live": None if live is None else dict(live), "field": None if field is None else dict(field),
        "run": dict(run),
    }


def write_outputs(out: Path, document: Mapping[str, Any]) -> dict[str, Path]:
    """Write the three files into ``out`` (created); returns their paths by kind."""
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": out / "tournament.json", "csv": out / "eliminations.csv", "html": out / "tournament.html"}
    files["json"].write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    with files["csv"].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=ELIMINATION_COLUMNS)
        writer.writeheader()
        writer.writerows(document["eliminations"])
    files["html"].write_text(render_tournament_html(document), encoding="utf-8")
    return files
