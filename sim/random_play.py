"""Random legal play: the driver of ``tablestorm simulate``, the round-trip and differential tests.

A *policy* is any ``(hand, rng) -> Action`` for ``hand.actor``. Two are provided:

* :func:`random_action`: uniform over the legal kinds, then a random legal amount (either end of a
  fixed-limit bound, any whole amount of a pot/no-limit bound) or a random set of discards.
* :func:`benchmark_policy`: the benchmark bot, parameterised by how often it folds to a bet and
  how often it bets or raises when it may; otherwise it checks or calls.

:func:`play_random_hand` deals one hand and plays it out with a policy, optionally letting the
action clock run out (CLOCK-2) now and then.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from tablestorm.services.engine import (
    Action,
    ActionKind,
    Hand,
    LegalAction,
    Shuffler,
    TableOptions,
    shuffler_for,
)
from tablestorm.services.engine.deck import Deck
from tablestorm.services.engine.variants import Structure

Policy = Callable[[Hand, random.Random], Action]


MONEY_KINDS = frozenset({ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})


def _amount(hand: Hand, legal: LegalAction, rng: random.Random) -> int:
    """A random legal street total for a money action."""
    if legal.min == legal.max:
        return legal.min
    if hand.options.structure is Structure.FIXED_LIMIT:
        return legal.min if rng.random() < 0.5 else legal.max  # only the two ends are legal
    return rng.randint(legal.min, legal.max)


def _discard(hand: Hand, legal: LegalAction, rng: random.Random) -> tuple[int, ...]:
    cards = list(hand.down[hand.actor])
    count = rng.randint(legal.min, min(legal.max, len(cards)))
    return tuple(rng.sample(cards, count))


def action_for(hand: Hand, legal: LegalAction, rng: random.Random) -> Action:
    """A concrete action of the legal kind ``legal`` (random amount or discards)."""
    kind = legal.kind
    if kind is ActionKind.DRAW:
        return Action(kind, discard=_discard(hand, legal, rng))
    if kind in MONEY_KINDS:
        return Action(kind, _amount(hand, legal, rng))
    return Action(kind)


def random_action(hand: Hand, rng: random.Random) -> Action:
    """Uniform over the actor's legal kinds, then a random amount or set of discards."""
    legal = hand.legal_actions()
    if not legal:
        raise ValueError("the hand is over: no action is expected")
    return action_for(hand, legal[rng.randrange(len(legal))], rng)


def benchmark_policy(fold: float = 0.15, raise_: float = 0.25) -> Policy:
    """The benchmark bot: facing a bet it folds with probability ``fold``; when it may bet or raise
    it does so with probability ``raise_`` (random legal size); otherwise it checks or calls.
    Draws discard a random number of random cards; the stud bring-in completes with ``raise_``."""
    if not (0.0 <= fold <= 1.0 and 0.0 <= raise_ <= 1.0):
        raise ValueError("fold and raise probabilities must be between 0 and 1")

    def policy(hand: Hand, rng: random.Random) -> Action:
        legal = {option.kind: option for option in hand.legal_actions()}
        if not legal:
            raise ValueError("the hand is over: no action is expected")
        if ActionKind.DRAW in legal:
            return action_for(hand, legal[ActionKind.DRAW], rng)
        if ActionKind.BRING_IN in legal:
            complete = legal.get(ActionKind.COMPLETE)
            if complete is not None and rng.random() < raise_:
                return action_for(hand, complete, rng)
            return action_for(hand, legal[ActionKind.BRING_IN], rng)
        if ActionKind.FOLD in legal and rng.random() < fold:
            return Action(ActionKind.FOLD)
        for kind in (ActionKind.RAISE, ActionKind.BET, ActionKind.COMPLETE):
            if kind in legal and rng.random() < raise_:
                return action_for(hand, legal[kind], rng)
        if ActionKind.CHECK in legal:
            return Action(ActionKind.CHECK)
        return Action(ActionKind.CALL)

    return policy


def play_out(
    hand: Hand,
    rng: random.Random,
    policy: Policy = random_action,
    *,
    timeout_rate: float = 0.0,
    max_actions: int = 10_000,
) -> Hand:
    """Play ``hand`` to the end with ``policy``; each turn times out (CLOCK-2) with ``timeout_rate``."""
    for _ in range(max_actions):
        if hand.actor < 0:
            return hand
        if timeout_rate and rng.random() < timeout_rate:
            hand.apply(Action(ActionKind.TIMEOUT))
        else:
            hand.apply(policy(hand, rng))
    raise RuntimeError(f"the hand did not end within {max_actions} actions")


def play_random_hand(
    options: TableOptions,
    stacks: Sequence[int],
    rng: random.Random,
    *,
    policy: Policy = random_action,
    button: int = 0,
    shuffler: Shuffler | None = None,
    deck: Deck | None = None,
    timeout_rate: float = 0.0,
) -> Hand:
    """Deal one hand to ``stacks`` and play it out with ``policy``.

    Cards come from ``shuffler`` (by default a seeded shuffler drawn from ``rng``, so the whole hand
    is reproducible from the state of ``rng``) or from ``deck``.
    """
    if shuffler is None:
        shuffler = shuffler_for(rng.getrandbits(63), "random_play", 0)
    hand = Hand(options, list(stacks), shuffler, button=button, deck=deck)
    return play_out(hand, rng, policy, timeout_rate=timeout_rate)
