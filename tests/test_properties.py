"""Property tests of the hand engine: thousands of random hands of every game (hypothesis).

Hypothesis draws a table (game, player count, structure, stakes, open pair, cap, heads-up rule), the
players' stacks (half of them tiny: one chip, less than the ante, less than the bring-in or a blind),
the button, missed-blind posts (DRAW-6), the deck seed (sometimes a rigged deck full of ties) and the
seed of a ``random.Random`` that picks the actions: random legal kinds, random amounts within the
bounds, random discards, TIMEOUT, and random illegal actions in between. Each example plays two hands
of its table. After every action the invariants below are checked; a failure message carries the
hand's ``Config`` and its action log, and ``play(config)`` replays it exactly, without hypothesis.

1. BET-7: chips are conserved after every action; at the end every chip is back in a stack.
2. CARD-5 / STUD-7 / DRAW-4: no card is held twice (the STUD-7 community card is shared by design),
   every card belongs to the hand's deck, and stub + burns + discards + holdings is exactly the deck.
3. The hand ends within a bounded number of actions.
4. ``legal_actions()`` is never empty while the hand runs, is empty after, and its bounds fit the
   actor's chips (TABLE-1).
5. Every legal action is accepted.
6. Every illegal action raises IllegalAction and leaves the hand exactly as it was (a snapshot of
   every slot of the hand, its deck and shuffler). Amounts and cards that are not ints have their
   own test, so that a failure there cannot hide the rest.
7. The events add up: awards = chips put in - chips returned (BET-6, BET-7), per player too;
   every pot is paid in full to players eligible for it; HandEnded.stacks = hand.stacks; no stack
   ever goes below zero (TABLE-1); rounds, actions, the draw and awards come in order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablestorm.services.engine import (
    VARIANTS,
    Action,
    ActionKind,
    BlindPost,
    Hand,
    IllegalAction,
    LegalAction,
    SeededShuffler,
    Shuffler,
    Stakes,
    Structure,
    TableOptions,
    TimeoutOutcome,
)
from tablestorm.services.engine.cards import Card, make_card, rank_of
from tablestorm.services.engine.events import (
    Acted,
    BetReturned,
    CardsDealt,
    CommunityCard,
    Drew,
    ForcedBet,
    HandEnded,
    HandShown,
    HandStarted,
    Pot,
    PotAwarded,
    PotsFormed,
    RoundStarted,
    TimedOut,
)
from tablestorm.services.engine.hand import ACTIVE, FOLDED

GAMES = tuple(VARIANTS)  # "7stud", "7stud8", "5stud", "7a5draw"
MONEY = frozenset({ActionKind.BRING_IN, ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})
AGGRESSIVE = frozenset({ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})
CARDS_AT_SHOWDOWN = {"7stud": 7, "7stud8": 7, "5stud": 5, "7a5draw": 5}  # STUD-2, DRAW-3/4


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Config:
    """One hand, fully determined: replay it with ``play(config)``."""

    game: str
    structure: Structure
    stakes: Stakes
    stacks: tuple[int, ...]
    button: int = 0
    shuffle_seed: int = 0
    action_seed: int = 0
    open_pair: bool | None = None
    heads_up_uncapped: bool = True
    cap: int = 4
    blinds: tuple[BlindPost, ...] | None = None
    """Draw only: the table's posts when blinds were missed (DRAW-6); None: the default blinds."""
    mirrored: bool = False
    """Deal every player (up to four) the same ranks: ties, split pots and odd chips (SHOW-5)."""
    illegal_rate: float = 0.3
    untyped: bool = False
    """Illegal actions are well-typed (ints: out of bounds, wrong kind, foreign cards) when False;
    when True they are of the wrong type instead: a float, text or None as an amount or a card."""

    def options(self) -> TableOptions:
        return TableOptions(
            VARIANTS[self.game],
            self.stakes,
            self.structure,
            open_pair=self.open_pair,
            heads_up_uncapped=self.heads_up_uncapped,
            cap=self.cap,
        )


@st.composite
def stakes_for(draw: st.DrawFn, stud: bool) -> Stakes:
    """RULES.md default stakes for a random small bet, or random stakes that pass validation."""
    if draw(st.booleans()):
        return Stakes.default(draw(st.sampled_from([2, 1, 4, 10, 15, 20, 25, 40, 100])))
    small = draw(st.integers(1, 40))
    big = draw(st.integers(small, 3 * small))
    if stud:
        return Stakes(small, big, ante=draw(st.integers(0, small)), bring_in=draw(st.integers(1, small)))
    big_blind = draw(st.integers(1, 2 * small))
    small_blind = draw(st.integers(0, big_blind))
    return Stakes(small, big, small_blind=small_blind, big_blind=big_blind)


