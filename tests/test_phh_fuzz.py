"""Fuzzing the PHH reader, replay and ``tablestorm replay`` (the mutator is tests/phh_fuzz.py).

Only the documented errors may come out of ``loads`` and ``replay`` (``PhhFormatError``,
``ReplayError``, both ``PhhError``), never another exception and never a hang: every input is
bounded and every test has a time limit. ``tablestorm replay`` exits 0, 1 or 2 and reports each
problem on one line naming the file, without a traceback. The default run takes seconds; the
``slow`` runs go longer, atheris's coverage-guided one among them when it is installed.

The regression tests at the end are the bugs the fuzzer found, one each, named after what it found.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.phh_fuzz import FIELDS, MAX_TEXT, TOKENS, Choose, check, mutate, seed_histories, toml_document
from support.phh_histories import HEADS_UP_STUD

from tablestorm.services.engine import phh
from tablestorm.services.engine.events import Reshuffled
from tablestorm.sim import cli

BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent



def runs(quick: int, long: int) -> list[Any]:
    """Examples per property: ``quick`` take seconds in the default run, ``long`` minutes under ``slow``."""
    return [
        pytest.param(quick, id="quick", marks=pytest.mark.timeout(180)),
        pytest.param(long, id="long", marks=[pytest.mark.slow, pytest.mark.timeout(3600)]),
    ]


def holds(examples: int, texts: st.SearchStrategy[str], prop: Callable[[str], None] = check) -> None:
    """Run ``prop`` (by default :func:`check`) on ``examples`` texts drawn from ``texts``."""

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(texts)
    def run(text: str) -> None:
        prop(text)

    run()


@st.composite
def mutated_histories(draw: st.DrawFn) -> str:
    """A valid exported history with one to four random edits."""
    seeds = seed_histories()
    choose: Choose = lambda n: draw(st.integers(0, n - 1))  # noqa: E731
    return mutate(seeds[choose(len(seeds))], choose)


TOML_VALUES = st.recursive(
    st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.booleans()
    | st.text(max_size=20) | st.sampled_from([token for token in TOKENS if len(token) <= 40]),
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.sampled_from(("player", "kind", "amount", "live", "action", "outcome")), inner, max_size=4),
    max_leaves=12,
)
TOML_DOCUMENTS = st.dictionaries(
    st.sampled_from(FIELDS) | st.from_regex(r"[a-z_]{1,8}", fullmatch=True), TOML_VALUES, max_size=10
).map(toml_document)
"""Random TOML documents over PHH's field names: they reach the checks of every field."""


# --------------------------------------------------------------------------- the reader and replay


@pytest.mark.parametrize("examples", runs(200, 2000))
def test_mutated_histories_raise_only_phh_errors(examples: int) -> None:
    holds(examples, mutated_histories())


@pytest.mark.parametrize("examples", runs(200, 1200))
def test_random_text_raises_only_phh_errors(examples: int) -> None:
    holds(examples, st.text(max_size=2000))


@pytest.mark.parametrize("examples", runs(60, 400))
def test_random_toml_raises_only_phh_errors(examples: int) -> None:
    holds(examples, TOML_DOCUMENTS)


def test_the_seed_histories_replay() -> None:
    """The mutations start from valid hands of every game, with the STUD-7 community card and the
    DRAW-4 reshuffle among them (else the fuzzer would explore less than it seems)."""
    seeds = seed_histories()
    assert {phh.loads(text).code for text in seeds} == set(phh.PHH_CODES)
    actions = [a for text in seeds for a in phh.loads(text).steps]
    assert any(step.text.startswith("d db ") for step in actions)
    hands = [phh.replay(phh.loads(text)) for text in seeds]
    assert any(isinstance(e, Reshuffled) and hand.options.variant.code == "7a5draw"
               for hand in hands for e in hand.events)


# --------------------------------------------------------------------------- tablestorm replay


def assert_reports(paths: list[str], status: int, out: str, err: str) -> None:
    """``tablestorm replay``'s contract: exit 0, 1 or 2; one JSON object per replayed hand; each
    problem one line naming its file; nothing else on stderr, so no traceback."""
    assert status in (0, 1, 2), err
    assert (status == 0) == (err == ""), err
    files = "|".join(re.escape(path) for path in paths)
    line = re.compile(rf"tablestorm replay: (?:{files})(?: \[\d+\])?: \S")
    for problem in err.splitlines():
        assert line.match(problem), problem
    for result in out.splitlines():
        assert json.loads(result)["file"] in paths
    reported = {json.loads(result)["file"] for result in out.splitlines()}
    reported |= {path for path in paths if f"tablestorm replay: {path}" in err}
    assert reported == set(paths)


