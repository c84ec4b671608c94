"""Parse: PHH text into a :class:`PhhHand`, the hand in the engine's terms, or a :class:`PhhFormatError`.

Parsing checks everything that can be checked without playing the hand: the fields a variant needs,
whole chip amounts, player labels, the syntax of every action and card. Whether the actions are
legal, and whether the deck could have dealt those cards then, is for
:func:`~tablestorm.services.engine.phh.replaying.replay` to find out.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tablestorm.services.engine.actions import Action, ActionKind, TimeoutOutcome
from tablestorm.services.engine.cards import Card, parse_card
from tablestorm.services.engine.hand import BlindPost
from tablestorm.services.engine.phh.codes import EXTENSION_MARK, PHH_CODES
from tablestorm.services.engine.variants import VARIANTS, Stakes, Structure, TableOptions, Variant
from tablestorm.services.fields import FieldError

_BLIND_KINDS = ("small_blind", "big_blind", "dead_small_blind")
_OPTION_FIELDS = {
    "stakes.ante": "antes",
    "stakes.small_blind": "blinds_or_straddles",
    "stakes.big_blind": "blinds_or_straddles",
    "structure": "variant",
    "cap": "_cap",
    "clock_seconds": "time_limit",
    "max_seats": "seat_count",
    "buy_in": "_buy_in",
}
"""The PHH field behind each of the engine's :class:`TableOptions` fields that PHH names otherwise
(``stakes.small_bet`` is ``small_bet``)."""


class PhhError(ValueError):
    """Base class of the errors :func:`loads` and :func:`replay` raise."""


class PhhFormatError(FieldError, PhhError):
    """The text is not a PHH hand tablestorm can replay; ``field`` names the offending PHH field.

    A :class:`FieldError` of its own kind: a reader of histories (``tablestorm replay``, the fuzzers)
    tells a malformed history apart from any other refusal, which would be an engine error the
    parser failed to name in PHH's terms.
    """


@dataclass(frozen=True, slots=True)
class Step:
    """One entry of ``actions``: a player action (``action`` set) or dealer/showdown/no-op text."""

    index: int
    text: str
    player: int
    """Engine player index of the actor, -1 for the dealer or a no-op."""
    action: Action | None


@dataclass(frozen=True)
class PhhHand:
    """A parsed PHH hand, in the engine's terms.

    ``order[k]`` is the engine player index of PHH player ``p{k+1}``; ``stacks``, ``script`` and
    ``dealt_by`` are indexed by engine player (``script[-1]`` holds the STUD-7 community card).
    """

    code: str
    options: TableOptions
    stacks: tuple[int, ...]
    button: int
    blinds: tuple[BlindPost, ...] | None
    script: dict[int, list[Card]]
    dealt_by: dict[int, list[int]]
    """``dealt_by[player][k]``: the index of the action that deals ``script[player][k]``."""
    steps: tuple[Step, ...]
    order: tuple[int, ...]
    timeout_outcomes: dict[int, str] = field(default_factory=dict)
    hand_number: int | str | None = None
    """``hand``: the hand's number or name, when the file gives one."""
    finishing_stacks: tuple[int, ...] | None = None
    """``finishing_stacks`` as the file records them (PHH player order), if it does."""
    fields: dict[str, Any] = field(default_factory=dict)
    """Every field as read, for those tablestorm does not interpret (``players``, other tools' own)."""

    @property
    def n(self) -> int:
        return len(self.stacks)

    def label(self, player: int) -> str:
        return f"p{self.order.index(player) + 1}"

    def in_phh_order(self, values: Sequence[int]) -> list[int]:
        """Per-engine-player values (stacks...) re-ordered as the PHH players."""
        return [values[p] for p in self.order]


def _check_int(name: str, value: object, *, minimum: int = 0) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # PHH allows floats; chips are whole
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and math.isinf(value):
            raise PhhFormatError(name, "unknown amounts (inf) cannot be replayed")
        raise PhhFormatError(name, f"expected a whole number of chips, got {value!r}")
    if value < minimum:
        raise PhhFormatError(name, f"must be at least {minimum}, got {value}")
    return value