def stack_strategy(stakes: Stakes) -> st.SearchStrategy[int]:
    """Tiny stacks half the time (1 chip, below the ante, below the bring-in or a blind, a few small
    bets), deep ones otherwise. Two integer draws per stack: cheap to generate, easy to shrink."""
    forced = max(stakes.bring_in, stakes.big_blind, 1)
    big = stakes.big_bet
    ranges = (
        (1, 1),
        (1, max(1, stakes.ante)),
        (1, forced + 1),
        (1, 4 * stakes.small_bet + 2),
        (3 * big, 40 * big),
        (3 * big, 40 * big),
        (40 * big, 300 * big),
        (40 * big, 300 * big),
    )

    def stack(kind: int, offset: int) -> int:
        low, high = ranges[kind]
        return low + offset % (high - low + 1)

    return st.builds(stack, st.integers(0, len(ranges) - 1), st.integers(0, 2**20))


@st.composite
def configs(draw: st.DrawFn, game: str | None = None, players: int | None = None) -> Config:
    code = game if game is not None else draw(st.sampled_from(GAMES))
    variant = VARIANTS[code]
    n = players if players is not None else draw(st.integers(2, variant.max_players))
    structure = draw(st.sampled_from(sorted(variant.structures, key=lambda s: s.value)))
    stakes = draw(stakes_for(variant.is_stud))
    stacks = tuple(draw(st.lists(stack_strategy(stakes), min_size=n, max_size=n)))
    button = draw(st.integers(0, n - 1))
    blinds = None if variant.is_stud or draw(st.integers(0, 3)) else draw(missed_blinds(stakes, n, button))
    return Config(
        game=code,
        structure=structure,
        stakes=stakes,
        stacks=stacks,
        button=button,
        blinds=blinds,
        mirrored=draw(st.integers(0, 3)) == 0,
        shuffle_seed=draw(st.integers(0, 2**32 - 1)),
        action_seed=draw(st.integers(0, 2**32 - 1)),
        open_pair=draw(st.sampled_from([None, True, False])),
        heads_up_uncapped=draw(st.booleans()),
        cap=draw(st.integers(2, 5)),
    )


@st.composite
def missed_blinds(draw: st.DrawFn, stakes: Stakes, n: int, button: int) -> tuple[BlindPost, ...]:
    """DRAW-6 posts as a table makes them: a small blind or none (missed), the big blind, and players
    coming back posting a live big blind and/or a dead small blind (DRAW-6)."""
    small = button if n == 2 else (button + 1) % n
    big = (small + 1) % n
    posts = []
    if draw(st.booleans()):
        posts.append(BlindPost(small, "small_blind", stakes.small_blind, True))
    posts.append(BlindPost(big, "big_blind", stakes.big_blind, True))
    for player in range(n):
        if player in (small, big):
            continue
        if draw(st.booleans()):
            posts.append(BlindPost(player, "big_blind", stakes.big_blind, True))
        if draw(st.booleans()):
            posts.append(BlindPost(player, "dead_small_blind", stakes.small_blind, False))
    return tuple(posts)


class MirroredShuffler:
    """A rigged first shuffle: up to four players get cards of the same ranks, suits rotated so that
    nobody holds a flush, so every hand ties unless folds or the draw change who gets what. Later
    shuffles (STUD-7, DRAW-4) are seeded random ones."""

    def __init__(self, seed: int, config: Config) -> None:
        self._rng = random.Random(seed)
        self._rest = SeededShuffler(seed, "props-mirrored", 1)
        self._config = config
        self._first = True

    def shuffled(self, cards: Any) -> list[Card]:
        if not self._first:
            return self._rest.shuffled(cards)
        self._first = False
        variant = VARIANTS[self._config.game]
        n = len(self._config.stacks)
        dealt = [(street.down + street.up, street.burn) for street in variant.streets if not street.draw]
        ranks = self._rng.sample(sorted({rank_of(c) for c in cards}), sum(count for count, _ in dealt))
        used = {make_card(r, (q + j) % 4) for q in range(min(n, 4)) for j, r in enumerate(ranks)}
        spare = [c for c in cards if c not in used]
        self._rng.shuffle(spare)
        batches: list[list[Card]] = []
        j = 0
        for count, burn in dealt:
            if burn and spare:
                batches.append([spare.pop()])
            for q in range(n):
                if q < 4:
                    batches.append([make_card(ranks[j + k], (q + j + k) % 4) for k in range(count)])
                elif len(spare) >= count:
                    batches.append([spare.pop() for _ in range(count)])
            j += count
        placed = {c for batch in batches for c in batch}
        stub = [c for c in spare if c not in placed]  # dealt last, after the mirrored part
        for batch in reversed(batches):
            stub += batch  # the deck deals from the end of the list
        assert sorted(stub) == sorted(cards)
        return stub


