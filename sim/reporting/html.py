"""The HTML of every report tablestorm writes: one self-contained page, no scripts, nothing fetched.

`tablestorm load`, `tournament`, `schedule`, `capacity` and `plan` all build their report.html
from these pieces (cards, tables, figures, banners, the page shell and its CSS), so every report
reads the same and can be attached to a ticket or opened from an artifact store years later.
Plots come from :mod:`tablestorm.sim.reporting.plots` (inline SVG); values are escaped here, once.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from tablestorm.sim.reporting.style import game_colour, game_name

CSS: Final = """
:root { --ink: #0f172a; --muted: #64748b; --line: #e2e8f0; --bg: #f8fafc; --ok: #15803d; --bad: #b91c1c; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 28px 24px 48px; }
header { display: flex; align-items: center; justify-content: space-between; gap: 16px; flex-wrap: wrap; }
h1 { font-size: 22px; margin: 0; letter-spacing: -0.01em; }
h2 { font-size: 15px; margin: 28px 0 10px; color: var(--ink); }
.meta { color: var(--muted); margin-top: 4px; }
.verdict { font-weight: 700; padding: 6px 14px; border-radius: 999px; font-size: 13px;
  letter-spacing: .04em; }
.pass { background: #dcfce7; color: var(--ok); } .fail { background: #fee2e2; color: var(--bad); }
.none { background: #e2e8f0; color: var(--muted); } .caution { background: #fef3c7; color: #92400e; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px;
  margin-top: 20px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.card .v { font-size: 22px; font-weight: 650; margin-top: 2px; font-variant-numeric: tabular-nums; }
.card .v small { font-size: 13px; color: var(--muted); font-weight: 500; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 14px; }
figure { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 10px;
  padding: 10px 12px 6px; }
figcaption { font-weight: 600; font-size: 13px; margin-bottom: 4px; }
svg { width: 100%; height: auto; display: block; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px;
  vertical-align: -1px; }
.empty { color: var(--muted); padding: 40px 0; text-align: center; }
.tables { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 14px;
  align-items: start; }
.table { min-width: 0; overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 10px; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 7px 12px; border-bottom: 1px solid var(--line); }
th { background: #f1f5f9; font-size: 12px; color: #334155; text-transform: uppercase; letter-spacing: .04em; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td { overflow-wrap: anywhere; } .pairs td.n { white-space: normal; }
tr:last-child td { border-bottom: none; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.badge { font-size: 11px; font-weight: 700; padding: 2px 8px; border-radius: 999px; }
footer { color: var(--muted); font-size: 12px; margin-top: 28px; }
.banner { margin-top: 16px; padding: 10px 14px; border-radius: 10px; border: 1px solid; }
.banner.warn { background: #fffbeb; border-color: #fcd34d; color: #92400e; }
.banner.stop { background: #fef2f2; border-color: #fca5a5; color: var(--bad); }
figure svg text { font-family: inherit; }
"""



NUMERIC: Final = ' class="n"'
PASS_BADGE: Final = '<span class="badge pass">PASS</span>'
FAIL_BADGE: Final = '<span class="badge fail">FAIL</span>'
INTERRUPTED: Final = '<span class="verdict caution">INTERRUPTED</span>'
"""The header's badge for a run a signal stopped early: what it shows is partial, so it is no pass
(a failure it found still shows as one)."""
IMPLAUSIBLE_BADGE: Final = '<span class="verdict caution">IMPLAUSIBLE</span>'
"""Ran and conserved its chips, but some of what it played does not look like real play (a banner says what)."""


def escape(text: object) -> str:
    return html.escape(str(text), quote=True)


def fmt(value: Any, unit: str = "", digits: int = 3) -> str:
    """A table value: thousands separated, up to ``digits`` decimals, booleans as yes/no, unknown as
    a dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        text = f"{value:,}"
    elif isinstance(value, float):
        text = f"{value:,.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:,.0f}"
    else:
        text = str(value)
    return escape(text + (f" {unit}" if unit else ""))


def card(label: str, value: Any, unit: str = "", digits: int = 1) -> str:
    unit_html = f" <small>{escape(unit)}</small>" if unit and value is not None else ""
    return (
        f'<div class="card"><div class="k">{escape(label)}</div>'
        f'<div class="v">{fmt(value, digits=digits)}{unit_html}</div></div>'
    )


def cards(items: Iterable[str]) -> str:
    return f'<section class="cards">{"".join(items)}</section>'


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric_from: int = 1, *, pairs: bool = False) -> str:
    """A table of already escaped cells; columns from ``numeric_from`` on are right-aligned and kept
    on one line, but for ``pairs`` (a label and its value: a path, a command line), whose values
    wrap. Text wraps, within a word if it must, so a table fits its place; one that still does not
    scrolls inside its box rather than spill over the page."""
    head = "".join(f"<th{NUMERIC if i >= numeric_from else ''}>{escape(h)}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{NUMERIC if i >= numeric_from else ''}>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    kind = ' class="pairs"' if pairs else ""
    return f'<div class="table"><table{kind}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def key_values(title: str, values: Mapping[str, Any]) -> str:
    """A two-column table: a label and its formatted value per row."""
    return table([title, ""], ([escape(k), fmt(v)] for k, v in values.items()), pairs=True)


def run_table(run: Mapping[str, Any]) -> str:
    """"Where and how it ran": a run's metadata block (:func:`tablestorm.sim.reporting.meta.run_metadata`)
    as a table, its unknown values left out; empty without any."""
    machine = run.get("machine", {})
    rows = [[escape(k), fmt(v)] for k, v in (
        ("tablestorm", run.get("tablestorm_version")),
        ("command", run.get("command_line")),
        ("started", run.get("started_at")),
        ("machine", machine.get("hostname")),
        ("cpu", machine.get("cpu_model")),
        ("cores", machine.get("cores")),
        ("python", machine.get("python")),
        ("ray", machine.get("ray")),
        ("platform", machine.get("platform")),
    ) if v is not None]
    return table(["where and how it ran", ""], rows, pairs=True) if rows else ""


def figure(caption: str, svg: str) -> str:
    """A chart (:mod:`tablestorm.sim.reporting.plots`, which draws its legend) under its caption."""
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}</figure>"


def game(code: str) -> str:
    """A game as a report names it: its colour's swatch (the charts') and its name."""
    return f'<span class="swatch" style="background:{game_colour(code)}"></span>{escape(game_name(code))}'


def empty(caption: str, message: str) -> str:
    return figure(caption, f'<div class="empty">{escape(message)}</div>')


def note(text: str) -> str:
    """A quiet line of context: how to read what follows."""
    return f'<p class="meta">{escape(text)}</p>'


def banner(text: str, kind: str = "warn") -> str:
    """A line above the numbers that a reader must not miss (``warn`` or ``stop``)."""
    return f'<div class="banner {kind}">{escape(text)}</div>'


def verdict(thresholds: Sequence[Mapping[str, Any]], *, interrupted: bool = False) -> str:
    """PASSED / FAILED (n of m thresholds) / NO THRESHOLDS, as a badge; :data:`INTERRUPTED` in place
    of the first or the last for a run a signal stopped early."""
    failed = sum(not t["ok"] for t in thresholds)
    if failed:
        return f'<span class="verdict fail">FAILED · {failed} of {len(thresholds)} thresholds</span>'
    if interrupted:
        return INTERRUPTED
    if not thresholds:
        return '<span class="verdict none">NO THRESHOLDS</span>'
    return '<span class="verdict pass">PASSED</span>'


def section(title: str, body: str, kind: str = "") -> str:
    """A titled part of the page; ``kind`` is ``charts`` or ``tables`` for a grid of those."""
    inner = f'<section class="{kind}">{body}</section>' if kind else body
    return f"<h2>{escape(title)}</h2>{inner}"


def page(title: str, meta: str, badge: str, body: Iterable[str], footer: str = "") -> str:
    """The whole document: header (title, one line of context, a badge), then ``body`` in order."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{CSS}</style></head>
<body><main>
<header><div><h1>{escape(title)}</h1><div class="meta">{escape(meta)}</div></div>{badge}</header>
{"".join(body)}
<footer>{footer}</footer>
</main></body></html>
"""
