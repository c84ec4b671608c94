"""Every kind of report opened in a real browser (Debian's headless Chromium) and screenshotted.

A report is what people read: it must render offline (nothing fetched, no script), show its charts,
and be the page the code meant. Each kind is built here from constructed data by the same code the
commands run, written to disk, loaded from ``file://`` with the network cut off, and screenshotted;
the screenshot must be a full page with real content (many colours: text, charts), and the page must
reference nothing outside itself. ``REPORTS`` lists the kinds: a new command's report is a new row.
The screenshots are kept under the test's temporary directory for a person to look at.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image
from support.reports import REPORTS

CHROMIUM = shutil.which("chromium")
BROWSER_TIMEOUT = 90.0
WINDOW = (1280, 2400)
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--force-device-scale-factor=1",
    # The page must need nothing from outside: every request off the machine fails.
    "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
)
_EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", re.I)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_the_report_renders_offline_in_a_browser(kind: str, tmp_path: Path) -> None:
    assert CHROMIUM is not None
    page = REPORTS[kind](tmp_path / kind)
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text.lower() and not _EXTERNAL.search(text), "a report must be self-contained"
    shot = tmp_path / f"{kind}.png"
    result = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
         f"--screenshot={shot}", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=BROWSER_TIMEOUT,
    )
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    pixels = image.imread(shot)
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0])
    rgb = (pixels[..., :3] * 255).astype(np.uint32)
    colours = np.unique(rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2])  # one int a colour: 20x np.unique(axis=0)
    assert len(colours) > 200, f"{kind}: the screenshot looks blank ({len(colours)} colours)"
    # Something was drawn across the page, not just a header: below the top quarter has ink too
    # (the shortest report, the soak's three charts and verdict, inks about 0.6 % of it).
    lower = pixels[WINDOW[1] // 4 :, :, :3]
    assert (lower < 0.9).any(axis=2).mean() > 0.003, f"{kind}: nothing below the top quarter"


_MEASURE = """<script>
const box = (e) => e.closest("section, figure, main");
const over = [];
if (document.scrollingElement.scrollWidth > innerWidth)
  over.push(`the page: ${document.scrollingElement.scrollWidth} px wide in a ${innerWidth} px window`);
for (const t of document.querySelectorAll("table")) {
  const outer = t.parentElement.getBoundingClientRect(), inner = t.getBoundingClientRect();
  const spills = inner.right > box(t).getBoundingClientRect().right + 0.5;
  if (t.parentElement.scrollWidth > t.parentElement.clientWidth || spills)
    over.push(`table "${t.querySelector("th").textContent}": ${inner.width} px in ${outer.width} px`);
}
document.body.setAttribute("data-overflow", JSON.stringify(over));
</script>"""
"""Lists what is wider than its place: the page against the window, each table against its box
(and the section or figure holding it); set on the body for ``--dump-dom`` to print."""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_nothing_is_wider_than_its_page(kind: str, tmp_path: Path) -> None:
    """Laid out by the browser at the screenshot's width: no table spills out of its box or scrolls
    inside it, and the page needs no sideways scrolling. The report itself has no script: a copy of
    it gets the measuring one."""
    assert CHROMIUM is not None
    page = REPORTS[kind](tmp_path / kind)
    measured = page.with_name(f"measured-{page.name}")
    measured.write_text(page.read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    result = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
         "--dump-dom", measured.resolve().as_uri()],
        capture_output=True, text=True, timeout=BROWSER_TIMEOUT,
    )
    found = re.search(r'data-overflow="([^"]*)"', result.stdout)
    assert result.returncode == 0 and found, result.stderr[-2000:]
    assert json.loads(html.unescape(found.group(1))) == []