# --------------------------------------------------------------------------- snapshots


_IMMUTABLE = frozenset({"options", "deck_rule", "_rotation", "_high", "_low", "_streets", "events"})
"""Hand slots holding frozen configuration (or, for ``events``, compared on their own)."""


def _slots(obj: Any) -> list[str]:
    return [s for cls in type(obj).__mro__ for s in getattr(cls, "__slots__", ())]


def _freeze(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def snapshot(hand: Hand) -> tuple[Any, ...]:
    """Everything an action could change: the public surface, the events, every other slot of the
    hand (private ones too) and the deck with its shuffler's position (the brief's 'full snapshot')."""
    public = (
        tuple(hand.stacks), tuple(hand.bets), tuple(hand.committed), tuple(hand.status),
        _freeze(hand.down), _freeze(hand.up), hand.community_card,
        len(hand.events), hand.actor, hand.legal_actions(), hand.is_over, hand.total_chips(),
    )
    private = tuple(
        (name, _freeze(getattr(hand, name, None))) for name in _slots(hand)
        if name not in _IMMUTABLE and name != "deck"
    )
    deck = hand.deck
    shuffler = getattr(deck, "_shuffler", None)
    deck_state = (
        _freeze(deck.stub), _freeze(deck.burns), _freeze(deck.discards),
        tuple((name, getattr(shuffler, name, None)) for name in _slots(shuffler)),
    )
    return public, tuple(hand.events), private, deck_state


# --------------------------------------------------------------------------- random actions


@dataclass
class Style:
    """How a random player plays this hand: varied per hand so that some reach showdown."""

    aggression: float
    fold: float
    timeout: float

    @classmethod
    def draw(cls, rng: random.Random) -> Style:
        return cls(aggression=rng.choice([0.05, 0.15, 0.3, 0.6]), fold=rng.choice([0.0, 0.1, 0.3, 0.6]),
                   timeout=rng.choice([0.0, 0.02, 0.1]))


def random_amount(rng: random.Random, legal: LegalAction, fixed: bool) -> int:
    if fixed or legal.kind is ActionKind.BRING_IN:
        return rng.choice((legal.min, legal.max))  # only the two ends are legal in fixed limit
    roll = rng.random()
    if roll < 0.3:
        return legal.min
    if roll < 0.45:
        return legal.max
    return rng.randint(legal.min, legal.max)


def random_legal(rng: random.Random, hand: Hand, legal: tuple[LegalAction, ...], style: Style) -> Action:
    if rng.random() < style.timeout:
        return Action(ActionKind.TIMEOUT)
    by_kind = {la.kind: la for la in legal}
    if ActionKind.DRAW in by_kind:
        la = by_kind[ActionKind.DRAW]
        count = rng.randint(la.min, la.max)
        return Action(ActionKind.DRAW, discard=tuple(rng.sample(hand.down[hand.actor], count)))
    aggressive = [la for la in legal if la.kind in MONEY]
    if aggressive and rng.random() < style.aggression:
        la = rng.choice(aggressive)
        return Action(la.kind, random_amount(rng, la, hand.options.structure is Structure.FIXED_LIMIT))
    if ActionKind.FOLD in by_kind and rng.random() < style.fold:
        return Action(ActionKind.FOLD)
    for kind in (ActionKind.CHECK, ActionKind.CALL):
        if kind in by_kind:
            # CALL's amount is implied; both spellings must be accepted.
            return Action(kind, by_kind[kind].min if rng.random() < 0.5 else 0)
    la = rng.choice(legal)  # the bring-in round: bring in or complete
    return Action(la.kind, la.min)


def random_illegal(rng: random.Random, hand: Hand, legal: tuple[LegalAction, ...], untyped: bool) -> Action:
    """An action the rules forbid for the actor right now (or any action once the hand is over)."""
    if untyped:
        return untyped_illegal(rng, hand, legal)
    if hand.is_over:
        discard = tuple(rng.sample(hand.deck_rule.cards, rng.randint(0, 2)))
        return Action(rng.choice(list(ActionKind)), rng.choice([0, 1, 10]), discard)
    by_kind = {la.kind: la for la in legal}
    options: list[Callable[[], Action]] = []
    wrong = [k for k in ActionKind if k not in by_kind and k is not ActionKind.TIMEOUT]
    some = next((la for la in legal if la.kind in MONEY), None)

    def wrong_kind() -> Action:
        kind = rng.choice(wrong)
        amount = some.min if some is not None and rng.random() < 0.7 else rng.randint(0, 50)
        discard = tuple(hand.down[hand.actor][: rng.randint(0, 2)]) if kind is ActionKind.DRAW else ()
        return Action(kind, amount, discard)

    options.append(wrong_kind)
    for la in legal:
        # Only COMPLETE/BET/RAISE amounts are checked: CALL and BRING_IN take no amount (their size is
        # implied; phh.py posts a bring-in as Action(BRING_IN) with amount 0), so any amount is fine.
        if la.kind in AGGRESSIVE:
            options.append(partial(lambda la: Action(la.kind, bad_amount(rng, la, hand)), la))
        if la.kind is ActionKind.DRAW:
            options.append(lambda: Action(ActionKind.DRAW, discard=bad_discard(rng, hand)))
    return rng.choice(options)()


def untyped_illegal(rng: random.Random, hand: Hand, legal: tuple[LegalAction, ...]) -> Action:
    """A money action whose amount is not an int, or a draw naming something that is not an int
    card (a float equal to one of the player's own cards, text, None); ints otherwise in bounds."""
    money = [la for la in legal if la.kind in AGGRESSIVE]
    draws = [la for la in legal if la.kind is ActionKind.DRAW]
    if draws:
        mine = hand.down[hand.actor]
        discard: list[Any] = [float(c) for c in rng.sample(mine, rng.randint(1, len(mine)))]
        if rng.random() < 0.3:
            discard = [*rng.sample(mine, rng.randint(0, 2)), rng.choice(["As", None, str(mine[0])])]
        rng.shuffle(discard)
        return Action(ActionKind.DRAW, discard=tuple(discard))
    if money:
        la = rng.choice(money)
        amount: Any = rng.choice([float(la.min), float(la.max), la.min + 0.5, str(la.min), None])
        return Action(la.kind, amount)
    kind = rng.choice([ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE])  # not offered at all
    return Action(kind, cast(Any, rng.choice([1.0, "1", None])))


def bad_amount(rng: random.Random, legal: LegalAction, hand: Hand) -> int:
    """A whole number of chips the rules forbid (see untyped_illegal for amounts that are not ints)."""
    fixed = hand.options.structure is Structure.FIXED_LIMIT
    candidates = [
        legal.min - 1, legal.max + 1, 0, -1, -legal.max, legal.max + rng.randint(1, 10**6), 10**12,
    ]
    if fixed and legal.max - legal.min >= 2:
        candidates += [rng.randint(legal.min + 1, legal.max - 1)] * 3  # fixed limit: only min or max
    return rng.choice(candidates)


def bad_discard(rng: random.Random, hand: Hand) -> tuple[int, ...]:
    mine = list(hand.down[hand.actor])
    held = {c for i in range(hand.n) for c in hand.cards_of(i)}
    others = [c for i in range(hand.n) if i != hand.actor for c in hand.down[i]]
    unseen = [c for c in hand.deck_rule.cards if c not in held]
    outside = [c for c in range(52) if c not in hand.deck_rule.cards] + [52, 99, -1]
    foreign = rng.choice([pool for pool in (others, unseen, outside) if pool])
    kind = rng.randrange(5)
    discard: list[int]
    if kind == 0:  # one card not owned, maybe among owned ones
        discard = [*rng.sample(mine, rng.randint(0, 4)), rng.choice(foreign)]
    elif kind == 1:  # a duplicate
        card = rng.choice(mine)
        discard = [*rng.sample([c for c in mine if c != card], rng.randint(0, 3)), card, card]
    elif kind == 2:  # more than five cards
        discard = [*mine, rng.choice(foreign)]
    elif kind == 3:  # more than five cards, all owned (one repeated)
        discard = [*mine, rng.choice(mine)]
    else:  # ints that are no card at all
        discard = [*rng.sample(mine, rng.randint(0, 2)), rng.choice([52, 99, -1, -52, 2**70])]
    rng.shuffle(discard)
    return tuple(discard)


# --------------------------------------------------------------------------- checks


@dataclass
class Log:
    """Everything needed to explain and replay a failure."""

    config: Config
    actions: list[Action] = field(default_factory=list)
    illegal_tried: int = 0

    def __str__(self) -> str:
        return f"{self.config}\nactions={self.actions}"


def held_cards(hand: Hand) -> list[Card]:
    cards = [c for i in range(hand.n) for c in hand.down[i] + hand.up[i]]
    if hand.community_card is not None:
        cards.append(hand.community_card)  # STUD-7: one shared card, stored once
    return cards


def check_state(hand: Hand, start_total: int, log: Log) -> None:
    # 1. BET-7: every chip accounted for after every action.
    assert hand.total_chips() == start_total, f"BET-7 chips not conserved\n{log}"
    # 7. TABLE-1: stacks never below zero (and nothing negative in the middle either).
    assert min(hand.stacks) >= 0, f"TABLE-1 negative stack {hand.stacks}\n{log}"
    assert min(hand.committed) >= 0 and min(hand.bets) >= 0, f"negative bet {hand.bets}\n{log}"
    assert all(b <= c for b, c in zip(hand.bets, hand.committed, strict=True)), f"bets > committed\n{log}"
    # 2. CARD-5 / STUD-7: distinct cards, all from the hand's deck; the deck's parts partition it.
    held = held_cards(hand)
    assert len(set(held)) == len(held), f"a card is held twice: {sorted(held)}\n{log}"
    deck = hand.deck
    parts = [*deck.stub, *deck.burns, *deck.discards, *held]
    assert sorted(parts) == sorted(hand.deck_rule.cards), f"stub+burns+discards+held != deck\n{log}"
    # 4. Legal actions exist exactly while the hand runs, and fit the actor's chips.
    legal = hand.legal_actions()
    if hand.is_over:
        assert hand.actor == -1 and legal == (), f"legal actions after the end: {legal}\n{log}"
        return
    assert 0 <= hand.actor < hand.n, f"no actor while the hand runs\n{log}"
    assert legal, f"empty legal actions while the hand runs (actor {hand.actor})\n{log}"
    kinds = [la.kind for la in legal]
    assert len(set(kinds)) == len(kinds) and ActionKind.TIMEOUT not in kinds, f"{legal}\n{log}"
    i = hand.actor
    if ActionKind.DRAW in kinds:
        assert legal == (LegalAction(ActionKind.DRAW, 0, min(5, len(hand.down[i]))),), f"{legal}\n{log}"
        return
    assert hand.status[i] == ACTIVE and hand.stacks[i] > 0, f"actor {i} cannot act: {hand.status}\n{log}"
    if ActionKind.CALL not in kinds and ActionKind.BRING_IN not in kinds:
        # Nothing to call: acting only makes sense with someone left to bet against.
        others = [p for p in range(hand.n) if p != i and hand.status[p] == ACTIVE]
        assert others, f"player {i} asked to act alone (status {hand.status})\n{log}"
    reach = hand.bets[i] + hand.stacks[i]
    for la in legal:
        if la.kind in MONEY or la.kind is ActionKind.CALL:
            assert hand.bets[i] < la.min <= la.max <= reach, f"bounds {la} (bet {hand.bets[i]})\n{log}"


def check_end(hand: Hand, config: Config, log: Log) -> None:
    start = sum(config.stacks)
    events = hand.events
    # 1. BET-7 at the end: every chip back in a stack.
    assert sum(hand.stacks) == start and hand.committed == [0] * hand.n, f"chips lost\n{log}"
    # 7. The record adds up.
    assert type(events[0]) is HandStarted and events[0].stacks == config.stacks, f"{events[0]}\n{log}"
    ended = [e for e in events if type(e) is HandEnded]
    assert len(ended) == 1 and events[-1] is ended[0], f"HandEnded not once, last\n{log}"
    assert list(ended[0].stacks) == hand.stacks, f"HandEnded.stacks {ended[0].stacks} != {hand.stacks}\n{log}"
    flow = list(config.stacks)
    put_in = returned = awarded = 0
    bets = [0] * hand.n
    for e in events:
        if type(e) is ForcedBet:
            assert e.amount > 0, f"{e}\n{log}"
            put_in += e.amount
            flow[e.player] -= e.amount
            if e.live:
                bets[e.player] += e.amount
        elif type(e) is Acted:
            assert e.added >= 0 and e.to == bets[e.player] + e.added, f"{e} (bet {bets[e.player]})\n{log}"
            bets[e.player] = e.to
            put_in += e.added
            flow[e.player] -= e.added
        elif type(e) is BetReturned:
            assert e.amount > 0, f"{e}\n{log}"
            returned += e.amount
            flow[e.player] += e.amount
            bets[e.player] -= e.amount
        elif type(e) is PotsFormed:
            # BET-6: once the uncalled part is back, the round's top bet is matched by someone.
            top, second = sorted(bets)[-2:][::-1]
            assert top == second, f"uncalled bet kept: street bets {bets} at {e}\n{log}"
            # BET-7: the pots hold exactly what is in the middle.
            assert sum(p.amount for p in e.pots) == put_in - returned, f"{e} vs {put_in - returned}\n{log}"
            bets = [0] * hand.n
        elif type(e) is PotAwarded:
            assert e.amount >= 0, f"{e}\n{log}"
            awarded += e.amount
            flow[e.player] += e.amount
    assert awarded == put_in - returned, f"awarded {awarded} != put in {put_in} - returned {returned}\n{log}"
    assert flow == hand.stacks, f"per-player chip flow {flow} != stacks {hand.stacks}\n{log}"
    check_event_order(hand, log)
    # BET-7: each pot goes to players eligible for it, and in full.
    formed = [e for e in events if type(e) is PotsFormed]
    pots = formed[-1].pots
    for index, pot in enumerate(pots):
        awards = [e for e in events if type(e) is PotAwarded and e.pot == index]
        assert sum(a.amount for a in awards) == pot.amount, f"pot {index} {pot} paid {awards}\n{log}"
        assert all(a.player in pot.eligible for a in awards if a.amount), f"pot {pot}: {awards}\n{log}"
    assert sum(p.amount for p in pots) == awarded, f"pots {pots} != awarded {awarded}\n{log}"
    # 2. Cards: every card ever dealt is from the deck; with no recycling in stud, all distinct;
    # DRAW-4: a player is never dealt back their own discards.
    dealt: list[Card] = []
    for e in events:
        if type(e) is CardsDealt:
            dealt += [*e.down, *e.up]
        elif type(e) is CommunityCard:
            dealt.append(e.card)
        elif type(e) is Drew:
            assert not set(e.drawn) & set(e.discarded), f"DRAW-4 own discard dealt back: {e}\n{log}"
            assert len(e.drawn) == len(e.discarded), f"{e}\n{log}"
            dealt += e.drawn
    assert set(dealt) <= set(hand.deck_rule.cards), f"card outside the deck\n{log}"
    if VARIANTS[config.game].is_stud:
        assert len(set(dealt)) == len(dealt), f"stud card dealt twice\n{log}"
    # CARD-5: the 36-card deck exactly when five are dealt in to the draw game.
    expected_deck = 52 if VARIANTS[config.game].is_stud else (36 if hand.n == 5 else 32)
    assert len(hand.deck_rule.cards) == expected_deck == events[0].deck_size, f"deck size\n{log}"
    # STUD-2 / DRAW-4: at a showdown every live hand holds the game's full count of cards.
    if ended[0].showdown:
        full = CARDS_AT_SHOWDOWN[config.game]
        for e in events:
            if type(e) is HandShown:
                assert len(e.cards) == full and list(e.cards) == hand.cards_of(e.player), f"{e}\n{log}"
        for i in range(hand.n):
            if hand.status[i] != FOLDED:
                assert len(hand.cards_of(i)) == full, f"player {i}: {hand.cards_of(i)}\n{log}"


def _where(k: int, e: object, log: Log) -> str:
    """Event ``k`` and the log, for a failed assertion's message (built only when one fails: the
    log prints every action of the hand)."""
    return f"event {k} {e}\n{log}"


def check_event_order(hand: Hand, log: Log) -> None:
    """7. The record reads in order: rounds open (RoundStarted) and close (PotsFormed) street by
    street; players act only inside a round, the first of them the one RoundStarted names; the
    draw happens between rounds; pots are awarded after the last round."""
    street = -1
    first: int | None = None  # who RoundStarted said acts first, until someone acts
    in_round = False
    for k, e in enumerate(hand.events):
        if type(e) is RoundStarted:
            assert not in_round and e.street > street, f"round opened out of order: {_where(k, e, log)}"
            street, in_round, first = e.street, True, e.first
        elif type(e) is PotsFormed:
            assert in_round and e.street == street, f"round closed out of order: {_where(k, e, log)}"
            assert first is None or first == -1, f"RoundStarted named {first}, who never acted: {_where(k, e, log)}"
            in_round = False
        elif type(e) is Drew or (type(e) is TimedOut and e.outcome is TimeoutOutcome.STAND_PAT):
            assert not in_round, f"a draw inside a betting round: {_where(k, e, log)}"
        elif isinstance(e, Acted | TimedOut):
            assert in_round, f"action outside a betting round: {_where(k, e, log)}"
            if first is not None:
                assert first == e.player, f"RoundStarted named {first} but {e.player} acted: {_where(k, e, log)}"
                first = None
        elif type(e) is PotAwarded:
            assert not in_round and street >= 0, f"pot awarded before the last round closed: {_where(k, e, log)}"


def action_bound(config: Config) -> int:
    """3. No hand can take more actions than this: every full raise adds at least a chip to the
    round's level, and between two raises each player acts at most once; plus the draw."""
    n = len(config.stacks)
    streets = len(VARIANTS[config.game].streets)
    return streets * (n + 1) * (sum(config.stacks) + 2) + 2 * n


def try_illegal(rng: random.Random, hand: Hand, log: Log) -> None:
    """6. A forbidden action raises IllegalAction and changes nothing at all."""
    legal = hand.legal_actions()
    action = random_illegal(rng, hand, legal, log.config.untyped)
    before = snapshot(hand)
    log.illegal_tried += 1
    try:
        hand.apply(action)
    except IllegalAction:
        pass
    except Exception as exc:
        raise AssertionError(
            f"illegal {action!r} raised {exc!r}, not IllegalAction (legal: {legal})\n{log}"
        ) from exc
    else:
        raise AssertionError(f"illegal {action!r} accepted (legal: {legal}, actor {hand.actor})\n{log}")
    after = snapshot(hand)
    assert after == before, f"rejected {action!r} changed the hand\n{log}"


def play(config: Config) -> Hand:
    """Deal and play one random hand of ``config``, checking every property along the way."""
    rng = random.Random(config.action_seed)
    style = Style.draw(rng)
    options = config.options()
    button = config.button if not options.variant.is_stud else 0
    shuffler: Shuffler = (
        MirroredShuffler(config.shuffle_seed, config)
        if config.mirrored
        else SeededShuffler(config.shuffle_seed, "props", 1)
    )
    hand = Hand(options, config.stacks, shuffler, button=button, blinds=config.blinds)
    log = Log(config)
    start_total = sum(config.stacks)
    bound = action_bound(config)
    check_state(hand, start_total, log)
    while not hand.is_over:
        assert len(log.actions) < bound, f"3. the hand does not end\n{log}"
        legal = hand.legal_actions()
        if rng.random() < config.illegal_rate:
            try_illegal(rng, hand, log)
        action = random_legal(rng, hand, legal, style)
        log.actions.append(action)
        try:
            hand.apply(action)  # 5. a legal action is accepted
        except Exception as exc:
            raise AssertionError(f"legal {action!r} failed: {exc!r} (legal: {legal})\n{log}") from exc
        check_state(hand, start_total, log)
    check_end(hand, config, log)
    for _ in range(2):  # 6. acting after the end
        try_illegal(rng, hand, log)
    return hand


# --------------------------------------------------------------------------- the properties

HANDS_PER_EXAMPLE = 2
"""Each example plays its drawn table twice, the second time with fresh deck and action seeds and the
next button: generating an example costs about as much as playing a hand, so this doubles the hands
per second. A failure message names the exact Config of the failing hand."""
EXAMPLES = 1000
"""Default run: 4 games x 1000 examples x 2 = 8,000 hands (plus 400 in the non-int test below),
about 30 s of CPU on the 2-core box; 35-55 s of wall time while other jobs share it."""
SLOW_EXAMPLES = 600
"""Slow run: 1,200 hands for every game and player count (25 pairs: 30,000 hands), sized to fit
CI's time budget; raise it locally for a longer soak."""

FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=SLOW_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PAIRS = [(game, n) for game in GAMES for n in range(2, VARIANTS[game].max_players + 1)]


def play_table(config: Config) -> None:
    """Play ``config`` and its siblings (same table, stacks and options; new seeds; the next button
    unless the blinds were drawn for this one)."""
    for k in range(HANDS_PER_EXAMPLE):
        play(config if k == 0 else replace(
            config,
            shuffle_seed=(config.shuffle_seed * 1_000_003 + k) % 2**32,
            action_seed=(config.action_seed * 999_983 + k) % 2**32,
            button=config.button if config.blinds else (config.button + k) % len(config.stacks),
        ))


@pytest.mark.parametrize("game", GAMES)
@FAST
@given(data=st.data())
def test_random_hands_keep_every_invariant(game: str, data: st.DataObject) -> None:
    """Properties 1-7 over random hands of ``game`` (2 to max players, every structure it offers)."""
    play_table(data.draw(configs(game=game), label="config"))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), PAIRS)
