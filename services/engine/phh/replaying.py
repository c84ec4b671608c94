"""Replay: a parsed PHH hand played through the engine again, or the first action it cannot take.

The engine is the judge: each player action is applied to a :class:`Hand` dealt from a
:class:`ScriptedDeck` holding the history's cards, and the engine's own refusal (an
:class:`IllegalAction`), or the deck's (an :class:`ImpossibleDeal`: a card it could not have dealt
then), becomes a :class:`ReplayError` naming the action, with players written as PHH labels.
"""

from __future__ import annotations

import re

from tablestorm.services.engine.actions import AGGRESSIVE, Action, ActionKind, IllegalAction
from tablestorm.services.engine.deck import ImpossibleDeal, ScriptedDeck, ScriptExhausted
from tablestorm.services.engine.events import TimedOut
from tablestorm.services.engine.hand import Hand
from tablestorm.services.engine.phh.parse import PhhError, PhhFormatError, PhhHand
from tablestorm.services.engine.shuffle import SeededShuffler


class ReplayError(PhhError):
    """An action of the history is illegal for the engine (or out of turn), or deals a card the deck
    could not have dealt then.

    ``index`` is the action's position in ``actions`` (-1 when the history ends early) and
    ``text`` the action as written; ``reason`` is the engine's IllegalAction message (or the
    deck's) with player indices written as PHH labels.
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

    Raises :class:`ReplayError` for an illegal or out-of-turn action, for a card the deck could not
    have dealt when the hand deals it (or never deals), or for a history that ends before the hand;
    :class:`PhhFormatError` when the history deals a player fewer cards than the game does.
    With ``until``, stops before the action of that index and returns the hand in progress.
    """

    def labelled(message: str) -> str:
        return _ENGINE_PLAYER.sub(lambda m: phh.label(int(m.group(1))), message)

    deck = ScriptedDeck(phh.options.variant.deck_rule(phh.n).cards, phh.script)
    try:
        hand = Hand(
            phh.options,
            list(phh.stacks),
            SeededShuffler(0, "phh", 0),
            button=max(phh.button, 0),
            blinds=list(phh.blinds) if phh.blinds is not None else None,
            deck=deck,
        )
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
    except ImpossibleDeal as exc:
        index = phh.dealt_by[exc.player][exc.position]
        raise ReplayError(index, phh.steps[index].text, labelled(exc.reason)) from None
    except ScriptExhausted as exc:
        who = _receiver(phh, exc.player)
        raise PhhFormatError("actions", f"the history deals {who} fewer cards than the game does") from None
    if hand.actor >= 0:
        raise ReplayError(-1, "", f"it ends before the hand does ({phh.label(hand.actor)} is to act)")
    undealt = deck.undealt()
    if undealt:
        player, position = min(undealt, key=lambda left: phh.dealt_by[left[0]][left[1]])
        index = phh.dealt_by[player][position]
        reason = f"the game deals {_receiver(phh, player)} no more cards"
        raise ReplayError(index, phh.steps[index].text, reason)
    return hand


def _receiver(phh: PhhHand, player: int) -> str:
    """A player's PHH label, or ``the board`` for the STUD-7 community card (-1)."""
    return "the board" if player < 0 else phh.label(player)


def _cbr(hand: Hand, amount: int) -> Action:
    for legal in hand.legal_actions():
        if legal.kind in AGGRESSIVE:
            return Action(legal.kind, amount)
    return Action(ActionKind.RAISE, amount)  # the engine says why it is not open
