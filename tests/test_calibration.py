"""The calibration suite: the example structures played by the default field fall inside the
published bands (docs/calibration.md, sim/tournament/calibration.py).

CI plays a few seeds of the no-limit sit-and-go and of the regular-speed no-limit MTT; before a
release ``-m slow`` plays every case with its 20 seeds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablestorm.sim.tournament.calibration import CASES, Case, judge, play

DOCS = Path(__file__).resolve().parent.parent / "docs" / "calibration.md"


def _failures(case: Case, seeds: int | None = None) -> list[str]:
    return [f"{v.band.id}: {v.value} not in [{v.band.low}, {v.band.high}] ({v.band.what})"
            for v in judge(case, play(case, seeds)) if not v.passed]


@pytest.mark.parametrize(("name", "seeds"), [("draw-nl-sng.yaml", 4), ("draw-nl-regular.yaml", 6)])
def test_a_few_seeds_fall_in_the_bands(name: str, seeds: int) -> None:
    case = next(case for case in CASES if case.structure == name)
    assert _failures(case, seeds) == []


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.structure for case in CASES])
def test_every_example_structure_falls_in_the_bands(case: Case) -> None:
    assert _failures(case) == []


def test_every_band_is_documented_with_its_sources() -> None:
    text = DOCS.read_text()
    documented = set(re.findall(r"`(T\d\.[a-z0-9_]+)`", text))
    assert {band.id for case in CASES for band in case.bands} <= documented
