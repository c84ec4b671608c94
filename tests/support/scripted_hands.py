"""Scripted hands for the rule tests (tests/test_rules_*.py).

A scripted hand deals exactly the cards it names (``ScriptedDeck``) and plays a compact action
script, checking at every step whose turn it is. Cards are written as in ``parse_cards``:
``"2c 9d 3s 4h"`` lists the cards a player receives, in the order they receive them.

Action script: one string per action, ``"<player> <kind> [amount | cards]"``, e.g.
``"0 bring"``, ``"1 complete 4"``, ``"2 raise 8"``, ``"0 call"``, ``"1 check"``, ``"2 fold"``,
``"3 timeout"``, ``"1 draw 7c 8d"`` (``"1 draw"`` stands pat). The player must be the actor,
so a script also proves the order of action.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from tablestorm.services.engine import (
    FIVE_CARD_STUD,
    SEVEN_CARD_STUD,
    SEVEN_CARD_STUD_HILO,
    SEVEN_TO_ACE_DRAW,
    Action,
    ActionKind,
    Hand,
    LegalAction,
    ScriptedDeck,
    SeededShuffler,
    Stakes,
    Structure,
    TableOptions,
    Variant,
    parse_cards,
)
from tablestorm.services.engine.cards import Card
from tablestorm.services.engine.deck import Deck
from tablestorm.services.engine.events import Event, PotAwarded

__all__ = [
    "DRAW_LIMIT",
    "FIVE_CARD_STUD",
    "SEVEN_CARD_STUD",
    "SEVEN_CARD_STUD_HILO",
    "SEVEN_TO_ACE_DRAW",
    "STUD_STAKES",
    "awards",
    "bounds",
    "draw_hand",
    "events_of",
    "play",
    "stud_hand",
]

STUD_STAKES = Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2)
"""4/8 stud, ante 1, bring-in 2 (half the small bet, the STUD-3 default ratio)."""

DRAW_LIMIT = Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2)
"""2/4 fixed-limit draw: small blind 1, big blind 2 (DRAW-2)."""

DRAW_BLINDS = Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2)
"""Blinds 1/2 for pot-limit and no-limit draw (the big blind is the minimum bet, BET-4)."""

_KINDS = {
    "fold": ActionKind.FOLD,
    "check": ActionKind.CHECK,
    "call": ActionKind.CALL,
    "bring": ActionKind.BRING_IN,
    "complete": ActionKind.COMPLETE,
    "bet": ActionKind.BET,
    "raise": ActionKind.RAISE,
    "draw": ActionKind.DRAW,
    "timeout": ActionKind.TIMEOUT,
}


def _script(cards: Mapping[int, str] | Sequence[str], community: str | None) -> dict[int, list[Card]]:
    items = cards.items() if isinstance(cards, Mapping) else enumerate(cards)
    script = {player: parse_cards(text) for player, text in items}
    if community is not None:
        script[-1] = parse_cards(community)
    every = [c for dealt in script.values() for c in dealt]
    assert len(set(every)) == len(every), "a card is scripted twice"
    return script


def stud_hand(
    cards: Sequence[str],
    *,
    variant: Variant = SEVEN_CARD_STUD,
    stakes: Stakes = STUD_STAKES,
    stacks: Sequence[int] | int = 200,
    community: str | None = None,
    **options: Any,
) -> Hand:
    """A stud hand dealing ``cards[i]`` to player ``i`` (player 0 is seat 1)."""
    n = len(cards)
    table = TableOptions(variant, stakes, **options)
    stack_list = [stacks] * n if isinstance(stacks, int) else list(stacks)
    deck = ScriptedDeck(variant.deck_rule(n).cards, _script(cards, community))
    return Hand(table, stack_list, SeededShuffler(0, "scenario", 0), deck=deck)


def draw_hand(
    cards: Sequence[str],
    *,
    button: int = 0,
    structure: Structure = Structure.FIXED_LIMIT,
    stakes: Stakes = DRAW_LIMIT,
    stacks: Sequence[int] | int = 200,
    deck: Deck | None = None,
    **options: Any,
) -> Hand:
    """A 7-to-Ace draw hand dealing ``cards[i]`` (the five cards, then the cards drawn) to player ``i``."""
    n = len(cards)
    table = TableOptions(SEVEN_TO_ACE_DRAW, stakes, structure=structure, **options)
    stack_list = [stacks] * n if isinstance(stacks, int) else list(stacks)
    if deck is None:
        deck = ScriptedDeck(SEVEN_TO_ACE_DRAW.deck_rule(n).cards, _script(cards, None))
    return Hand(table, stack_list, SeededShuffler(0, "scenario", 0), button=button, deck=deck)


def parse_action(text: str) -> tuple[int, Action]:
    words = text.split()
    player, kind = int(words[0]), _KINDS[words[1]]
    rest = words[2:]
    if kind is ActionKind.DRAW:
        return player, Action(kind, discard=tuple(parse_cards(" ".join(rest))))
    return player, Action(kind, int(rest[0]) if rest else 0)


def play(hand: Hand, *script: str) -> None:
    """Apply each action of ``script``, asserting first that its player is the one to act."""
    for step in script:
        player, action = parse_action(step)
        assert hand.actor == player, f"{step!r}: player {hand.actor} is to act, not {player}"
        hand.apply(action)


def bounds(hand: Hand) -> dict[str, tuple[int, int]]:
    """The actor's legal kinds as ``{"call": (6, 6), "raise": (10, 14), "fold": (0, 0)}``."""
    return {legal.kind.value: (legal.min, legal.max) for legal in hand.legal_actions()}


E = TypeVar("E")


def events_of(hand: Hand, kind: type[E]) -> list[E]:
    """Every event of one type, in order."""
    return [e for e in hand.events if type(e) is kind]


def awards(hand: Hand) -> list[tuple[int, int, int, str]]:
    """``(pot, player, amount, share)`` of every PotAwarded event."""
    return [(a.pot, a.player, a.amount, a.share) for a in events_of(hand, PotAwarded)]


def chips_conserved(hand: Hand) -> bool:
    """BET-7: stacks plus everything in the middle equal the stacks the hand started with."""
    return hand.total_chips() == sum(hand.starting_stacks)


def after_each(hand: Hand, script: Iterable[str], check: Any) -> None:
    """Play ``script`` one action at a time, calling ``check(hand)`` after each."""
    for step in script:
        play(hand, step)
        check(hand)


def legal(hand: Hand) -> tuple[LegalAction, ...]:
    return hand.legal_actions()


def seq(events: Iterable[Event], *types: type) -> list[Event]:
    """The events of the given types, in order."""
    return [e for e in events if type(e) in types]


def play_passively(hand: Hand, *, until_street: int | None = None) -> None:
    """Bring in, check or call for whoever acts (stand pat in a draw), until the hand ends or
    reaches ``until_street``."""
    while not hand.is_over and (until_street is None or hand.street < until_street):
        kinds = {legal.kind for legal in hand.legal_actions()}
        for kind in (ActionKind.BRING_IN, ActionKind.CHECK, ActionKind.CALL, ActionKind.DRAW):
            if kind in kinds:
                hand.apply(Action(kind))
                break
        else:
            raise AssertionError(f"no passive action among {kinds}")