@SLOW
@given(data=st.data())
def test_random_hands_keep_every_invariant_slow(game: str, players: int, data: st.DataObject) -> None:
    play_table(data.draw(configs(game=game, players=players), label="config"))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_amounts_and_cards_that_are_not_ints_raise_illegal_action(game: str, data: st.DataObject) -> None:
    """6. An amount that is not a whole number of chips (``10.0``, ``10.5``, ``"10"``, None) and a
    discard naming something that is not an int card (``28.0`` for the card 28, text, None) are
    illegal actions like any other: IllegalAction, nothing changed. Kept apart from the test above
    so that a failure here (a TypeError, say) does not hide the other properties."""
    play(replace(data.draw(configs(game=game), label="config"), untyped=True, illegal_rate=0.5))


# --------------------------------------------------------------------------- plain reproductions
# Deterministic cases of the bugs the properties found (each test's docstring says what and why).


def test_float_amount_is_rejected() -> None:
    """6. Three-handed stud at the default 10/20 stakes: after the bring-in, completing to ``10.0``
    (the legal 10 written as a float) raises IllegalAction and changes nothing."""
    hand = Hand(TableOptions(VARIANTS["7stud"], Stakes.default(10)), [1000] * 3, SeededShuffler(0, "t", 1))
    hand.apply(Action(ActionKind.BRING_IN))
    assert LegalAction(ActionKind.COMPLETE, 10, 10) in hand.legal_actions()
    before = snapshot(hand)
    with pytest.raises(IllegalAction):
        hand.apply(Action(ActionKind.COMPLETE, cast(Any, 10.0)))
    assert snapshot(hand) == before


