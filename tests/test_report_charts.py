"""The charts of every kind of report, read back from the page: what a reader checks by eye, checked
by machine. One legend per chart, each series keyed once; whole-number ticks where the counts are
whole; a day's charts over the hours that have demand; each game in its one colour and by its name,
in every report that shows it."""

from __future__ import annotations

import re

import pytest
from support.charts import figures, legend, legends, line_colours, svgs, texts, tick_labels, title
from support.reports import REPORTS

from tablestorm.services.engine.variants import VARIANTS
from tablestorm.sim.reporting.style import BLUE, GAME_COLOURS, game_colour, game_name


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each kind's report.html, built once for the module."""
    out = tmp_path_factory.mktemp("reports")
    return {kind: build(out / kind).read_text(encoding="utf-8") for kind, build in REPORTS.items()}


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_every_chart_keys_each_series_once(kind: str, pages: dict[str, str]) -> None:
    """At most one legend per chart, in the SVG, and no key beside it in the caption: each label
    is drawn once in the whole figure (the schedule's and plan's charts had two legends)."""
    charts = figures(pages[kind])
    assert charts and len(charts) == len(svgs(pages[kind]))
    for caption, svg in charts:
        assert title(svg) and legends(svg) <= 1, caption
        for label, _ in legend(svg):
            assert texts(svg).count(label) == 1 and label not in caption, (caption, label)


def test_the_plan_keys_its_cores_by_dimension(pages: dict[str, str]) -> None:
    plan = dict(figures(pages["plan"]))
    assert [label for label, _ in legend(plan["Cores over the day, and what each dimension alone needs"])] == [
        "cores needed (with 30% headroom)", "hands/s alone (before headroom)", "actions/s alone (before headroom)",
        "seated players alone (before headroom)", "Play streams alone (before headroom)",
    ]


def _whole(labels: list[str]) -> bool:
    return bool(labels) and all(re.fullmatch(r"−?[\d,]+", label) for label in labels)


def test_counts_are_ticked_on_whole_numbers(pages: dict[str, str]) -> None:
    """Nodes, players and tables have no fractions: their axes tick on whole numbers only (plan.html
    ticked nodes at 0.2, 0.4, ...)."""
    charts = {caption: svg for kind in ("plan", "tournament", "load") for caption, svg in figures(pages[kind])}
    for caption in ("Nodes over the day", "Players left", "Tables open", "Bots online"):
        assert _whole(tick_labels(charts[caption], "y")), (caption, tick_labels(charts[caption], "y"))


def test_a_day_is_charted_over_its_busy_hours_on_a_clock(pages: dict[str, str]) -> None:
    """The constructed day's events run from 12:00 to about 12:41: the plan's and schedule's charts
    show that hour, ticked as times of day, not a spike on an axis of 0 to 25 hours."""
    for kind in ("plan", "schedule"):
        for caption, svg in figures(pages[kind]):
            ticks = tick_labels(svg, "x")
            assert all(re.fullmatch(r"1[23]:[0-5]\d", t) for t in ticks), (kind, caption, ticks)
            assert ticks[0] == "12:00", (kind, caption, ticks)


def test_the_palette_gives_every_game_its_own_colour() -> None:
    assert set(GAME_COLOURS) == set(VARIANTS)
    assert len(set(GAME_COLOURS.values())) == len(VARIANTS) and BLUE not in GAME_COLOURS.values()
    assert [game_name(code) for code in VARIANTS] == [v.name for v in VARIANTS.values()]
    assert (game_name("9draw"), game_colour("9draw")) == ("9draw", "#64748b")  # another version's game


def test_a_game_has_one_colour_and_its_name_in_every_report(pages: dict[str, str]) -> None:
    """Seven Card Stud is the same colour in the schedule's demand charts, the tournament's charts
    and the load report's table, and every report names the games (no ``7stud``)."""
    for caption, svg in figures(pages["schedule"]):
        if caption.startswith("Events"):
            continue
        keyed = dict(legend(svg))
        for code in ("7stud", "7a5draw", "5stud"):
            assert keyed[f"{game_name(code)} (p50)"] == GAME_COLOURS[code], caption
    stud = GAME_COLOURS["7stud"]
    tournament = {caption: svg for caption, svg in figures(pages["tournament"])}
    assert line_colours(tournament["Players left"]) == line_colours(tournament["Tables open"]) == {stud}
    assert f'<span class="swatch" style="background:{stud}"></span>Seven Card Stud</td>' in pages["load"]
    assert "Seven Card Stud · accelerated" in pages["tournament"]
    for kind in ("schedule", "tournament", "load"):
        shown = re.sub(r"<svg .*?</svg>", "", pages[kind], flags=re.S)
        assert not re.search(r">\s*(7stud8?|5stud|7a5draw)\b", shown), kind