def _get_int(fields: Mapping[str, Any], name: str, *, minimum: int = 0, default: int | None = None) -> int:
    if name not in fields:
        if default is not None:
            return default
        raise PhhFormatError(name, "missing (required for this variant)")
    return _check_int(name, fields[name], minimum=minimum)


def _get_ints(fields: Mapping[str, Any], name: str, n: int) -> list[int]:
    value = fields.get(name)
    if value is None:
        raise PhhFormatError(name, "missing (required for this variant)")
    if not isinstance(value, list):
        raise PhhFormatError(name, f"expected an array, got {value!r}")
    if len(value) != n:
        raise PhhFormatError(name, f"expected {n} values (one per player), got {len(value)}")
    return [_check_int(f"{name}[{k}]", v) for k, v in enumerate(value)]


def _get_bool(fields: Mapping[str, Any], name: str, default: bool) -> bool:
    value = fields.get(name, default)
    if not isinstance(value, bool):
        raise PhhFormatError(name, f"expected true or false, got {value!r}")
    return value


def _parse_cards(where: str, text: str) -> list[Card]:
    if len(text) % 2 or not text:
        raise PhhFormatError(where, f"bad cards {text!r} (two characters a card, e.g. AsKd)")
    cards = []
    for k in range(0, len(text), 2):
        chunk = text[k : k + 2]
        if chunk == "??" or "?" in chunk:
            raise PhhFormatError(where, f"unknown card {chunk!r}: tablestorm replays need every card")
        try:
            card = parse_card(chunk)
        except ValueError:
            raise PhhFormatError(where, f"bad card {chunk!r} in {text!r}") from None
        cards.append(card)
    return cards


_PLAYER = re.compile(r"p([1-9][0-9]?)\Z")
"""A player label: ``p1`` to ``p99`` (ten players at most), never so long a number that reading it costs."""

_AMOUNT = re.compile(r"[0-9]{1,18}")
"""A ``cbr`` amount: a whole number of chips, below 10**18 (no table holds more)."""


def loads(text: str) -> PhhHand:
    """Parse one PHH hand; raises :class:`PhhFormatError` naming the bad field."""
    return _from_fields(_toml(text))


def loads_all(text: str) -> list[PhhHand]:
    """Parse a ``.phhs`` document (tables of hands) or a single hand."""
    fields = _toml(text)
    if "variant" in fields or not fields or not all(isinstance(v, dict) for v in fields.values()):
        return [_from_fields(fields)]
    hands = []
    for key, table in fields.items():
        try:
            hands.append(_from_fields(table))
        except PhhFormatError as exc:
            raise exc.within(f"[{key}].") from None
    return hands


def _toml(text: str) -> dict[str, Any]:
    """The TOML document; a parse error, an integer too long to read (Python's 4300-digit limit) or
    arrays and tables nested too deep for the parser's recursion are the field ``toml``."""
    try:
        return tomllib.loads(text)
    except ValueError as exc:  # tomllib.TOMLDecodeError, or int() refusing a huge integer
        raise PhhFormatError("toml", str(exc)) from None
    except RecursionError:
        raise PhhFormatError("toml", "arrays or tables nested too deeply") from None


