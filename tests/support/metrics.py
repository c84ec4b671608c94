"""Reading metrics back: a real /metrics endpoint scraped, and the catalogue of metric names
deploy/README.md documents."""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

CATALOGUE = Path(__file__).resolve().parents[2] / "deploy" / "README.md"


def scraped(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the /metrics endpoint on 127.0.0.1:``port``, by name and sorted labels."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def catalogue() -> set[str]:
    """The metric names deploy/README.md's tables list (first column, in backquotes), as queried:
    a counter with its ``_total``, a histogram by its base name."""
    names = set()
    for line in CATALOGUE.read_text().splitlines():
        match = re.match(r"\|\s*`((?:tablestorm|process|python)_[a-z0-9_]+)`", line)
        if match:
            names.add(match.group(1))
    return names