def test_float_discard_is_rejected() -> None:
    """6. DRAW-4: heads-up fixed-limit draw, call, check, then the first player to draw "discards"
    their first card written as a float (28.0 == 28 would pass a plain ``in`` test and put a float
    into the deck, which another player could be dealt and the showdown evaluator crash on)."""
    options = TableOptions(VARIANTS["7a5draw"], Stakes.default(10))
    hand = Hand(options, [1000, 1000], SeededShuffler(0, "t", 1), button=0)
    hand.apply(Action(ActionKind.CALL))
    hand.apply(Action(ActionKind.CHECK))
    card = hand.down[hand.actor][0]
    before = snapshot(hand)
    with pytest.raises(IllegalAction):
        hand.apply(Action(ActionKind.DRAW, discard=(cast(Any, float(card)),)))
    assert snapshot(hand) == before


def test_pot_of_dead_money_names_its_winner() -> None:
    """7. BET-7 / SHOW-3: the pot awarded to the last live hand lists that hand as eligible.

    Three-handed no-limit draw: player 2 posts the big blind all-in for 1 chip, player 0 posts a
    dead small blind of 5 (DRAW-6); players 0 and 1 fold. The 1 chip goes back (BET-6) and player 2
    wins the 5 dead chips (SHOW-3). The engine of the first commit said in PotsFormed that this pot
    had no eligible player at all (``Pot(5, ())``) and then paid it to player 2.
    """
    options = TableOptions(VARIANTS["7a5draw"], Stakes.default(10), Structure.NO_LIMIT)
    blinds = [BlindPost(2, "big_blind", 10, True), BlindPost(0, "dead_small_blind", 5, False)]
    hand = Hand(options, [100, 100, 1], SeededShuffler(0, "t", 1), button=0, blinds=blinds)
    hand.apply(Action(ActionKind.FOLD))
    hand.apply(Action(ActionKind.FOLD))
    assert hand.is_over and hand.stacks == [95, 100, 6]
    pots = [e for e in hand.events if type(e) is PotsFormed][-1].pots
    awards = [e for e in hand.events if type(e) is PotAwarded]
    assert awards == [PotAwarded(0, 2, 5, "whole")]
    assert pots == (Pot(5, (2,)),), pots