def _from_fields(fields: dict[str, Any]) -> PhhHand:
    code = fields.get("variant")
    if not isinstance(code, str):
        raise PhhFormatError("variant", "missing or not a string")
    if code not in PHH_CODES:
        known = ", ".join(PHH_CODES)
        raise PhhFormatError("variant", f"unsupported variant {code!r}; tablestorm plays {known}")
    mark = fields.get("_variant_extension")
    if mark is not None and mark != EXTENSION_MARK:
        raise PhhFormatError("_variant_extension", f"unknown mark {mark!r} (expected {EXTENSION_MARK!r})")
    game, structure = PHH_CODES[code]
    variant = VARIANTS[game]

    raw_stacks = fields.get("starting_stacks")
    if not isinstance(raw_stacks, list):
        raise PhhFormatError("starting_stacks", "missing or not an array")
    n = len(raw_stacks)
    if not 2 <= n <= variant.max_players:
        raise PhhFormatError(
            "starting_stacks", f"{code} is played by 2 to {variant.max_players} players, not {n}"
        )
    phh_stacks = [_check_int(f"starting_stacks[{k}]", v, minimum=1) for k, v in enumerate(raw_stacks)]

    # Player order: stud keeps PHH order (p1 is dealt first); draw puts the players back in seat
    # order with the button (pN) where ``seats`` says.
    order = list(range(n))
    button = -1
    if not variant.is_stud:
        button = n - 1
        if "seats" in fields:
            seat_numbers = _get_ints(fields, "seats", n)
            if len(set(seat_numbers)) != n:
                raise PhhFormatError("seats", "two players share a seat")
            by_seat = sorted(range(n), key=seat_numbers.__getitem__)  # engine order -> PHH index
            start = by_seat.index(0)
            if by_seat[start:] + by_seat[:start] != list(range(n)):
                raise PhhFormatError("seats", "the players must sit clockwise from p1 (left of the button)")
            order = [by_seat.index(k) for k in range(n)]
            button = order[n - 1]
    stacks = [0] * n
    for k, engine in enumerate(order):
        stacks[engine] = phh_stacks[k]

    antes = _get_ints(fields, "antes", n) if "antes" in fields else [0] * n
    blinds: tuple[BlindPost, ...] | None = None
    if variant.is_stud:
        blinds_or_straddles = fields.get("blinds_or_straddles", [])
        if not isinstance(blinds_or_straddles, list) or any(blinds_or_straddles):
            raise PhhFormatError("blinds_or_straddles", "stud games have no blinds")
        if len(set(antes)) > 1:
            raise PhhFormatError("antes", "stud antes must be the same for every player")
        stakes = Stakes(
            small_bet=_get_int(fields, "small_bet", minimum=1),
            big_bet=_get_int(fields, "big_bet", minimum=1),
            ante=antes[0],
            bring_in=_get_int(fields, "bring_in", minimum=1),
        )
    else:
        if "bring_in" in fields:
            raise PhhFormatError("bring_in", "the draw game has blinds, not a bring-in")
        live = _get_ints(fields, "blinds_or_straddles", n)
        if n == 2:
            live.reverse()
            antes = antes[::-1]
        small_blind, big_blind = (live[1], live[0]) if n == 2 else (live[0], live[1])
        posts = fields.get("_blind_posts")
        if posts is not None:
            blinds = _blind_posts(posts, order, n)
            small_blind, big_blind = _blind_stakes(blinds, live, antes, order)
        if structure is Structure.FIXED_LIMIT:
            small_bet = _get_int(fields, "small_bet", minimum=1)
            big_bet = _get_int(fields, "big_bet", minimum=1)
            if "min_bet" in fields:
                raise PhhFormatError("min_bet", "a fixed-limit game has small_bet and big_bet, not min_bet")
        else:
            small_bet = big_bet = 0
            min_bet = _get_int(fields, "min_bet", minimum=1)
            if posts is None and big_blind == 0:
                big_blind = min_bet
            if min_bet != big_blind:
                raise PhhFormatError("min_bet", f"must equal the big blind ({big_blind}): BET-4")
        if posts is None:
            expected_dead = [0] * n
            if antes != expected_dead:
                raise PhhFormatError("antes", "dead blinds need _blind_posts (DRAW-6)")
            if any(v for k, v in enumerate(live) if k > 1):
                raise PhhFormatError("blinds_or_straddles", "only a small and a big blind (or _blind_posts)")
        stakes = Stakes(
            small_bet=small_bet,
            big_bet=big_bet,
            small_blind=small_blind,
            big_blind=big_blind,
        )

    if not _get_bool(fields, "ante_trimming_status", False) and any(s < stakes.ante for s in stacks):
        raise PhhFormatError(
            "ante_trimming_status",
            "a stack below the ante needs ante_trimming_status = true (tablestorm trims antes, BET-7)",
        )
    clock = fields.get("time_limit", 10.0)
    if isinstance(clock, bool) or not isinstance(clock, int | float) or not 0 < clock < math.inf:
        raise PhhFormatError("time_limit", f"expected a positive number of seconds, got {clock!r}")
    seat_count = fields.get("seat_count", 0)
    if isinstance(seat_count, bool) or not isinstance(seat_count, int):
        raise PhhFormatError("seat_count", f"expected an integer, got {seat_count!r}")
    max_seats = seat_count if n <= seat_count <= variant.max_players else 0
    open_pair = _get_bool(fields, "_open_pair", False)
    heads_up_uncapped = _get_bool(fields, "_heads_up_uncapped", False)
    cap = _get_int(fields, "_cap", minimum=2, default=4)
    buy_in = _get_int(fields, "_buy_in", default=0)
    try:
        options = TableOptions(
            variant,
            stakes,
            structure=structure,
            open_pair=open_pair if variant.is_stud else None,
            heads_up_uncapped=heads_up_uncapped,
            cap=cap,
            clock_seconds=float(clock),
            max_seats=max_seats,
            buy_in=buy_in,
        )
    except FieldError as exc:  # the engine names its option; PHH spells some of them otherwise
        raise PhhFormatError(_OPTION_FIELDS.get(exc.field, exc.field.removeprefix("stakes.")), str(exc)) from None

    hand_number = fields.get("hand")
    if hand_number is not None and (isinstance(hand_number, bool) or not isinstance(hand_number, int | str)):
        raise PhhFormatError("hand", f"expected a hand number or name, got {hand_number!r}")
    finishing = tuple(_get_ints(fields, "finishing_stacks", n)) if "finishing_stacks" in fields else None
    steps, script, dealt_by, outcomes = _parse_actions(fields, variant, order, n)
    return PhhHand(
        code=code,
        options=options,
        stacks=tuple(stacks),
        button=button,
        blinds=blinds,
        script=script,
        dealt_by=dealt_by,
        steps=tuple(steps),
        order=tuple(order),
        timeout_outcomes=outcomes,
        hand_number=hand_number,
        finishing_stacks=finishing,
        fields=fields,
    )


