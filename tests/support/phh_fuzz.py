"""Fuzzing the PHH reader and replay: seed histories, their mutations, and the property they keep.

The property (:func:`check`): whatever the text, ``loads``/``loads_all`` and ``replay`` raise only
:class:`~tablestorm.services.engine.phh.PhhError` (``PhhFormatError`` or ``ReplayError``), and a hand that does
replay exports to a history that replays to the very same events.

One mutator serves every driver. It takes each decision from a :data:`Choose` function
(``choose(n)`` is a number in ``range(n)``), which hypothesis (``data.draw``), atheris
(``FuzzedDataProvider``) or a seeded ``random.Random`` supplies, so each of them explores the same
mutations. Every input is bounded (:data:`MAX_TEXT`), so none can hang the reader.
"""

from __future__ import annotations

import contextlib
import functools
import random
import re
import tomllib
from collections.abc import Callable
from typing import Any

from tablestorm.services.engine import VARIANTS, Stakes, TableOptions, card_str, phh
from tablestorm.services.engine.phh.toml_writer import toml_string, toml_value
from tablestorm.sim.random_play import benchmark_policy, play_random_hand

Choose = Callable[[int], int]
"""``choose(n)``: a number in ``range(n)``, the fuzzer's decision."""

MAX_TEXT = 20_000
"""Characters of an input at most."""

FIELDS = (
    "variant", "_variant_extension", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in",
    "small_bet", "big_bet", "min_bet", "starting_stacks", "actions", "hand", "table", "seats", "seat_count",
    "players", "finishing_stacks", "winnings", "time_limit", "_open_pair", "_heads_up_uncapped", "_cap",
    "_buy_in", "_blind_posts", "_timeouts",
)
"""The fields tablestorm reads or writes (docs/phh.md)."""

TOKENS = (
    # cards, valid and not
    "As", "Kd", "7c", "6h", "2c", "Ah8sQc", "AsAs", "??", "Xx", "10d", "7♣", "a", "",
    # players and verbs
    "p1", "p2", "p0", "p9", "p10", "p" + "9" * 25, "d", "dh", "db", "f", "cc", "cbr", "pb", "sd", "sm", "-",
    # numbers
    "0", "1", "-1", "3", "100", "2.5", "1e3", "inf", "nan", "9" * 30, "9" * 5000,
    # TOML syntax and values
    '"', "'", "[", "]", "{", "}", "=", ",", "\n", "\\", "#", "[1]", "[[x]]", "true", '"""',
    "1979-05-27T07:32:00Z", "07:32:00", "[" * 1000 + "]" * 1000, "{a = " * 400 + "1" + "}" * 400,
    # whole fields
    'variant = "F7A1D"', "hand = 1979-05-27", "hand = nan", "seats = [1, 1]", "blinds_or_straddles = 5",
    '_timeouts = [{action = 1, player = "p1"}]', '_timeouts = [{action = 1, player = "p1", outcome = []}]',
    '_blind_posts = [{player = "p1", kind = "big_blind", amount = 2}]',
)
"""Pieces that reach the reader's corners: bad cards, labels, huge numbers, deep nesting, dates."""

_VALUES: tuple[object, ...] = (
    0, 1, -1, 2, 7, 100, 2**31, 2**63 - 1, -(2**63), 10**40,
    0.0, 0.5, 2.0, -1.5, 1e300, float("inf"), float("-inf"), float("nan"),
    True, False, "F7S", "F7S/8", "F5S", "N7A1D", "tablestorm", "p1", "big_blind", "fold", "all_in", "",
)
_TABLE_KEYS = ("player", "kind", "amount", "live", "action", "outcome", "variant")
_CARD_TEXT = re.compile(r"(?<= )[2-9TJQKA][cdhs](?:[2-9TJQKA][cdhs])*\Z")
_CARDS = [card_str(card) for card in range(52)]
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+\Z")


@functools.cache
def seed_histories() -> tuple[str, ...]:
    """Valid histories of every game and structure: random play with random stacks and timeouts, and
    passive hands that reach the STUD-7 community card and the DRAW-4 reshuffles."""
    rng = random.Random("phh-fuzz")
    texts: list[str] = []
    for variant in VARIANTS.values():
        for structure in sorted(variant.structures, key=lambda s: s.value):
            for _ in range(3):
                stakes = Stakes(small_bet=4, big_bet=8, ante=rng.choice((0, 1)), bring_in=2, small_blind=2,
                                big_blind=4)
                options = TableOptions(variant, stakes, structure=structure, open_pair=rng.choice((True, False)))
                players = rng.randint(2, variant.max_players)
                stacks = [rng.choice((1, 3, 8, 40, 200)) for _ in range(players)]
                hand = play_random_hand(options, stacks, rng, button=rng.randrange(players), timeout_rate=0.1)
                texts.append(phh.dumps(hand, players=[f"n{k}" for k in range(players)], hand_number=len(texts)))
            players = variant.max_players
            options = TableOptions(variant, Stakes.default(4), structure=structure, open_pair=False)
            calls = benchmark_policy(fold=0.0, raise_=0.0)
            texts.append(phh.dumps(play_random_hand(options, [500] * players, rng, policy=calls)))
    return tuple(texts)


def check(text: str) -> None:
    """Read ``text`` and replay every hand in it: only :class:`PhhError` may come out, and what replays
    exports to a history that replays the same."""
    with contextlib.suppress(phh.PhhError):
        phh.loads(text)
    try:
        hands = phh.loads_all(text)
    except phh.PhhError:
        return
    for parsed in hands:
        try:
            hand = phh.replay(parsed)
        except phh.PhhError:
            continue
        again = phh.replay(phh.loads(phh.dumps(hand)))
        assert again.events == hand.events


