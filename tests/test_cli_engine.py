"""``tablestorm replay`` and ``tablestorm simulate`` (sim/cli.py), and the random play behind them
(sim/random_play.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tablestorm.services.engine import (
    SEVEN_CARD_STUD,
    SEVEN_CARD_STUD_HILO,
    SEVEN_TO_ACE_DRAW,
    VARIANTS,
    ActionKind,
    Hand,
    IllegalAction,
    SeededShuffler,
    Stakes,
    Structure,
    TableOptions,
    phh,
)
from tablestorm.services.engine.events import Acted, HandEnded, PotAwarded, TimedOut
from tablestorm.sim import cli, inputs
from tablestorm.sim.random_play import benchmark_policy, play_out, play_random_hand, random_action

ROOT = Path(__file__).resolve().parent.parent
AGGRESSIVE = {ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:  # argparse errors
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def exported(tmp_path: Path, name: str, options: TableOptions, stacks: list[int], seed: int) -> Path:
    hand = play_random_hand(options, stacks, random.Random(seed))
    path = tmp_path / name
    path.write_text(phh.dumps(hand), encoding="utf-8")
    return path


def stud_file(tmp_path: Path, name: str = "stud.phh", seed: int = 1) -> Path:
    options = TableOptions(SEVEN_CARD_STUD, Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2))
    return exported(tmp_path, name, options, [60, 5, 200, 30], seed)


# --------------------------------------------------------------------------- replay


def test_replay_prints_one_json_object_per_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # BET-6, BET-7, SHOW-3: the pots add up to every chip that changed hands
    rng = random.Random(11)
    files, hands = [], []
    tables = [
        (TableOptions(SEVEN_CARD_STUD, Stakes.default(4)), [40, 3, 90, 25], 0),
        (TableOptions(SEVEN_CARD_STUD_HILO, Stakes.default(4)), [9, 60, 60], 0),
        (TableOptions(SEVEN_TO_ACE_DRAW, Stakes.default(4), structure=Structure.POT_LIMIT),
         [50, 7, 80, 30], 2),
    ]
    for k, (options, stacks, button) in enumerate(tables):
        hand = play_random_hand(options, stacks, rng, button=button)
        path = tmp_path / f"h{k}.phh"
        path.write_text(phh.dumps(hand), encoding="utf-8")
        files.append(str(path))
        hands.append(hand)
    status, out, err = run(capsys, "replay", *files)
    assert status == 0, err
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["file"] for r in results] == files
    assert [r["variant"] for r in results] == ["F7S", "F7S/8", "P7A1D"]
    for result, hand, path in zip(results, hands, files, strict=True):
        parsed = phh.loads(Path(path).read_text())
        assert result["finishing_stacks"] == parsed.in_phh_order(hand.stacks)
        assert all(type(s) is int for s in result["finishing_stacks"])
        assert result["matches_recorded_stacks"] is True
        awarded = sum(e.amount for e in hand.events if type(e) is PotAwarded)
        assert sum(p["amount"] for p in result["pots"]) == awarded
        for pot in result["pots"]:
            assert pot["winners"] and all(w.startswith("p") for w in pot["winners"])
            assert sum(a["amount"] for a in pot["awards"]) == pot["amount"]
    # the draw hand: p1 sits left of the button (player 3 of 4), so PHH order is a rotation
    assert results[2]["starting_stacks"] == [30, 50, 7, 80]


def test_replay_illegal_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # BET-1
    path = stud_file(tmp_path)
    text = path.read_text()
    first_bet = next(line for line in text.splitlines() if " cbr " in line)
    amount = int(first_bet.strip().strip('",').split()[-1])
    index = [line.strip().strip('",') for line in text.splitlines() if line.startswith('  "')].index(
        first_bet.strip().strip('",')
    )
    bad = first_bet.replace(f"cbr {amount}", f"cbr {amount + 1}")
    path.write_text(text.replace(first_bet, bad, 1))
    status, out, err = run(capsys, "replay", str(path))
    assert status == 2
    assert out == ""
    wanted = bad.strip().strip('",')
    assert f"{path}: illegal action {index} {wanted!r}: fixed limit: " in err
    assert f"not {amount + 1}" in err


def test_replay_out_of_turn_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # STUD-3
    path = stud_file(tmp_path)
    text = path.read_text()
    bring_in = next(line.strip().strip('",') for line in text.splitlines() if line.endswith(' pb",'))
    other = "p1" if not bring_in.startswith("p1") else "p2"
    path.write_text(text.replace(f'"{bring_in}"', f'"{other} pb"', 1))
    status, _, err = run(capsys, "replay", str(path))
    assert status == 2
    assert f"illegal action 4 '{other} pb': it is {bring_in.split()[0]}'s turn, not {other}'s" in err
    path.write_text(text.replace(f'"{bring_in}"', '"p9 pb"', 1))
    status, _, err = run(capsys, "replay", str(path))
    assert status == 2
    assert "malformed PHH: actions[4]: 'p9' is not a player (p1..p4)" in err


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("small_bet = 4", 'small_bet = "four"', "small_bet"),
        ('variant = "F7S"', 'variant = "FT"', "variant"),
        ("antes = [1, 1, 1, 1]", "antes = [1, 1]", "antes"),
        ("actions = [", "actions = [[", "toml"),
    ],
)
def test_replay_malformed_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str
) -> None:
    path = stud_file(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    status, out, err = run(capsys, "replay", str(path))
    assert status == 2
    assert out == ""
    assert err.startswith(f"tablestorm replay: {path}: malformed PHH: {field}")


def test_replay_unreadable_file_and_the_others_still_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = stud_file(tmp_path)
    missing = tmp_path / "missing.phh"
    status, out, err = run(capsys, "replay", str(missing), str(good))
    assert status == 2
    assert f"{missing}: cannot read" in err
    assert len(out.splitlines()) == 1 and json.loads(out)["file"] == str(good)


def test_replay_phhs_and_incomplete_histories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    texts = [stud_file(tmp_path, f"{k}.phh", seed=k).read_text() for k in range(3)]
    document = tmp_path / "three.phhs"
    document.write_text(phh.dumps_all(texts))
    status, out, _ = run(capsys, "replay", str(document))
    assert status == 0
    assert [json.loads(line)["hand"] for line in out.splitlines()] == [1, 2, 3]
    cut = tmp_path / "cut.phh"
    cut.write_text(texts[0][: texts[0].index('  "p')] + "]\n")  # the cards, no action
    status, _, err = run(capsys, "replay", str(cut))
    assert status == 2
    assert "incomplete history: it ends before the hand does" in err


def test_replay_reports_stacks_that_differ_from_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = stud_file(tmp_path)
    text = path.read_text()
    line = next(line for line in text.splitlines() if line.startswith("finishing_stacks"))
    stacks = json.loads(line.split("=", 1)[1])
    path.write_text(text.replace(line, f"finishing_stacks = {[stacks[0] + 1, *stacks[1:]]}"))
    status, out, err = run(capsys, "replay", str(path))
    assert status == 1
    assert json.loads(out)["matches_recorded_stacks"] is False
    assert "differ from the recorded" in err


# --------------------------------------------------------------------------- simulate


def test_simulate_prints_hands_per_second_and_counts(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("simulate", "--game", "7stud", "--players", "6", "--hands", "200", "--seed", "1")
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    summary, line = out.splitlines()
    assert "200 hands of Seven Card Stud (6 players, fixed limit)" in summary and "hands/s" in summary
    counts = json.loads(line)
    assert counts["hands"] == 200 and counts["players"] == 6 and counts["game"] == "7stud"
    assert counts["showdowns"] + counts["uncontested"] == 200
    assert counts["actions"] > 200 and counts["hands_per_second"] > 0


def test_simulate_is_reproducible_with_a_seed(capsys: pytest.CaptureFixture[str]) -> None:  # TABLE-2
    argv = ("simulate", "--game", "7a5draw", "--structure", "no_limit", "--hands", "100", "--seed", "9",
            "--policy", "benchmark", "--fold", "0.2", "--raise", "0.5", "--timeout-rate", "0.05")
    first = json.loads(run(capsys, *argv)[1].splitlines()[1])
    second = json.loads(run(capsys, *argv)[1].splitlines()[1])
    for counts in (first, second):
        del counts["seconds"], counts["hands_per_second"]
    assert first == second
    assert first["players"] == 5  # the draw game seats five at most (DRAW-1)
    assert first["timeouts"] > 0 and first["all_ins"] > 0


EVERY_GAME = [(g, s.value) for g, v in VARIANTS.items() for s in sorted(v.structures, key=lambda s: s.value)]


@pytest.mark.parametrize(("game", "structure"), EVERY_GAME)
def test_simulate_every_game(capsys: pytest.CaptureFixture[str], game: str, structure: str) -> None:
    status, out, err = run(capsys, "simulate", "--game", game, "--structure", structure, "--hands", "30",
                           "--players", "2", "--stack", "15", "--seed", "4")
    assert status == 0, err
    assert json.loads(out.splitlines()[1])["hands"] == 30


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (("--game", "holdem"), "argument --game"),
        (("--game", "7a5draw", "--players", "6"), "argument --players"),  # DRAW-1
        (("--game", "7stud", "--players", "9"), "argument --players"),  # STUD-1
        (("--game", "7stud", "--players", "1"), "argument --players"),
        (("--game", "7stud", "--structure", "no_limit"), "argument --structure"),  # BET-4
        (("--game", "7stud", "--hands", "0"), "argument --hands"),
        (("--game", "7stud", "--hands", "many"), "argument --hands"),
        (("--game", "7stud", "--fold", "1.5"), "argument --fold"),
        (("--game", "7stud", "--seed", "x"), "argument --seed"),
        ((), "--game"),
    ],
)
def test_simulate_bad_arguments(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], option: str
) -> None:
    status, out, err = run(capsys, "simulate", *argv)
    assert status == 2
    assert out == ""
    assert option in err


def test_cli_lists_match_the_engine() -> None:
    assert tuple(VARIANTS) == inputs.GAMES
    assert tuple(s.value for s in Structure) == inputs.STRUCTURES


def test_building_the_parser_imports_no_engine() -> None:
    code = (
        "import sys, tablestorm.sim.cli; tablestorm.sim.cli._build_parser(); "
        "print(any(m.startswith('tablestorm.services.engine') for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_module_entry_point(tmp_path: Path) -> None:
    path = stud_file(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "tablestorm", "replay", str(path)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["variant"] == "F7S"


# --------------------------------------------------------------------------- random play


def test_random_action_is_always_legal() -> None:  # BET-1, BET-4, BET-5, DRAW-4
    rng = random.Random(12)
    for code, variant in VARIANTS.items():
        for structure in variant.structures:
            options = TableOptions(variant, Stakes.default(4), structure=structure)
            for _ in range(40):
                n = rng.randint(2, variant.max_players)
                hand = Hand(options, [rng.choice((1, 4, 9, 40, 200)) for _ in range(n)],
                            SeededShuffler(rng.getrandbits(32), code, 0), button=rng.randrange(n))
                while hand.actor >= 0:
                    legal = {option.kind: option for option in hand.legal_actions()}
                    action = random_action(hand, rng)
                    bound = legal[action.kind]
                    if action.kind in AGGRESSIVE or action.kind is ActionKind.BRING_IN:
                        assert bound.min <= action.amount <= bound.max
                        if structure is Structure.FIXED_LIMIT:
                            assert action.amount in (bound.min, bound.max)
                    if action.kind is ActionKind.DRAW:
                        assert bound.min <= len(action.discard) <= bound.max
                        assert set(action.discard) <= set(hand.down[hand.actor])
                    try:
                        hand.apply(action)
                    except IllegalAction as exc:  # pragma: no cover - the failure message
                        pytest.fail(f"{code} {structure.value}: random_action chose {action}: {exc}")
                assert type(hand.events[-1]) is HandEnded


def test_random_action_on_a_finished_hand() -> None:
    hand = play_random_hand(TableOptions(SEVEN_CARD_STUD, Stakes.default(2)), [20, 20], random.Random(1))
    with pytest.raises(ValueError, match="over"):
        random_action(hand, random.Random(1))


def test_benchmark_policy_probabilities() -> None:  # STUD-3
    options = TableOptions(SEVEN_CARD_STUD, Stakes.default(4))
    rng = random.Random(13)
    passive = benchmark_policy(fold=0.0, raise_=0.0)
    for _ in range(30):
        hand = play_random_hand(options, [100] * 5, rng, policy=passive)
        kinds = {e.kind for e in hand.events if type(e) is Acted}
        assert kinds <= {ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL}  # calls down, never folds
        assert ActionKind.BRING_IN in kinds
    folder = benchmark_policy(fold=1.0, raise_=0.0)
    for _ in range(30):
        hand = play_random_hand(options, [100] * 5, rng, policy=folder)
        kinds = [e.kind for e in hand.events if type(e) is Acted]
        assert kinds == [ActionKind.BRING_IN] + [ActionKind.FOLD] * 4  # everyone folds to the bring-in
    aggressive = benchmark_policy(fold=0.0, raise_=1.0)
    hand = play_random_hand(options, [100] * 3, rng, policy=aggressive)
    assert any(e.kind in AGGRESSIVE for e in hand.events if type(e) is Acted)
    with pytest.raises(ValueError, match="between 0 and 1"):
        benchmark_policy(fold=1.5)


def test_play_random_hand_is_reproducible_and_can_time_out() -> None:  # TABLE-2, CLOCK-2
    options = TableOptions(SEVEN_TO_ACE_DRAW, Stakes.default(2), structure=Structure.NO_LIMIT)
    first = play_random_hand(options, [50, 50, 50], random.Random(14), timeout_rate=0.3)
    second = play_random_hand(options, [50, 50, 50], random.Random(14), timeout_rate=0.3)
    assert first.events == second.events
    assert any(type(e) is TimedOut for e in first.events)
    hand = play_random_hand(options, [50, 50, 50], random.Random(15))
    assert not any(type(e) is TimedOut for e in hand.events)
    with pytest.raises(RuntimeError, match="did not end"):
        play_out(Hand(options, [50, 50], SeededShuffler(1, "t", 0)), random.Random(1), max_actions=1)
