"""Reading the charts of a report page back: its inline SVGs (as matplotlib writes them through
``tablestorm.sim.reporting.plots``), their titles, legends, tick labels and line colours."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
_COLOUR = re.compile(r"(?:stroke|fill): (#[0-9a-f]{6})")


def svgs(page: str) -> list[ET.Element]:
    """Every inline SVG of the page, parsed as XML (which fails on a malformed chart)."""
    return [ET.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", page, flags=re.S)]


def figures(page: str) -> list[tuple[str, ET.Element]]:
    """Each chart of the page: the whole text of its figure's caption, and its SVG."""
    found = []
    for caption, svg in re.findall(r"<figure><figcaption>(.*?)</figcaption>(<svg .*?</svg>)\s*</figure>", page, re.S):
        found.append((re.sub(r"<[^>]+>", "", caption), ET.fromstring(svg)))
    return found


def title(svg: ET.Element) -> str | None:
    return svg.findtext(f"{SVG}title")


def texts(svg: ET.Element) -> list[str]:
    """Every text drawn in the chart, in order."""
    return ["".join(t.itertext()).strip() for t in svg.iter(f"{SVG}text")]


def _groups(svg: ET.Element, prefix: str) -> list[ET.Element]:
    return [g for g in svg.iter(f"{SVG}g") if g.get("id", "").startswith(prefix)]


def legend(svg: ET.Element) -> list[tuple[str, str]]:
    """Each legend entry of the chart, in order: its label and its key's colour."""
    entries = []
    for box in _groups(svg, "legend_"):
        colour = ""
        for child in box:
            if child.get("id", "").startswith("text_"):
                entries.append(("".join(child.itertext()).strip(), colour))
                continue
            for path in child.iter():
                found = _COLOUR.search(path.get("style", ""))
                if found and found.group(1) != "#ffffff":
                    colour = found.group(1)
    return entries


def legends(svg: ET.Element) -> int:
    return len(_groups(svg, "legend_"))


def tick_labels(svg: ET.Element, axis: str) -> list[str]:
    """The labels of the ``x`` or ``y`` axis's major ticks."""
    return ["".join(g.itertext()).strip() for g in _groups(svg, f"{axis}tick_") if "".join(g.itertext()).strip()]


def line_colours(svg: ET.Element) -> set[str]:
    """The colours of the data lines (not the grid, the axes or the legend's keys)."""
    legend_paths = {id(p) for box in _groups(svg, "legend_") for p in box.iter()}
    return {
        found.group(1)
        for path in svg.iter(f"{SVG}path")
        if id(path) not in legend_paths and "stroke-width: 1.6" in path.get("style", "")
        and (found := re.search(r"stroke: (#[0-9a-f]{6})", path.get("style", "")))
    }