def fuzzed_files(directory: Path, count: int, seed: int) -> list[str]:
    """``count`` files: mutated histories, and now and then raw bytes that need not be UTF-8."""
    rng = random.Random(seed)
    seeds = seed_histories()
    paths = []
    for k in range(count):
        path = directory / f"{k}.phh"
        if rng.random() < 0.1:
            path.write_bytes(rng.randbytes(rng.randrange(200)))
        else:
            path.write_text(mutate(seeds[rng.randrange(len(seeds))], rng.randrange), encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize(
    ("files", "batches"),
    [
        pytest.param(40, 1, id="quick", marks=pytest.mark.timeout(180)),
        pytest.param(200, 10, id="long", marks=[pytest.mark.slow, pytest.mark.timeout(1800)]),
    ],
)
def test_tablestorm_replay_on_fuzzed_files(tmp_path: Path, files: int, batches: int) -> None:
    for batch in range(batches):
        directory = tmp_path / str(batch)
        directory.mkdir()
        paths = fuzzed_files(directory, files, seed=batch)
        result = subprocess.run(
            [BIN / "tablestorm", "replay", *paths], capture_output=True, text=True, timeout=600
        )
        assert_reports(paths, result.returncode, result.stdout, result.stderr)


def replay_in_process(text: str) -> None:
    """``tablestorm replay`` (``tablestorm.sim.cli.main``) on one file holding ``text``."""
    with tempfile.TemporaryDirectory() as directory:
        path = str(Path(directory) / "fuzzed.phh")
        Path(path).write_text(text, encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["replay", path])
        assert_reports([path], status, out.getvalue(), err.getvalue())


@pytest.mark.parametrize("examples", runs(60, 400))
def test_replay_command_reports_mutated_histories(examples: int) -> None:
    holds(examples, mutated_histories(), replay_in_process)


# --------------------------------------------------------------------------- atheris


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_atheris_finds_no_crash(tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    result = subprocess.run(
        [sys.executable, HERE / "fuzz_phh_atheris.py", "-runs=10000", f"-max_len={MAX_TEXT}", "-timeout=60",
         f"-artifact_prefix={tmp_path}/"],
        capture_output=True, text=True, timeout=800, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert "Done 10000 runs" in result.stderr


# --------------------------------------------------------------------------- regressions


def malformed(text: str) -> phh.PhhFormatError:
    with pytest.raises(phh.PhhFormatError) as caught:
        phh.replay(phh.loads(text))
    return caught.value


STUD = HEADS_UP_STUD + "hand = 1\nfinishing_stacks = [101, 99]\n"
"""A heads-up stud hand with the fields ``tablestorm replay`` prints."""


def test_regression_base_history_replays() -> None:
    assert phh.replay(phh.loads(STUD)).stacks == [101, 99]


def test_regression_an_integer_too_long_to_read() -> None:
    error = malformed(STUD.replace("hand = 1", "hand = " + "9" * 5000))  # tomllib: int() refuses it
    assert error.field == "toml" and "4300 digits" in error.reason


def test_regression_arrays_nested_too_deep_for_the_toml_parser() -> None:
    error = malformed(STUD + "deep = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n")  # RecursionError
    assert (error.field, error.reason) == ("toml", "arrays or tables nested too deeply")


def test_regression_stud_blinds_that_are_not_an_array() -> None:
    error = malformed(STUD.replace("antes = [0, 0]", "antes = [0, 0]\nblinds_or_straddles = 5"))  # any(5)
    assert (error.field, error.reason) == ("blinds_or_straddles", "stud games have no blinds")


def test_regression_a_player_label_with_thousands_of_digits() -> None:
    label = "p" + "9" * 5000  # int() refused it
    error = malformed(STUD.replace('"p1 cc"', f'"{label} cc"', 1))
    assert (error.field, error.reason) == ("actions[3]", f"{label!r} is not a player (p1..p2)")


def test_regression_a_bet_with_thousands_of_digits() -> None:
    text = STUD.replace('"p1 cc"', '"p1 cbr ' + "9" * 5000 + '"', 1)
    error = malformed(text)
    assert error.field.startswith("actions[") and error.reason.startswith("bad amount")


def test_regression_a_timeout_outcome_that_is_not_a_string() -> None:
    error = malformed(STUD + '_timeouts = [{action = 3, player = "p1", outcome = []}]\n')  # [] in a set: TypeError
    assert error.field == "_timeouts[0].outcome"


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("hand = 1", "hand = 1979-05-27", "hand"),  # json.dumps of a date: a traceback
        ("hand = 1", "hand = nan", "hand"),  # printed as NaN, which is not JSON
        ("finishing_stacks = [101, 99]", "finishing_stacks = 1979-05-27", "finishing_stacks"),
    ],
    ids=["hand-a-date", "hand-nan", "finishing-stacks-a-date"],
)
def test_regression_fields_the_replay_command_prints(tmp_path: Path, old: str, new: str, field: str) -> None:
    path = tmp_path / "hand.phh"
    path.write_text(STUD.replace(old, new, 1), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["replay", str(path)])
    assert (status, out.getvalue()) == (2, "")
    assert err.getvalue().startswith(f"tablestorm replay: {path}: malformed PHH: {field}: ")


def test_regression_the_board_short_of_its_community_card() -> None:
    """Found while reworking the deck: eight players reach 7th street, the stub is short and the
    history has no community card; naming the board (player -1) as a label raised ValueError."""
    eight = next(text for text in seed_histories() if "d db " in text)
    error = malformed(re.sub(r'  "d db ..",\n', "", eight))
    assert (error.field, error.reason) == ("actions", "the history deals the board fewer cards than the game does")
