"""``tablestorm replay``: PHH hand histories played through the engine again (docs/phh.md)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablestorm.services.engine import Hand
    from tablestorm.services.engine.phh import PhhHand

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm replay``: replay PHH hand histories through the engine (docs/phh.md).

    Prints one JSON object per hand (finishing_stacks in PHH player order, pots with their
    winners). Exit status: 0 all replayed; 1 a hand's finishing stacks differ from the ones it
    records; 2 a file is unreadable or malformed, or an action is illegal (the message names the
    action's index and text and the engine's reason).
    """
    p = sub.add_parser("replay", help="replay PHH hand histories through the engine",
                       description=register.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="a .phh file (one hand) or .phhs file (several)")


def run(args: argparse.Namespace) -> int:
    """Replay every hand of every file, each refusal on its own line; the worst exit status."""
    import json

    from tablestorm.services.engine import phh

    status = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"tablestorm replay: {path}: cannot read: {exc}", file=sys.stderr)
            status = 2
            continue
        try:
            hands = phh.loads_all(text)
        except phh.PhhFormatError as exc:
            print(f"tablestorm replay: {path}: malformed PHH: {exc}", file=sys.stderr)
            status = 2
            continue
        for number, parsed in enumerate(hands, 1):
            where = path if len(hands) == 1 else f"{path} [{number}]"
            try:
                hand = phh.replay(parsed)
            except phh.ReplayError as exc:
                if exc.index >= 0:
                    what = f"illegal action {exc.index} {exc.text!r}"
                    print(f"tablestorm replay: {where}: {what}: {exc.reason}", file=sys.stderr)
                else:
                    print(f"tablestorm replay: {where}: incomplete history: {exc.reason}", file=sys.stderr)
                status = 2
                continue
            except phh.PhhFormatError as exc:
                print(f"tablestorm replay: {where}: malformed PHH: {exc}", file=sys.stderr)
                status = 2
                continue
            result = _result(path, number, parsed, hand)
            print(json.dumps(result), flush=True)
            if result["matches_recorded_stacks"] is False:
                ours, recorded = result["finishing_stacks"], list(parsed.finishing_stacks or ())
                print(f"tablestorm replay: {where}: finishing stacks {ours} differ from the recorded "
                      f"{recorded}", file=sys.stderr)
                status = max(status, 1)
    return status


def _result(path: str, number: int, parsed: PhhHand, hand: Hand) -> dict[str, object]:
    """The JSON object ``tablestorm replay`` prints for one hand (players as PHH labels)."""
    from tablestorm.services.engine.events import HandEnded, PotAwarded

    amounts: dict[int, int] = {}
    winners: dict[int, list[str]] = {}
    awards: dict[int, list[dict[str, object]]] = {}
    for event in hand.events:
        if isinstance(event, PotAwarded):
            label = parsed.label(event.player)
            amounts[event.pot] = amounts.get(event.pot, 0) + event.amount
            if label not in winners.setdefault(event.pot, []):
                winners[event.pot].append(label)
            awards.setdefault(event.pot, []).append(
                {"player": label, "amount": event.amount, "share": event.share}
            )
    finishing = parsed.in_phh_order(hand.stacks)
    recorded = parsed.finishing_stacks
    last = hand.events[-1]
    return {
        "file": path,
        "hand": number if parsed.hand_number is None else parsed.hand_number,
        "variant": parsed.code,
        "players": parsed.n,
        "starting_stacks": parsed.in_phh_order(parsed.stacks),
        "finishing_stacks": finishing,
        "pots": [{"amount": amounts[k], "winners": winners[k], "awards": awards[k]} for k in sorted(amounts)],
        "showdown": isinstance(last, HandEnded) and last.showdown,
        "matches_recorded_stacks": None if recorded is None else list(recorded) == finishing,
    }