def _label_index(where: str, text: str, n: int) -> int:
    found = _PLAYER.match(text)
    if found is None or int(found.group(1)) > n:
        raise PhhFormatError(where, f"{text!r} is not a player (p1..p{n})")
    return int(found.group(1)) - 1


def _blind_posts(raw: object, order: list[int], n: int) -> tuple[BlindPost, ...]:
    if not isinstance(raw, list):
        raise PhhFormatError("_blind_posts", "expected an array of tables")
    posts = []
    for k, item in enumerate(raw):
        where = f"_blind_posts[{k}]"
        if not isinstance(item, dict):
            raise PhhFormatError(where, "expected a table {player, kind, amount, live}")
        player = item.get("player")
        if not isinstance(player, str):
            raise PhhFormatError(where, "player must be a label such as \"p2\"")
        kind = item.get("kind")
        if kind not in _BLIND_KINDS:
            raise PhhFormatError(where, f"kind must be one of {', '.join(_BLIND_KINDS)}")
        live = item.get("live", kind != "dead_small_blind")
        if not isinstance(live, bool):
            raise PhhFormatError(where, "live must be true or false")
        amount = _check_int(f"{where}.amount", item.get("amount"), minimum=1)
        posts.append(BlindPost(order[_label_index(where, player, n)], str(kind), amount, live))
    return tuple(posts)


def _blind_stakes(
    posts: Sequence[BlindPost], live: list[int], dead: list[int], order: list[int]
) -> tuple[int, int]:
    """The table's blinds when the posts are irregular: the nominal amounts of the arrays."""
    phh_of = {engine: k for k, engine in enumerate(order)}
    small = big = 0
    for post in posts:
        k = phh_of[post.player]
        if post.kind == "big_blind":
            big = max(big, live[k], post.amount)
        elif post.kind == "small_blind":
            small = max(small, live[k], post.amount)
        else:
            small = max(small, dead[k], post.amount)
    return small, big


