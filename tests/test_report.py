"""sim/load/report.py and sim/load/live.py: the summary's numbers, history.csv, a self-contained report.html, and the
live view's text on a terminal and in a log."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from support.charts import SVG, legend, svgs, texts, tick_labels, title
from support.load_runs import constructed_run, summary_of

from tablestorm.sim.load.live import LiveSnapshot, LiveView, render_block, render_line, snapshot
from tablestorm.sim.load.report import history_rows, render_html, write_report
from tablestorm.sim.load.stats import PROTOCOL_VIOLATION, RunStats
from tablestorm.sim.reporting.style import GAME_COLOURS, GREEN, ORANGE

NO_SEAT_LATENCIES = {"next_prompt_ms": {"p50": None, "p99": None}, "broadcast_ms": {"p50": None, "p99": None}}


def test_summary_exact_numbers() -> None:
    summary = summary_of(constructed_run())
    assert summary == {
        "bots": 12,
        "hosts": 1,
        "fleets": 2,
        "duration_s": 4.0,
        "hands": 4,
        "actions": 100,
        "hands_per_s": 1.0,
        "actions_per_s": 25.0,
        "latency_ms": {"p50": 5.0, "p90": 5.0, "p95": 5.0, "p99": 200.0, "p999": 200.0, "min": 5.0,
                       "max": 200.0, "mean": 8.9},
        "latency_uncorrected_ms": {"p50": 5.0, "p90": 5.0, "p95": 5.0, "p99": 200.0, "p999": 200.0, "min": 5.0,
                                   "max": 200.0, "mean": 8.9},
        "latency_correction": {"omitted": 0, "unapplied": 0},
        "next_prompt_ms": dict.fromkeys(("p50", "p90", "p95", "p99", "p999", "min", "max", "mean")),
        "broadcast_ms": dict.fromkeys(("p50", "p90", "p95", "p99", "p999", "min", "max", "mean")),
        "errors": {"UNAVAILABLE": 2, "DEADLINE_EXCEEDED": 1, PROTOCOL_VIOLATION: 1},
        "errors_total": 4,
        "chaos_errors": {"UNAVAILABLE": 1},
        "chaos_errors_total": 1,
        "unexpected_errors": {"DEADLINE_EXCEEDED": 1, "UNAVAILABLE": 1, PROTOCOL_VIOLATION: 1},
        "unexpected_errors_total": 3,
        "protocol_violations": 1,
        "timeouts": 2,
        "timeouts_by_outcome": {"check": 0, "all_in": 0, "fold": 1, "bring_in": 0, "stand_pat": 1},
        "side_pots": 4,
        "raise_caps": 0,
        "hands_voided": 1,
        "chips_start": 12_000,
        "chips_end": 12_000,
        "chips_conserved": True,
        "actions_by_kind": {"call": 98, "fold": 1, "raise": 1},
        "actions_by_bot": {"maniac": 2, "tight": 98},
        "by_game": {
            "7a5draw": {"hands": 1, "actions": 2, "latency_ms": {"p50": 200.0, "p99": 200.0},
                        "latency_uncorrected_ms": {"p50": 200.0, "p99": 200.0}, **NO_SEAT_LATENCIES, "timeouts": 1,
                        "side_pots": 1, "raise_caps": 0, "hands_voided": 0},
            "7stud": {"hands": 3, "actions": 98, "latency_ms": {"p50": 5.0, "p99": 5.0},
                      "latency_uncorrected_ms": {"p50": 5.0, "p99": 5.0}, **NO_SEAT_LATENCIES, "timeouts": 1,
                      "side_pots": 3, "raise_caps": 0, "hands_voided": 1},
        },
        "thresholds": [
            {"expression": "p99_ms<100", "metric": "p99_ms", "value": 200.0, "ok": False},
            {"expression": "errors==0", "metric": "errors", "value": 4, "ok": False},
            {"expression": "chips_conserved==true", "metric": "chips_conserved", "value": True, "ok": True},
        ],
        "thresholds_ok": False,
    }
    assert list(summary)[:8] == ["bots", "hosts", "fleets", "duration_s", "hands", "actions", "hands_per_s",
                                  "actions_per_s"]


@pytest.mark.parametrize(
    ("start", "end", "conserved"), [(100, 100, True), (100, 99, False), (None, 100, None)]
)
def test_chips_conserved(start: int | None, end: int | None, conserved: bool | None) -> None:
    summary = summary_of(RunStats(), chips_start=start, chips_end=end)
    assert summary["chips_conserved"] is conserved
    assert summary["thresholds"][2]["ok"] is (conserved is True)  # type: ignore[index]


def test_summary_of_an_empty_run() -> None:
    summary = summary_of(RunStats(), duration_s=0.0, thresholds=[])
    assert (summary["hands_per_s"], summary["actions_per_s"]) == (0.0, 0.0)
    assert set(summary["latency_ms"].values()) == {None}  # type: ignore[attr-defined]
    assert (summary["thresholds"], summary["thresholds_ok"]) == ([], True)


def test_bad_threshold_is_reported_before_anything_is_written() -> None:
    with pytest.raises(ValueError, match="unknown metric 'p98_ms'"):
        summary_of(constructed_run(), thresholds=["p98_ms<100"])


def test_history_rows() -> None:
    rows = history_rows(constructed_run(), bots_online={0: 10, 1: 12, 4: 0})
    columns = ("second", "bots_online", "hands", "actions", "errors", "unexpected_errors", "p50_ms", "p99_ms",
               "p99_uncorrected_ms")
    assert [tuple(row.values()) for row in rows] == [
        (0, 10, 1, 49, 0, 0, 5.0, 5.0, 5.0),
        (1, 12, 2, 49, 1, 1, 5.0, 5.0, 5.0),
        (2, None, 0, 0, 0, 0, None, None, None),
        (3, None, 1, 2, 3, 2, 200.0, 200.0, 200.0),
        (4, 0, 0, 0, 0, 0, None, None, None),
    ]
    assert all(tuple(row) == columns for row in rows)
    assert "bots_online" not in history_rows(constructed_run())[0]
    assert history_rows(RunStats()) == []


def test_write_report_writes_three_files(tmp_path: Path) -> None:
    stats = constructed_run()
    summary = summary_of(stats)
    paths = write_report(tmp_path / "run", summary, stats, bots_online={0: 10, 1: 12, 3: 12})
    assert sorted(p.name for p in paths.values()) == ["history.csv", "report.html", "summary.json"]
    assert json.loads(paths["summary"].read_text()) == summary
    assert paths["history"].read_text() == (
        "second,bots_online,hands,actions,errors,unexpected_errors,p50_ms,p99_ms,p99_uncorrected_ms\n"
        "0,10,1,49,0,0,5.0,5.0,5.0\n"
        "1,12,2,49,1,1,5.0,5.0,5.0\n"
        "2,,0,0,0,0,,,\n"
        "3,12,1,2,3,2,200.0,200.0,200.0\n"
    )
    write_report(tmp_path / "plain", summary, stats)
    plain = (tmp_path / "plain" / "history.csv").read_text()
    assert plain.startswith("second,hands,actions,errors,unexpected_errors,p50_ms")


def test_report_html_is_self_contained_and_complete() -> None:
    stats = constructed_run()
    page = render_html(summary_of(stats), stats, bots_online={0: 10, 1: 12}, title="load <staging> & co")
    # nothing to fetch or run: no scripts, links, images, imports, references out of the page (a chart
    # refers to its own clip paths and markers, by #id) or URLs but the SVG and XLink namespaces
    assert not re.search(r"<script|<link|<img|<iframe|@import|url\((?!#)|\bsrc=|\bhref=\"(?!#)", page, flags=re.I)
    assert set(re.findall(r"https?://[^\s\"']+", page)) == {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    for svg in svgs(page):
        ids = {e.get("id") for e in svg.iter()}
        referred = {r for e in svg.iter() for value in e.attrib.values() for r in re.findall(r"url\(#([^)]+)\)", value)}
        referred |= {value[1:] for e in svg.iter() for key, value in e.attrib.items() if key.endswith("href")}
        assert referred <= ids, (title(svg), referred - ids)
    assert "<title>load &lt;staging&gt; &amp; co</title>" in page
    assert [title(svg) for svg in svgs(page)] == ["Actions per second", "Hands per second", "Action latency over time",
                                                  "Latency distribution", "Errors over time", "Bots online"]
    for label in ("actions / s", "hands / s", "latency (ms)", "% of actions", "latency (ms, log scale)",
                  "errors / s", "elapsed (s)"):
        assert f">{label}</text>" in page
    assert "FAILED · 2 of 3 thresholds" in page
    assert page.count("badge fail") == 2 and page.count("badge pass") == 1
    assert "<code>p99_ms&lt;100</code>" in page
    for kind in ("UNAVAILABLE", "DEADLINE_EXCEEDED", PROTOCOL_VIOLATION):
        assert f"<td>{kind}</td>" in page
    cells = '<td class="n">'
    stud = f'<span class="swatch" style="background:{GAME_COLOURS["7stud"]}"></span>Seven Card Stud'
    assert (f"<tr><td>{stud}</td>{cells}3</td>{cells}98</td>{cells}5 ms</td>{cells}5 ms</td>{cells}–</td>"
            f"{cells}–</td>{cells}1</td>{cells}3</td>{cells}0</td>{cells}1</td></tr>") in page
    assert "<td>7stud</td>" not in page and "Seven-to-Ace Five Card Draw</td>" in page


def test_the_latency_distribution_marks_its_percentiles() -> None:
    """Bars in equal bins per decade on a log axis of milliseconds, ticked on round numbers, the
    percentiles as keyed lines at their values (5 ms, 5 ms and 200 ms)."""
    stats = constructed_run()
    distribution = svgs(render_html(summary_of(stats), stats))[3]
    assert legend(distribution) == [("p50", GREEN), ("p95", "#7c3aed"), ("p99", ORANGE)]
    assert tick_labels(distribution, "x") == ["5", "10", "20", "50", "100", "200"]


def _line_runs(svg: object, colour: str) -> list[int]:
    """The lengths (in points) of the runs of the data line drawn in ``colour``."""
    for path in svg.iter(f"{SVG}path"):  # type: ignore[attr-defined]
        style = path.get("style", "")
        if f"stroke: {colour}" in style and "stroke-width: 1.6" in style and "clip-path" in path.attrib:
            return [len(run.split("L")) for run in path.get("d").split("M")[1:]]
    raise AssertionError(f"no line in {colour}")


def _dots(svg: object, colour: str) -> int:
    """The dots drawn in ``colour`` outside the legend (a line's lone values)."""
    keyed = {id(u) for g in svg.iter(f"{SVG}g") if g.get("id", "").startswith("legend_") for u in g.iter()}  # type: ignore[attr-defined]
    return sum(1 for u in svg.iter(f"{SVG}use") if id(u) not in keyed and f"fill: {colour}" in u.get("style", ""))  # type: ignore[attr-defined]


def test_an_interrupted_run_is_no_pass() -> None:
    """A run a signal stopped shows INTERRUPTED where it would have shown PASSED or NO THRESHOLDS;
    a threshold it failed still shows as a failure."""
    stats = RunStats()
    badges = {
        tuple(thresholds): re.findall(r'class="verdict (\w+)">([^<]*)', render_html(
            summary_of(stats, thresholds=thresholds, run={"interrupted": "SIGTERM"}), stats))
        for thresholds in ([], ["errors==0"], ["errors>0"])
    }
    assert badges == {
        (): [("caution", "INTERRUPTED")],
        ("errors==0",): [("caution", "INTERRUPTED")],
        ("errors>0",): [("fail", "FAILED · 1 of 1 thresholds")],
    }


def test_latency_chart_breaks_where_no_action_was_answered() -> None:
    """Seconds 0-1 and 3 have actions, 2 has none: each percentile's line is a run of two points and
    a lone point, drawn as a dot."""
    stats = constructed_run()
    page = render_html(summary_of(stats), stats)
    latency_svg = svgs(page)[2]
    for colour in (GREEN, ORANGE):  # p50, p99
        assert _line_runs(latency_svg, colour) == [2, 1]
        assert _dots(latency_svg, colour) == 1


def test_empty_run_renders_without_charts() -> None:
    stats = RunStats()
    page = render_html(summary_of(stats, thresholds=[]), stats)
    assert "No data was recorded." in page and "No action was answered." in page
    assert "No errors during the run." in page and "NO THRESHOLDS" in page
    assert svgs(page) == []


def _line_ys(svg: object) -> set[str]:
    """The y coordinates of the points of the chart's one data line."""
    for path in svg.iter(f"{SVG}path"):  # type: ignore[attr-defined]
        if "stroke-width: 1.6" in path.get("style", "") and "clip-path" in path.attrib:
            return {point.split()[1] for point in re.split(r"[ML]", path.get("d")) if point.strip()}
    raise AssertionError("no line")


def test_long_runs_are_binned_for_the_charts() -> None:
    stats = RunStats()
    for second in range(3000):
        stats.action(0.01, "check", "tight", now=second + 0.5)
    page = render_html(summary_of(stats, duration_s=3000.0), stats)
    throughput = svgs(page)[0]
    assert len(_line_ys(throughput)) == 1  # flat: 1 action/s everywhere
    assert tick_labels(throughput, "x")[-1] == "50" and ">elapsed (min)</text>" in page
    assert "Charts show bins of\n5 s." in page


def test_partial_last_second_is_not_a_drop() -> None:
    """Run ends at 2.5 s: the half second holds half the actions, which is the same rate."""
    stats = RunStats()
    for i in range(25):
        stats.action(0.01, "check", "tight", now=i / 10)
    page = render_html(summary_of(stats, duration_s=2.5), stats)
    assert len(_line_ys(svgs(page)[0])) == 1


# --- tablestorm.sim.load.live -----------------------------------------------------------------------------------


def test_snapshot_uses_the_last_whole_seconds() -> None:
    snap = snapshot(constructed_run(), 4.7, window_s=3, bots_online=12, duration_s=60)
    # window: seconds 1, 2, 3 (4 is still filling)
    assert snap == LiveSnapshot(
        elapsed_s=4.7, duration_s=60, bots_online=12, window_s=3, hands_per_s=1.0, actions_per_s=17.0,
        p50_ms=5.0, p99_ms=200.0, hands=4, actions=100,
        errors={"UNAVAILABLE": 2, "DEADLINE_EXCEEDED": 1, PROTOCOL_VIOLATION: 1}, recent_errors=4,
        timeouts=2,
    )
    early = snapshot(constructed_run(), 0.4)
    assert (early.hands_per_s, early.actions_per_s, early.p50_ms, early.p99_ms) == (None, None, None, None)


def test_render_block_and_line() -> None:
    snap = snapshot(constructed_run(), 4.7, window_s=3, bots_online=1200, duration_s=3700)
    assert render_block(snap) == [
        "tablestorm load  00:04 / 1:01:40  1:01:35 left  bots online 1,200",
        "  last 3 s   hands/s 1.0   actions/s 17.0   p50 5.00 ms   p99 200 ms",
        "  totals     hands 4   actions 100   timeouts 2",
        "  errors     4 (4 in last 3 s)   UNAVAILABLE 2, DEADLINE_EXCEEDED 1, protocol_violation 1",
    ]
    assert render_line(snap) == (
        "[00:04/1:01:40] bots=1200 hands/s=1.0 actions/s=17.0 p50_ms=5.00 p99_ms=200.00 hands=4 "
        "actions=100 errors=4 timeouts=2"
    )
    early = snapshot(RunStats(), 0.2)
    assert render_block(early)[:2] == [
        "tablestorm load  00:00",
        "  last 5 s   hands/s –   actions/s –   p50 –   p99 –",
    ]
    assert render_line(early) == (
        "[00:00] hands/s=- actions/s=- p50_ms=- p99_ms=- hands=0 actions=0 errors=0 timeouts=0"
    )


def test_a_stall_shows_corrected_with_the_uncorrected_p99_beside() -> None:
    """Second 2: 99 actions at 5 ms and one held 2 s at a table that acts every 100 ms (19 samples
    filled in): corrected, the p99 is the 118th of 119 samples, the 19th fill-in, 1.9 s; as
    measured it is 5 ms. The live view, history.csv and the report show both; thresholds the first."""
    stats = RunStats()
    for _ in range(99):
        stats.action(0.005, "call", "tight", 2.0, expected_interval_s=0.1)
    stats.action(2.0, "call", "tight", 2.5, expected_interval_s=0.1)
    snap = snapshot(stats, 3.5, window_s=3)
    assert snap.p99_ms == pytest.approx(1900, rel=1 / 64) and snap.p99_uncorrected_ms == 5.0
    assert render_block(snap)[1].endswith(f"p99 {snap.p99_ms:,.0f} ms (uncorrected 5.00 ms)")
    assert f"p99_ms={snap.p99_ms:.2f} p99_uncorrected_ms=5.00 " in render_line(snap)
    (row,) = [row for row in history_rows(stats) if row["actions"]]
    assert (row["p99_ms"], row["p99_uncorrected_ms"]) == (round(snap.p99_ms, 3), 5.0)
    summary = summary_of(stats, thresholds=["p99_ms<100"])
    assert summary["latency_uncorrected_ms"]["p99"] == 5.0 and summary["latency_ms"]["max"] == 2000.0
    assert summary["latency_correction"] == {"omitted": 19, "unapplied": 0}
    assert summary["thresholds"][0]["value"] == summary["latency_ms"]["p99"] and not summary["thresholds_ok"]
    page = render_html(summary, stats)
    assert "p99 uncorrected" in page and "Thresholds check the corrected ones" in page


def test_the_other_seats_latencies_in_the_summary_live_view_and_report() -> None:
    stats = constructed_run()
    for _ in range(98):
        stats.prompted(0.002, 2.5, "7stud")
        stats.delivered(0.001, 2.5, "7stud")
    for _ in range(2):
        stats.prompted(0.150, 3.5, "7stud")
        stats.delivered(0.120, 3.5, "7stud")
    summary = summary_of(stats, thresholds=["broadcast_p99_ms<150", "next_prompt_p99_ms<100"])
    assert (summary["next_prompt_ms"]["p50"], summary["next_prompt_ms"]["max"]) == (2.0, 150.0)
    assert (summary["broadcast_ms"]["p50"], summary["broadcast_ms"]["max"]) == (1.0, 120.0)
    assert summary["by_game"]["7stud"]["broadcast_ms"] == {"p50": 1.0, "p99": 120.0}
    assert summary["by_game"]["7a5draw"]["next_prompt_ms"] == {"p50": None, "p99": None}
    assert [(t["metric"], t["value"], t["ok"]) for t in summary["thresholds"]] == [
        ("broadcast_p99_ms", 120.0, True), ("next_prompt_p99_ms", 150.0, False),
    ]
    snap = snapshot(stats, 4.7, window_s=3)
    assert (snap.next_prompt_p99_ms, snap.broadcast_p99_ms) == (150.0, 120.0)
    assert render_block(snap)[2] == "  players    next prompt p99 150 ms   broadcast p99 120 ms"
    assert "next_prompt_p99_ms=150.00 broadcast_p99_ms=120.00 " in render_line(snap)
    page = render_html(summary, stats)
    assert "p99 next prompt" in page and "p99 broadcast" in page and "what the other seats feel" in page
    cells = '<td class="n">{}</td>'.format
    assert "Seven Card Stud</td>" + "".join(map(cells, ("3", "98", "5 ms", "5 ms", "150 ms", "120 ms"))) in page
    assert "Five Card Draw</td>" + "".join(map(cells, ("1", "2", "200 ms", "200 ms", "–", "–"))) in page


def test_live_view_prints_a_line_every_n_seconds_when_not_a_tty() -> None:
    out = io.StringIO()
    view = LiveView(out, duration_s=30, plain_every_s=10)
    stats = RunStats()
    for second in range(26):
        stats.action(0.01, "call", "tight", now=second + 0.5)
        view.update(stats, now=second + 1.0)
    view.finish()
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["[00:01/00:30]", "[00:11/00:30]", "[00:21/00:30]",
                                                   "[00:26/00:30]"]
    assert "\x1b" not in out.getvalue()
    view.finish()  # nothing new to print
    assert len(out.getvalue().splitlines()) == 4


def test_live_view_redraws_in_place_on_a_tty() -> None:
    out = io.StringIO()
    view = LiveView(out, tty=True, width=40)
    stats = constructed_run()
    view.update(stats, now=2.0)
    first = out.getvalue()
    assert not first.startswith("\x1b") and first.count("\n") == 4
    assert all(len(line) <= 39 for line in first.splitlines())
    view.update(stats, now=3.0)
    assert out.getvalue()[len(first):].startswith("\x1b[4F\x1b[J")
    view.finish()
    assert out.getvalue().count("\x1b[4F") == 1


def test_faults_are_marked_on_the_charts_over_time_and_listed_with_their_recoveries() -> None:
    stats = constructed_run()
    summary = summary_of(stats)
    summary.update(
        chaos_events=[{"at_s": 1.0, "action": "kill-host", "victim": "host-2"},
                      {"at_s": 4.0, "action": "kill-registry", "victim": "registry"}],
        recoveries=[
            {"host": "host-2", "server": "127.0.0.1:7001", "at_s": 1.0, "cause": "chaos", "tables": 3, "voided": 2,
             "chips_refunded": 8000, "bots": 12, "bots_back": 12, "back_s": 0.6},
            {"host": "host-0", "server": "127.0.0.1:7000", "at_s": 3.0, "cause": "lost", "tables": 4, "voided": 1,
             "chips_refunded": 4000, "bots": 9, "bots_back": 7, "back_s": None},
        ],
        fleet_recoveries=[{"fleet": "fleet-1", "at_s": 2.0, "cause": "chaos", "seats": 30, "back_s": 1.25}],
        servers_lost=[{"server": "127.0.0.1:7002", "at_s": 2.5, "tables": ["a", "b"], "chips_last_seen": 16000,
                       "seats": ["a#1", "b#2"]}],
        registry_restarts=[{"at_s": 4.0, "cause": "chaos", "restart_s": 1.25, "journal_bytes": 20608}],
    )
    page = render_html(summary, stats, bots_online={0: 10, 1: 12})
    by_title = {title(svg): svg for svg in svgs(page)}
    labels = ["kill-host host-2", "host-0 lost", "127.0.0.1:7002 lost",  # the chaos's own losses once, by the event
              "kill-registry registry"]
    for name in ("Actions per second", "Hands per second", "Action latency over time", "Errors over time",
                 "Bots online"):
        marked = [text for text in texts(by_title[name]) if text in labels]
        assert sorted(marked) == sorted(labels), (name, marked)
    assert not set(labels) & set(texts(by_title["Latency distribution"]))
    faults = page.split("<h2>Faults and recoveries</h2>", 1)[1].split("<h2>", 1)[0]
    rows = [re.sub(r"<[^>]+>", "|", row).strip("|").split("||") for row in re.findall(r"<tr>(.*?)</tr>", faults)]
    assert rows[1:5] == [
        ["1 s", "host-2 (127.0.0.1:7001): tables rebuilt elsewhere", "chaos", "3", "2", "8,000", "12 of 12", "0.6 s"],
        ["2 s", "fleet-1: seats handed to a new fleet", "chaos", "–", "–", "–", "30", "1.25 s"],
        ["3 s", "host-0 (127.0.0.1:7000): tables rebuilt elsewhere", "lost", "4", "1", "4,000", "7 of 9", "–"],
        ["4 s", "registry: restarted from its journal (20,608 bytes)", "chaos", "–", "–", "–", "–", "1.25 s"],
    ]
    assert rows[6] == ["2.5 s", "127.0.0.1:7002", "2", "16,000", "a#1, b#2"]
    errors_legend = [label for label, _ in legend(by_title["Errors over time"])]
    assert "UNAVAILABLE (chaos)" in errors_legend and "UNAVAILABLE" in errors_legend
    assert "<h2>Faults and recoveries</h2>" not in render_html(summary_of(stats), stats)
