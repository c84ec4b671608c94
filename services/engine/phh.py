"""PHH (Poker Hand History, the phh-std TOML format): export a finished hand, read one back, replay it.

:func:`dumps` writes any finished :class:`Hand` as PHH text; :func:`loads` parses PHH text into a
:class:`PhhHand` (table options, stacks, the cards each player receives, the action list) and
:func:`replay` plays it through the engine again. Pure functions of ``str``: no files, no clocks.
``docs/phh.md`` describes the mapping; in short:

* Variant codes: the standard ``F7S`` and ``F7S/8``, and tablestorm extensions ``F5S`` (Five Card
  Stud) and ``F7A1D``/``P7A1D``/``N7A1D`` (Seven-to-Ace single draw, fixed/pot/no limit), flagged by
  the user field ``_variant_extension = "tablestorm"``.
* Player order: stud players are in seat order (``p1`` is dealt first, STUD-1); draw players start
  left of the button, so ``pN`` is the button (PHH's convention). ``seats`` records the seat of
  each player, which lets :func:`loads` put the players back in table order.
* Per-table options PHH lacks are ``_``-prefixed user fields: ``_open_pair`` (STUD-5),
  ``_heads_up_uncapped`` (BET-3), ``_cap`` (BET-2), ``_blind_posts`` (irregular blinds, DRAW-6),
  ``_timeouts`` (CLOCK-2); the clock itself is the standard ``time_limit``.
* An absent option means what standard PHH means: no open pair, cap always applies, 4 bets.

Every chip amount is an integer. Unknown cards (``??``) cannot be replayed: the engine needs every
card to reach the showdown it recorded.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import AGGRESSIVE, Action, ActionKind, IllegalAction, TimeoutOutcome
from .cards import Card, card_str, parse_card
from .deck import ScriptedDeck, ScriptExhausted
from .events import (
    Acted,
    CardsDealt,
    CommunityCard,
    Drew,
    ForcedBet,
    HandMucked,
    HandShown,
    PotAwarded,
    Reshuffled,
    RoundStarted,
    TimedOut,
)
from .hand import BlindPost, Hand, default_blinds
from .shuffle import SeededShuffler
from .variants import VARIANTS, Stakes, Structure, TableOptions, Variant

__all__ = [
    "EXTENSION_CODES",
    "PHH_CODES",
    "PhhError",
    "PhhFormatError",
    "PhhHand",
    "ReplayError",
    "Step",
    "dumps",
    "dumps_all",
    "loads",
    "loads_all",
    "phh_code",
    "replay",
]

PHH_CODES: dict[str, tuple[str, Structure]] = {
    "F7S": ("7stud", Structure.FIXED_LIMIT),
    "F7S/8": ("7stud8", Structure.FIXED_LIMIT),
    "F5S": ("5stud", Structure.FIXED_LIMIT),
    "F7A1D": ("7a5draw", Structure.FIXED_LIMIT),
    "P7A1D": ("7a5draw", Structure.POT_LIMIT),
    "N7A1D": ("7a5draw", Structure.NO_LIMIT),
}
"""PHH variant code -> (tablestorm game code, betting structure)."""

EXTENSION_CODES = frozenset({"F5S", "F7A1D", "P7A1D", "N7A1D"})
"""Codes tablestorm defines (phh-std has no Five Card Stud or Seven-to-Ace draw)."""

EXTENSION_MARK = "tablestorm"
"""Value of ``_variant_extension`` in a hand whose variant code is one of EXTENSION_CODES."""

_CODE_OF = {value: code for code, value in PHH_CODES.items()}

_BLIND_KINDS = ("small_blind", "big_blind", "dead_small_blind")


def phh_code(variant: Variant, structure: Structure) -> str:
    """The PHH variant code of a game and structure (``F7S``, ``N7A1D``...)."""
    try:
        return _CODE_OF[variant.code, structure]
    except KeyError:
        raise ValueError(f"no PHH code for {variant.name} in {structure.value}") from None


# --------------------------------------------------------------------------- errors


class PhhError(ValueError):
    """Base class of the errors :func:`loads` and :func:`replay` raise."""


class PhhFormatError(PhhError):
    """The text is not a PHH hand tablestorm can replay; ``field`` names the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class ReplayError(PhhError):
    """An action of the history is illegal for the engine (or out of turn).

    ``index`` is the action's position in ``actions`` (-1 when the history ends early) and
    ``text`` the action as written; ``reason`` is the engine's IllegalAction message with player
    indices written as PHH labels.
    """

    def __init__(self, index: int, text: str, reason: str) -> None:
        where = f"action {index} {text!r}" if index >= 0 else "the history"
        super().__init__(f"{where}: {reason}")
        self.index = index
        self.text = text
        self.reason = reason


