"""Replay: a parsed PHH hand played through the engine again, or the first action it cannot take.

The engine is the judge: each player action is applied to a :class:`Hand` dealt from a
:class:`ScriptedDeck` holding the history's cards, and the engine's own refusal (an
:class:`IllegalAction`) becomes a :class:`ReplayError` naming the action, with players written as
PHH labels.
"""

from __future__ import annotations

import re

from ..actions import AGGRESSIVE, Action, ActionKind, IllegalAction
from ..cards import Card
from ..deck import ScriptedDeck, ScriptExhausted
from ..events import CardsDealt, CommunityCard, Drew, TimedOut
from ..hand import Hand
from ..shuffle import SeededShuffler
from .parse import PhhError, PhhFormatError, PhhHand


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
        hand = _new_hand(phh)
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


def _new_hand(phh: PhhHand) -> Hand:
    """The hand dealt as the history says, before any player action."""
    deck = ScriptedDeck(phh.options.variant.deck_rule(phh.n).cards, phh.script)
    return Hand(
        phh.options,
        list(phh.stacks),
        SeededShuffler(0, "phh", 0),
        button=max(phh.button, 0),
        blinds=list(phh.blinds) if phh.blinds is not None else None,
        deck=deck,
    )


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