def _parse_actions(
    fields: Mapping[str, Any], variant: Variant, order: list[int], n: int
) -> tuple[list[Step], dict[int, list[Card]], dict[int, list[int]], dict[int, str]]:
    raw = fields.get("actions")
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise PhhFormatError("actions", "missing or not an array of strings")
    timeouts = _timeouts(fields.get("_timeouts"), len(raw), n)
    script: dict[int, list[Card]] = {}
    dealt_by: dict[int, list[int]] = {}
    steps: list[Step] = []
    outcomes: dict[int, str] = {}
    for index, text in enumerate(raw):
        where = f"actions[{index}]"
        words = text.split("#", 1)[0].split()
        if index in timeouts:
            phh_player, outcome = timeouts[index]
            player = order[phh_player]
            if words and words[0] != f"p{phh_player + 1}":
                raise PhhFormatError(where, f"_timeouts names p{phh_player + 1} but the action is {text!r}")
            if words[1:2] == ["sd"] and len(words) > 2:
                raise PhhFormatError(where, "a timed-out player stands pat (CLOCK-2), discards nothing")
            steps.append(Step(index, text, player, Action(ActionKind.TIMEOUT)))
            if outcome is not None:
                outcomes[index] = outcome
            continue
        if not words:
            steps.append(Step(index, text, -1, None))
            continue
        if words[0] == "d":
            if len(words) == 4 and words[1] == "dh":
                player = order[_label_index(where, words[2], n)]
                cards = _parse_cards(where, words[3])
            elif len(words) == 3 and words[1] == "db":
                player = -1
                cards = _parse_cards(where, words[2])
                if not variant.is_stud or len(cards) != 1 or -1 in script:
                    raise PhhFormatError(where, "the only board card is the STUD-7 community card")
            else:
                raise PhhFormatError(where, f"bad dealer action {text!r} (d dh pN cards, d db card)")
            script.setdefault(player, []).extend(cards)
            dealt_by.setdefault(player, []).extend([index] * len(cards))
            steps.append(Step(index, text, -1, None))
            continue
        player = order[_label_index(where, words[0], n)]
        verb, args = (words[1], words[2:]) if len(words) > 1 else ("", [])
        action: Action | None
        if verb in ("f", "cc", "pb") and not args:
            action = Action({"f": ActionKind.FOLD, "cc": ActionKind.CALL, "pb": ActionKind.BRING_IN}[verb])
        elif verb == "cbr" and len(args) == 1:
            if not _AMOUNT.fullmatch(args[0]):
                raise PhhFormatError(where, f"bad amount {args[0]!r} (a whole number of chips)")
            action = Action(ActionKind.RAISE, int(args[0]))
        elif verb == "sd" and len(args) <= 1:
            if variant.is_stud:
                raise PhhFormatError(where, "stud has no draw")
            discard = _parse_cards(where, args[0]) if args else []
            action = Action(ActionKind.DRAW, discard=tuple(discard))
        elif verb == "sm" and len(args) <= 1:
            if args and args[0] != "-":
                _parse_cards(where, args[0])
            action = None  # the engine decides the showdown itself (SHOW-1)
        else:
            raise PhhFormatError(
                where, f"bad player action {text!r} (f, cc, cbr N, pb, sd [cards], sm [cards])"
            )
        steps.append(Step(index, text, player if action is not None else -1, action))
    return steps, script, dealt_by, outcomes


def _timeouts(raw: object, count: int, n: int) -> dict[int, tuple[int, str | None]]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise PhhFormatError("_timeouts", "expected an array of tables {action, player, outcome}")
    out: dict[int, tuple[int, str | None]] = {}
    outcomes = {o.value for o in TimeoutOutcome}
    for k, item in enumerate(raw):
        where = f"_timeouts[{k}]"
        if not isinstance(item, dict):
            raise PhhFormatError(where, "expected a table {action, player, outcome}")
        index = _check_int(f"{where}.action", item.get("action"))
        if index >= count:
            raise PhhFormatError(f"{where}.action", f"there is no action {index}")
        player = item.get("player")
        if not isinstance(player, str):
            raise PhhFormatError(where, "player must be a label such as \"p2\"")
        outcome = item.get("outcome")
        if outcome is not None and (not isinstance(outcome, str) or outcome not in outcomes):
            raise PhhFormatError(f"{where}.outcome", f"must be one of {', '.join(sorted(outcomes))}")
        out[index] = (_label_index(where, player, n), outcome)
    return out