# --------------------------------------------------------------------------- TOML writing


def _toml_str(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value} to PHH")
        return repr(value)
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to PHH")


def _cards(cards: Sequence[Card]) -> str:
    return "".join(card_str(c) for c in cards)


# --------------------------------------------------------------------------- export

_STREET_NAMES = {
    "7stud": ("3rd street", "4th street", "5th street", "6th street", "7th street"),
    "7stud8": ("3rd street", "4th street", "5th street", "6th street", "7th street"),
    "5stud": ("2nd street", "3rd street", "4th street", "5th street"),
    "7a5draw": ("deal", "draw"),
}


def _phh_order(hand: Hand) -> list[int]:
    """Engine player index of each PHH player: seat order in stud, from the button's left in draw."""
    n = hand.n
    if hand.button < 0:
        return list(range(n))
    return [(hand.button + 1 + k) % n for k in range(n)]


def _forced_bets(hand: Hand) -> list[ForcedBet]:
    return [e for e in hand.events if isinstance(e, ForcedBet)]


def _regular_blinds(hand: Hand) -> bool:
    """Whether the hand's blinds are :func:`default_blinds` (as clipped by short stacks)."""
    expected = []
    for post in default_blinds(hand.options, hand.n, hand.button):
        amount = min(post.amount, hand.starting_stacks[post.player])
        if amount > 0:
            expected.append((post.player, post.kind, amount, post.live))
    actual = [(e.player, e.kind, e.amount, e.live) for e in _forced_bets(hand) if e.kind != "ante"]
    return expected == actual


def dumps(
    hand: Hand,
    *,
    players: Sequence[str] | None = None,
    seats: Sequence[int] | None = None,
    hand_number: int | str | None = None,
    table: int | str | None = None,
    comments: bool = True,
) -> str:
    """The PHH text of a finished hand.

    ``players`` and ``seats`` are given in the engine's player order (seat order); ``seats``
    defaults to ``1..n`` and must increase. ``comments`` adds TOML comments naming the streets.
    """
    if not hand.is_over:
        raise ValueError("only a finished hand can be exported to PHH")
    options = hand.options
    variant = options.variant
    stakes = options.stakes
    n = hand.n
    code = phh_code(variant, options.structure)
    order = _phh_order(hand)
    phh_of = {engine: k for k, engine in enumerate(order)}

    def label(player: int) -> str:
        return f"p{phh_of[player] + 1}"

    if seats is None:
        seats = list(range(1, n + 1))
    if len(seats) != n or any(b <= a for a, b in itertools.pairwise(seats)) or seats[0] < 1:
        raise ValueError("seats must be n increasing seat numbers from 1, in player order")
    if players is not None and len(players) != n:
        raise ValueError("players must name every player")

    head: list[tuple[str, object]] = [("variant", code)]
    if code in EXTENSION_CODES:
        head.append(("_variant_extension", EXTENSION_MARK))
    head.append(("ante_trimming_status", True))  # BET-7: a short ante contests only what it matched
    if variant.is_stud:
        head += [
            ("antes", [stakes.ante] * n),
            ("bring_in", stakes.bring_in),
            ("small_bet", stakes.small_bet),
            ("big_bet", stakes.big_bet),
        ]
    else:
        live = [0] * n
        dead = [0] * n
        for bet in _forced_bets(hand):
            nominal = stakes.big_blind if bet.kind == "big_blind" else stakes.small_blind
            if bet.live:
                live[phh_of[bet.player]] = max(live[phh_of[bet.player]], nominal)
            else:
                dead[phh_of[bet.player]] += nominal
        if n == 2:  # PHH lists heads-up forced bets reversed
            live.reverse()
            dead.reverse()
        head += [("antes", dead), ("blinds_or_straddles", live)]
        if options.structure is Structure.FIXED_LIMIT:
            head += [("small_bet", stakes.small_bet), ("big_bet", stakes.big_bet)]
        else:
            head.append(("min_bet", stakes.big_blind))
    head.append(("starting_stacks", [hand.starting_stacks[p] for p in order]))

    actions, comment_at, timeouts = _actions(hand, label)

    tail: list[tuple[str, object]] = []
    if hand_number is not None:
        tail.append(("hand", hand_number))
    if table is not None:
        tail.append(("table", table))
    tail.append(("seats", [seats[p] for p in order]))
    tail.append(("seat_count", options.seats))
    if players is not None:
        tail.append(("players", [players[p] for p in order]))
    tail.append(("finishing_stacks", [hand.stacks[p] for p in order]))
    won = [0] * n
    for event in hand.events:
        if isinstance(event, PotAwarded):
            won[phh_of[event.player]] += event.amount
    tail.append(("winnings", won))
    tail.append(("time_limit", options.clock_seconds))
    if variant.is_stud:
        tail.append(("_open_pair", options.open_pair_active))
    tail.append(("_heads_up_uncapped", options.heads_up_uncapped))
    tail.append(("_cap", options.cap))
    if options.buy_in:
        tail.append(("_buy_in", options.buy_in))
    if not variant.is_stud and not _regular_blinds(hand):
        tail.append((
            "_blind_posts",
            [
                {"player": label(e.player), "kind": e.kind, "amount": e.amount, "live": e.live}
                for e in _forced_bets(hand)
                if e.kind != "ante"
            ],
        ))
    if timeouts:
        tail.append(("_timeouts", timeouts))

    lines = [f"# tablestorm: {variant.name}, {options.structure.value.replace('_', ' ')}"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in head]
    lines.append("actions = [")
    for k, text in enumerate(actions):
        if comments and k in comment_at:
            lines.append(f"  # {comment_at[k]}")
        lines.append(f"  {_toml_str(text)},")
    lines.append("]")
    lines += [f"{key} = {_toml_value(value)}" for key, value in tail]
    return "\n".join(lines) + "\n"