def mutate(text: str, choose: Choose) -> str:
    """One to four random edits of ``text``: of its characters, its lines, its fields or its actions."""
    for _ in range(1 + choose(4)):
        edit = _EDITS[choose(len(_EDITS))]
        text = edit(text, choose)[:MAX_TEXT]
    return text


def random_value(choose: Choose, depth: int = 2) -> object:
    """A TOML value: a scalar of :data:`_VALUES` or :data:`TOKENS`, or an array or inline table of them."""
    kind = choose(4 if depth > 0 else 2)
    if kind == 0:
        return _VALUES[choose(len(_VALUES))]
    if kind == 1:
        return TOKENS[choose(len(TOKENS))]
    if kind == 2:
        return [random_value(choose, depth - 1) for _ in range(choose(6))]
    return {_TABLE_KEYS[choose(len(_TABLE_KEYS))]: random_value(choose, depth - 1) for _ in range(choose(4))}


def toml_document(fields: dict[str, Any]) -> str:
    """``fields`` as TOML text, one ``key = value`` line each (tables of a ``.phhs`` inline)."""
    lines = []
    for key, value in fields.items():
        name = key if _PLAIN_KEY.match(key) else toml_string(key)
        lines.append(f"{name} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the edits


def _delete_span(text: str, choose: Choose) -> str:
    start = choose(len(text) + 1)
    return text[:start] + text[start + 1 + choose(40) :]


def _insert_token(text: str, choose: Choose) -> str:
    at = choose(len(text) + 1)
    return text[:at] + TOKENS[choose(len(TOKENS))] + text[at:]


def _edit_lines(text: str, choose: Choose) -> str:
    """Drop, duplicate or swap lines."""
    lines = text.split("\n")
    a, b = choose(len(lines)), choose(len(lines))
    how = choose(3)
    if how == 0:
        del lines[a]
    elif how == 1:
        lines.insert(b, lines[a])
    else:
        lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def _with_fields(edit: Callable[[dict[str, Any], Choose], None]) -> Callable[[str, Choose], str]:
    """An edit of the parsed fields; text that is not TOML, or a value the writer cannot write
    (a date), is left as it is."""

    def edited(text: str, choose: Choose) -> str:
        try:
            fields = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError, ValueError):
            return text
        edit(fields, choose)
        try:
            return toml_document(fields)
        except (TypeError, ValueError):
            return text

    return edited


def _set_field(fields: dict[str, Any], choose: Choose) -> None:
    fields[FIELDS[choose(len(FIELDS))]] = random_value(choose)


def _drop_field(fields: dict[str, Any], choose: Choose) -> None:
    if fields:
        del fields[list(fields)[choose(len(fields))]]


def _actions(fields: dict[str, Any]) -> list[Any] | None:
    actions = fields.get("actions")
    return actions if isinstance(actions, list) and actions else None


def _reorder_action(fields: dict[str, Any], choose: Choose) -> None:
    """Drop, duplicate or move one action."""
    actions = _actions(fields)
    if actions is None:
        return
    entry = actions.pop(choose(len(actions)))
    how = choose(3)
    if how:
        actions.insert(choose(len(actions) + 1), entry)
    if how == 2:
        actions.insert(choose(len(actions) + 1), entry)


def _replace_word(fields: dict[str, Any], choose: Choose) -> None:
    """One word of one action becomes a token."""
    actions = _actions(fields)
    if actions is None:
        return
    k = choose(len(actions))
    words = str(actions[k]).split(" ")
    words[choose(len(words))] = TOKENS[choose(len(TOKENS))]
    actions[k] = " ".join(words)


def _replace_card(fields: dict[str, Any], choose: Choose) -> None:
    """One card of a deal, discard or show becomes another card: the syntax stays valid, so this
    reaches replay and the deck (a card dealt twice, a discard, a card outside the short deck)."""
    actions = _actions(fields)
    if actions is None:
        return
    with_cards = [k for k, a in enumerate(actions) if isinstance(a, str) and _CARD_TEXT.search(a)]
    if not with_cards:
        return
    k = with_cards[choose(len(with_cards))]
    found = _CARD_TEXT.search(actions[k])
    assert found is not None
    at = found.start() + 2 * choose((found.end() - found.start()) // 2)
    actions[k] = actions[k][:at] + _CARDS[choose(52)] + actions[k][at + 2 :]


def _change_amount(fields: dict[str, Any], choose: Choose) -> None:
    """A bet amount, a stack or a stake moves a little or a lot."""
    actions = _actions(fields)
    bets = [k for k, a in enumerate(actions or ()) if isinstance(a, str) and " cbr " in a]
    if actions is not None and bets and choose(2):
        k = bets[choose(len(bets))]
        head, _, amount = actions[k].rpartition(" ")
        if amount.isdigit():
            actions[k] = f"{head} {max(0, int(amount) + choose(9) - 4)}"
        return
    numbers = [key for key, value in fields.items() if type(value) is int]
    if numbers:
        key = numbers[choose(len(numbers))]
        fields[key] = fields[key] + choose(9) - 4


_EDITS: tuple[Callable[[str, Choose], str], ...] = (
    _delete_span,
    _insert_token,
    _edit_lines,
    _with_fields(_set_field),
    _with_fields(_drop_field),
    _with_fields(_reorder_action),
    _with_fields(_replace_word),
    _with_fields(_replace_card),
    _with_fields(_replace_card),
    _with_fields(_change_amount),
)
"""Structured edits come more often than character edits: they keep the text readable, so they
reach replay."""