def _actions(
    hand: Hand, label: Callable[[int], str]
) -> tuple[list[str], dict[int, str], list[dict[str, object]]]:
    """The PHH action strings, the street comment before some of them, and the CLOCK-2 timeouts."""
    variant = hand.options.variant
    stud = variant.is_stud
    names = _STREET_NAMES.get(variant.code, ())
    events = hand.events
    actions: list[str] = []
    comment_at: dict[int, str] = {}
    timeouts: list[dict[str, object]] = []

    # Showdown order (SHOW-2) and when it happens. PHH (and PokerKit) show hands as soon as no more
    # betting is possible in stud, before the remaining cards; a down card dealt after that needs a
    # second showing.
    reveal = [e for e in events if isinstance(e, HandShown | HandMucked)]
    show_street = -1
    if stud and reveal:
        closed = [e.street for e in events if isinstance(e, RoundStarted) and e.first < 0]
        if closed:
            show_street = max(closed[0], 1)
    dealt: dict[int, list[Card]] = {i: [] for i in range(hand.n)}
    shown: dict[int, int] = {}
    down_since: dict[int, bool] = {}
    live = set(range(hand.n))
    pending_deals: list[str] = []
    pending_timeout: TimedOut | None = None
    street = -1

    def flush_deals() -> None:
        actions.extend(pending_deals)
        pending_deals.clear()

    def new_street(s: int) -> None:
        nonlocal street
        if s != street:
            street = s
            if s < len(names):
                comment_at.setdefault(len(actions), names[s])

    def mark_timeout(player: int, outcome: TimeoutOutcome) -> None:
        timeouts.append({"action": len(actions), "player": label(player), "outcome": outcome.value})

    def show_all_live() -> None:
        comment_at.setdefault(len(actions), "showdown (no more betting)")
        for shown_event in reveal:
            p = shown_event.player
            if p in live:
                actions.append(f"{label(p)} sm {_cards(dealt[p])}")
                shown[p] = len(dealt[p])
                down_since[p] = False

    for event in events:
        if not isinstance(event, Drew | TimedOut | Reshuffled):
            flush_deals()
        if isinstance(event, CardsDealt | CommunityCard):
            if event.street == show_street:
                show_all_live()
                show_street = -1
            new_street(event.street)
            if isinstance(event, CardsDealt):
                cards = event.down + event.up
                dealt[event.player] += cards
                if event.down and event.player in shown:
                    down_since[event.player] = True
                actions.append(f"d dh {label(event.player)} {_cards(cards)}")
            else:
                actions.append(f"d db {card_str(event.card)}")
        elif isinstance(event, TimedOut):
            if event.outcome is TimeoutOutcome.ALL_IN:
                mark_timeout(event.player, event.outcome)
                actions.append(f"# {label(event.player)} timed out: all-in for what is already in (CLOCK-2)")
            else:
                pending_timeout = event
        elif isinstance(event, Drew):
            if pending_timeout is not None:
                mark_timeout(pending_timeout.player, pending_timeout.outcome)
                pending_timeout = None
            who = label(event.player)
            new_street(_draw_street(variant))
            actions.append(f"{who} sd {_cards(event.discarded)}".rstrip())
            dealt[event.player] = [c for c in dealt[event.player] if c not in event.discarded]
            if event.drawn:
                dealt[event.player] += event.drawn
                pending_deals.append(f"d dh {who} {_cards(event.drawn)}")
        elif isinstance(event, Acted):
            if pending_timeout is not None:
                mark_timeout(pending_timeout.player, pending_timeout.outcome)
                pending_timeout = None
            who = label(event.player)
            act = event.kind
            if act is ActionKind.FOLD:
                live.discard(event.player)
                actions.append(f"{who} f")
            elif act is ActionKind.CHECK or act is ActionKind.CALL:
                actions.append(f"{who} cc")
            elif act is ActionKind.BRING_IN:
                actions.append(f"{who} pb")
            elif act in AGGRESSIVE:
                actions.append(f"{who} cbr {event.to}")
            else:  # pragma: no cover - the engine records no other kind
                raise AssertionError(f"unexpected action {act}")
    flush_deals()

    final = [e for e in reveal if e.player not in shown or down_since.get(e.player, False)]
    if final:
        comment_at.setdefault(len(actions), "showdown")
    for e in final:
        if isinstance(e, HandShown):
            actions.append(f"{label(e.player)} sm {_cards(dealt[e.player])}")
        else:
            actions.append(f"{label(e.player)} sm")
    return actions, comment_at, timeouts


def _draw_street(variant: Variant) -> int:
    return next(k for k, s in enumerate(variant.streets) if s.draw)


def dumps_all(hands: Sequence[str]) -> str:
    """Several PHH texts as one ``.phhs`` document: tables ``[1]``, ``[2]``..."""
    return "\n".join(f"[{k}]\n{text}" for k, text in enumerate(hands, 1))


# --------------------------------------------------------------------------- import


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

    ``order[k]`` is the engine player index of PHH player ``p{k+1}``; ``stacks`` and ``script``
    are indexed by engine player (``script[-1]`` holds the STUD-7 community card).
    """

    code: str
    options: TableOptions
    stacks: tuple[int, ...]
    button: int
    blinds: tuple[BlindPost, ...] | None
    script: dict[int, list[Card]]
    steps: tuple[Step, ...]
    order: tuple[int, ...]
    timeout_outcomes: dict[int, str] = field(default_factory=dict)
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.stacks)

    def label(self, player: int) -> str:
        return f"p{self.order.index(player) + 1}"

    def in_phh_order(self, values: Sequence[int]) -> list[int]:
        """Per-engine-player values (stacks...) re-ordered as the PHH players."""
        return [values[p] for p in self.order]

    def new_hand(self) -> Hand:
        """The hand dealt as the history says, before any player action."""
        deck = ScriptedDeck(self.options.variant.deck_rule(self.n).cards, self.script)
        return Hand(
            self.options,
            list(self.stacks),
            SeededShuffler(0, "phh", 0),
            button=max(self.button, 0),
            blinds=list(self.blinds) if self.blinds is not None else None,
            deck=deck,
        )


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


def _get_ints(fields: Mapping[str, Any], name: str, n: int, *, minimum: int = 0) -> list[int]:
    value = fields.get(name)
    if value is None:
        raise PhhFormatError(name, "missing (required for this variant)")
    if not isinstance(value, list):
        raise PhhFormatError(name, f"expected an array, got {value!r}")
    if len(value) != n:
        raise PhhFormatError(name, f"expected {n} values (one per player), got {len(value)}")
    return [_check_int(f"{name}[{k}]", v, minimum=minimum) for k, v in enumerate(value)]


def _get_bool(fields: Mapping[str, Any], name: str, default: bool) -> bool:
    value = fields.get(name, default)
    if not isinstance(value, bool):
        raise PhhFormatError(name, f"expected true or false, got {value!r}")
    return value


def _parse_cards(where: str, text: str, deck: frozenset[Card], code: str) -> list[Card]:
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
        if card not in deck:
            raise PhhFormatError(where, f"{chunk} is not in the deck of {code}")
        cards.append(card)
    return cards


_PLAYER = re.compile(r"p([1-9][0-9]*)\Z")


def loads(text: str) -> PhhHand:
    """Parse one PHH hand; raises :class:`PhhFormatError` naming the bad field."""
    try:
        fields = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhFormatError("toml", str(exc)) from None
    return _from_fields(fields)


def loads_all(text: str) -> list[PhhHand]:
    """Parse a ``.phhs`` document (tables of hands) or a single hand."""
    try:
        fields = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhFormatError("toml", str(exc)) from None
    if "variant" in fields or not fields or not all(isinstance(v, dict) for v in fields.values()):
        return [_from_fields(fields)]
    hands = []
    for key, table in fields.items():
        try:
            hands.append(_from_fields(table))
        except PhhFormatError as exc:
            raise PhhFormatError(f"[{key}].{exc.field}", exc.message) from None
    return hands


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
            seat_numbers = _get_ints(fields, "seats", n, minimum=0)
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
        if "blinds_or_straddles" in fields and any(fields["blinds_or_straddles"] or ()):
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
    except ValueError as exc:
        raise PhhFormatError(_stakes_field(str(exc)), str(exc)) from None

    steps, script, outcomes = _parse_actions(fields, variant, code, order, n)
    return PhhHand(
        code=code,
        options=options,
        stacks=tuple(stacks),
        button=button,
        blinds=blinds,
        script=script,
        steps=tuple(steps),
        order=tuple(order),
        timeout_outcomes=outcomes,
        fields=fields,
    )


def _stakes_field(message: str) -> str:
    found = re.search(r"stakes\.(\w+)", message)
    if found is None:
        return "variant" if "structure" in message else "options"
    return {
        "ante": "antes",
        "small_blind": "blinds_or_straddles",
        "big_blind": "blinds_or_straddles",
    }.get(found.group(1), found.group(1))


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
    fields: Mapping[str, Any], variant: Variant, code: str, order: list[int], n: int
) -> tuple[list[Step], dict[int, list[Card]], dict[int, str]]:
    raw = fields.get("actions")
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise PhhFormatError("actions", "missing or not an array of strings")
    timeouts = _timeouts(fields.get("_timeouts"), len(raw), n)
    deck = frozenset(variant.deck_rule(n).cards)
    script: dict[int, list[Card]] = {}
    held: set[Card] = set()
    seen: set[Card] = set()
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
                cards = _parse_cards(where, words[3], deck, code)
                for card in cards:
                    if card in held or (variant.is_stud and card in seen):
                        raise PhhFormatError(where, f"{card_str(card)} is dealt twice")
                    held.add(card)
                    seen.add(card)
                script.setdefault(player, []).extend(cards)
            elif len(words) == 3 and words[1] == "db":
                cards = _parse_cards(where, words[2], deck, code)
                if not variant.is_stud or len(cards) != 1 or -1 in script:
                    raise PhhFormatError(where, "the only board card is the STUD-7 community card")
                if cards[0] in seen:
                    raise PhhFormatError(where, f"{card_str(cards[0])} is dealt twice")
                seen.add(cards[0])
                script[-1] = cards
            else:
                raise PhhFormatError(where, f"bad dealer action {text!r} (d dh pN cards, d db card)")
            steps.append(Step(index, text, -1, None))
            continue
        player = order[_label_index(where, words[0], n)]
        verb, args = (words[1], words[2:]) if len(words) > 1 else ("", [])
        action: Action | None
        if verb in ("f", "cc", "pb") and not args:
            action = Action({"f": ActionKind.FOLD, "cc": ActionKind.CALL, "pb": ActionKind.BRING_IN}[verb])
        elif verb == "cbr" and len(args) == 1:
            if not re.fullmatch(r"[0-9]+", args[0]):
                raise PhhFormatError(where, f"bad amount {args[0]!r} (a whole number of chips)")
            action = Action(ActionKind.RAISE, int(args[0]))
        elif verb == "sd" and len(args) <= 1:
            if variant.is_stud:
                raise PhhFormatError(where, "stud has no draw")
            discard = _parse_cards(where, args[0], deck, code) if args else []
            for card in discard:
                held.discard(card)
            action = Action(ActionKind.DRAW, discard=tuple(discard))
        elif verb == "sm" and len(args) <= 1:
            if args and args[0] != "-":
                _parse_cards(where, args[0], deck, code)
            action = None  # the engine decides the showdown itself (SHOW-1)
        else:
            raise PhhFormatError(
                where, f"bad player action {text!r} (f, cc, cbr N, pb, sd [cards], sm [cards])"
            )
        steps.append(Step(index, text, player if action is not None else -1, action))
    return steps, script, outcomes


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
        if outcome is not None and outcome not in outcomes:
            raise PhhFormatError(f"{where}.outcome", f"must be one of {', '.join(sorted(outcomes))}")
        out[index] = (_label_index(where, player, n), outcome)
    return out


# --------------------------------------------------------------------------- replay

_ENGINE_PLAYER = re.compile(r"\bplayer (\d+)\b")


def replay(phh: PhhHand, *, until: int | None = None) -> Hand:
    """Play the history through the engine; returns the finished hand.

    Raises :class:`ReplayError` for an illegal or out-of-turn action (or a history that ends
    before the hand), :class:`PhhFormatError` when the dealt cards do not fit the game.
    With ``until``, stops before the action of that index and returns the hand in progress.
    """

    def labelled(message: str) -> str:
        return _ENGINE_PLAYER.sub(lambda m: phh.label(int(m.group(1))), message)

    try:
        hand = phh.new_hand()
        for step in phh.steps:
            if until is not None and step.index >= until:
                return hand
            if step.action is None:
                continue
            if hand.actor < 0:
                raise ReplayError(step.index, step.text, "the hand is already over")
            if hand.actor != step.player:
                raise ReplayError(
                    step.index,
                    step.text,
                    f"it is {phh.label(hand.actor)}'s turn, not {phh.label(step.player)}'s",
                )
            action = step.action
            if action.kind is ActionKind.RAISE:  # PHH's cbr: complete, bet or raise, whichever is open
                action = _cbr(hand, action.amount)
            elif action.kind is ActionKind.CALL and not any(
                legal.kind is ActionKind.CALL for legal in hand.legal_actions()
            ):
                action = Action(ActionKind.CHECK)
            try:
                hand.apply(action)
            except IllegalAction as exc:
                raise ReplayError(step.index, step.text, labelled(str(exc))) from None
            expected = phh.timeout_outcomes.get(step.index)
            if expected is not None:
                got = next(e for e in reversed(hand.events) if isinstance(e, TimedOut))
                if got.outcome.value != expected:
                    raise ReplayError(
                        step.index, step.text, f"the timeout's outcome is {got.outcome.value}, not {expected}"
                    )
    except ScriptExhausted as exc:
        who = phh.label(exc.player)
        raise PhhFormatError("actions", f"the history deals {who} fewer cards than the game does") from None
    if hand.actor >= 0:
        raise ReplayError(-1, "", f"it ends before the hand does ({phh.label(hand.actor)} is to act)")
    _check_cards_used(phh, hand)
    return hand


def _cbr(hand: Hand, amount: int) -> Action:
    for legal in hand.legal_actions():
        if legal.kind in AGGRESSIVE:
            return Action(legal.kind, amount)
    return Action(ActionKind.RAISE, amount)  # the engine says why it is not open


def _check_cards_used(phh: PhhHand, hand: Hand) -> None:
    received: dict[int, list[Card]] = {}
    for event in hand.events:
        if isinstance(event, CardsDealt):
            received.setdefault(event.player, []).extend(event.down + event.up)
        elif isinstance(event, Drew):
            received.setdefault(event.player, []).extend(event.drawn)
        elif isinstance(event, CommunityCard):
            received[-1] = [event.card]
    for player, cards in phh.script.items():
        if len(received.get(player, ())) < len(cards):
            who = "the board" if player < 0 else phh.label(player)
            raise PhhFormatError("actions", f"the history deals {who} more cards than the game does")
