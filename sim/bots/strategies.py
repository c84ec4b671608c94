"""Bot strategies: pure functions from what a seat may see to the action it takes.

A strategy never touches the network, the clock or shared state: :meth:`Strategy.decide` takes a
:class:`View` (built by the client from the events the seat received) and a ``random.Random``, and
returns an :class:`Action` or ``None`` (let the action clock run out). That keeps every kind
unit-testable without a server and keeps the per-decision cost to a few microseconds, which
matters when one process drives thousands of seats. What a kind does besides deciding, it declares
(:attr:`Strategy.stream_drops`) and the client honours, so that a new kind is one class and a row
in the registry (:mod:`.kinds`). A kind's knobs are the fields of its class, a frozen dataclass,
with their defaults; a fleet sets them per kind (``BotConfig.strategies``, read by
:func:`~tablestorm.sim.bots.kinds.strategy_for`).

The kinds exist to make a load test hit every path of the rules (docs/rules.md), not to win:

* ``random``: a uniformly random legal kind, a random legal amount (fixed limit: min or max).
* ``calling_station``: checks or calls, never folds or raises, stands pat on the draw.
* ``maniac``: raises, bets and completes whenever allowed, to the maximum (fixed and pot limit),
  so fixed-limit rounds reach the cap (BET-2, CapReached); in no limit it raises the pot instead,
  since the no-limit maximum is all-in and would make it a second shover.
* ``shover``: all-in (the maximum) whenever it may raise, calls everything else including
  all-ins, never folds: it empties stacks, so all-ins and side pots (BET-7) happen and broke
  players rebuy (TABLE-1).
* ``sleeper``: plays like ``random`` but with probability ``sleep_probability`` does nothing, so
  the clock acts for it (every CLOCK-2 outcome: check, all-in, fold, bring-in, stand pat).
* ``flaky``: plays like ``random`` and drops its stream now and then (its declared
  ``stream_drops``); the client resumes it.
* ``strength``: rates its own cards with the engine's evaluators (against the up cards it can
  see), folds weak hands, raises strong ones and draws by keeping pairs, so fold and showdown
  rates resemble real play.

The forecasts' players, calibrated to how real fields play, are in :mod:`.regular`.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Final, NamedTuple, Protocol

from tablestorm.services.engine.cards import parse_cards
from tablestorm.services.engine.evaluation import (
    BOARD,
    HIGH_CARD,
    LOW8,
    NO_LOW,
    PAIR,
    STRAIGHT,
    TRIPS,
    TWO_PAIR,
    Ranking,
    category_of,
)
from tablestorm.services.engine.variants import VARIANTS, Structure, Variant

__all__ = [
    "AGGRESSIVE",
    "MONEY_KINDS",
    "Action",
    "CallingStation",
    "Flaky",
    "Legal",
    "Maniac",
    "RandomLegal",
    "Shover",
    "Sleeper",
    "Strategy",
    "Strength",
    "View",
    "draw_discards",
    "is_allowed",
    "leaving_action",
    "rate",
    "strength",
]

AGGRESSIVE = ("raise", "bet", "complete")
"""The kinds that raise the street's bet; at most one of them is legal at a time."""
MONEY_KINDS = frozenset({"bring_in", "complete", "bet", "raise"})
"""The kinds whose amount (a street total) the player chooses."""
_FIXED_LIMIT: Final = Structure.FIXED_LIMIT.value
_NO_LIMIT: Final = Structure.NO_LIMIT.value


class Legal(NamedTuple):
    """One legal kind and its bounds: street totals for money kinds, discard counts for "draw"."""

    kind: str
    min: int = 0
    max: int = 0


class Action(NamedTuple):
    """What a bot sends: ``amount`` is a street total (money kinds), ``discard`` the cards thrown."""

    kind: str
    amount: int = 0
    discard: tuple[int, ...] = ()


class View(NamedTuple):
    """Everything one seat may know when it is asked to act (built from its own event stream).

    A NamedTuple rather than a frozen dataclass: as immutable, and built several times faster (a
    frozen dataclass sets each field through ``object.__setattr__``), at one View a decision."""

    game: str
    """The table's game code (a key of ``tablestorm.services.engine.VARIANTS``)."""
    structure: str
    """The betting structure's value (``tablestorm.services.engine.Structure``: BET-1, BET-4)."""
    legal: tuple[Legal, ...]
    down: tuple[int, ...] = ()
    """Own face-down cards (engine ints, rank * 4 + suit)."""
    up: tuple[int, ...] = ()
    """Own face-up cards."""
    others_up: tuple[tuple[int, ...], ...] = ()
    """Face-up cards of every other player still in the hand."""
    community: tuple[int, ...] = ()
    """A shared last card (STUD-7), everyone's seventh card."""
    street: int = 0
    pot: int = 0
    """Chips in the pot, this street's bets included."""
    bet: int = 0
    """Own street total so far (live blinds and the bring-in included)."""
    to_call: int = 0
    stack: int = 0
    hand_number: int = 0
    deck_size: int = 52
    big_blind: int = 0
    """The hand's big blind as posted (0 in stud): the unit of stack depth in pot and no limit."""
    opponents: int = 0
    """Other players dealt in who have not folded (all-in ones included)."""
    raises: int = 0
    """Bets, raises and completions made this betting round (not the blinds or the bring-in)."""

    @property
    def variant(self) -> Variant:
        """The game as data (its decks, low hand, streets): what strategies read, never the code."""
        return VARIANTS[self.game]

    @property
    def fixed_limit(self) -> bool:
        return self.structure == _FIXED_LIMIT

    @property
    def no_limit(self) -> bool:
        return self.structure == _NO_LIMIT

    @property
    def high_ranking(self) -> Ranking:
        """The game's high ranking for the deck this hand is dealt from (CARD-5: 32 or 36 cards)."""
        for rule in self.variant.decks:
            if len(rule.cards) == self.deck_size:
                return rule.high
        return self.variant.decks[0].high

    def option(self, kind: str) -> Legal | None:
        for legal in self.legal:
            if legal.kind == kind:
                return legal
        return None

    def aggression(self) -> Legal | None:
        """The legal raise, bet or completion, if any."""
        for legal in self.legal:
            if legal.kind in AGGRESSIVE:
                return legal
        return None


def is_allowed(action: Action, legal: tuple[Legal, ...], fixed_limit: bool, own: tuple[int, ...]) -> bool:
    """Whether ``action`` is one of ``legal`` (the client's check of what the server accepted).

    Fixed limit allows only the two ends of a money range (BET-1); a draw must throw 0..max
    distinct cards of the player's own ``own`` down cards.
    """
    for option in legal:
        if option.kind != action.kind:
            continue
        if action.kind in MONEY_KINDS:
            if fixed_limit:
                return action.amount in (option.min, option.max)
            return option.min <= action.amount <= option.max
        if action.kind == "draw":
            discard = action.discard
            return (
                option.min <= len(discard) <= option.max
                and len(set(discard)) == len(discard)
                and all(card in own for card in discard)
            )
        return True
    return False


class Strategy(Protocol):
    """A bot kind's decision rule: pure, so it is tested without a server."""

    name: str
    needs_board: bool
    """Whether :attr:`View.others_up` matters (the client only tracks it for such strategies)."""

    @property
    def stream_drops(self) -> tuple[float, float] | None:
        """Seconds between the seat's own stream drops, a uniform draw from this range each time
        (the client resumes after each); None: it keeps its stream."""

    def decide(self, view: View, rng: random.Random) -> Action | None: ...


def _random_amount(option: Legal, fixed_limit: bool, rng: random.Random) -> int:
    if fixed_limit or option.min == option.max:
        return option.min if rng.random() < 0.5 else option.max
    return rng.randint(option.min, option.max)


def _play(option: Legal, view: View, rng: random.Random) -> Action:
    """A legal action of ``option``'s kind with a random amount or discard."""
    if option.kind in MONEY_KINDS:
        return Action(option.kind, _random_amount(option, view.fixed_limit, rng))
    if option.kind == "draw":
        count = rng.randint(option.min, min(option.max, len(view.down)))
        return Action("draw", discard=tuple(rng.sample(view.down, count)))
    return Action(option.kind)


def _passive(view: View) -> Action:
    """Check, call, or bring in (the cheapest legal way to stay in); stand pat on a draw."""
    for kind in ("check", "call"):
        if view.option(kind) is not None:
            return Action(kind)
    bring_in = view.option("bring_in")
    if bring_in is not None:
        return Action("bring_in", bring_in.min)
    if view.option("draw") is not None:
        return Action("draw")
    first = view.legal[0]
    return Action(first.kind, first.min)


def leaving_action(legal: tuple[Legal, ...]) -> Action:
    """How a player on the way out answers a turn: check if free, else fold; a stud bring-in
    (which may not fold, STUD-3) is posted and a draw stands pat."""
    kinds = {option.kind: option for option in legal}
    for kind in ("check", "fold"):
        if kind in kinds:
            return Action(kind)
    if "bring_in" in kinds:
        return Action("bring_in", kinds["bring_in"].min)
    if "draw" in kinds:
        return Action("draw")
    return Action(legal[0].kind, legal[0].min)


@dataclass(frozen=True, slots=True)
class RandomLegal:
    """Uniform over the legal kinds, then a uniform legal amount: explores every action path."""

    name = "random"
    needs_board = False
    stream_drops = None

    def decide(self, view: View, rng: random.Random) -> Action | None:
        return _play(rng.choice(view.legal), view, rng)


@dataclass(frozen=True, slots=True)
class CallingStation:
    """Never folds, never raises: pots go to showdown with many players."""

    name = "calling_station"
    needs_board = False
    stream_drops = None

    def decide(self, view: View, rng: random.Random) -> Action | None:
        return _passive(view)


@dataclass(frozen=True, slots=True)
class Maniac:
    """Every raise it may make, as large as allowed: fixed-limit rounds hit the cap (BET-2)."""

    name = "maniac"
    needs_board = False
    stream_drops = None

    def decide(self, view: View, rng: random.Random) -> Action | None:
        option = view.aggression()
        if option is None:
            return _passive(view)
        if not view.no_limit:
            return Action(option.kind, option.max)
        # A pot-sized raise: the bet to match, plus the pot after calling it (BET-4's pot-limit
        # maximum), so the betting goes on for several raises instead of ending all-in at once.
        pot_sized = view.bet + view.to_call + view.pot + view.to_call
        return Action(option.kind, max(option.min, min(option.max, pot_sized)))


@dataclass(frozen=True, slots=True)
class Shover:
    """All-in whenever it may raise, calls every bet: makes all-ins, side pots and rebuys."""

    name = "shover"
    needs_board = False
    stream_drops = None

    def decide(self, view: View, rng: random.Random) -> Action | None:
        option = view.aggression()
        if option is not None:
            return Action(option.kind, option.max)
        return _passive(view)


@dataclass(frozen=True, slots=True)
class Sleeper:
    """Random play, but now and then no action at all: the clock acts (CLOCK-2)."""

    sleep_probability: float = 0.15
    """The share of its turns it leaves to the clock."""
    name = "sleeper"
    needs_board = False
    stream_drops = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.sleep_probability <= 1.0:
            raise ValueError(f"sleep_probability must be within [0, 1], got {self.sleep_probability!r}")

    def decide(self, view: View, rng: random.Random) -> Action | None:
        if rng.random() < self.sleep_probability:
            return None
        return _play(rng.choice(view.legal), view, rng)


@dataclass(frozen=True, slots=True)
class Flaky:
    """Random play, and a stream dropped every ``interval`` seconds (a uniform draw each time)."""

    interval: tuple[float, float] = (20.0, 60.0)
    """The range of seconds between its stream drops."""
    name = "flaky"
    needs_board = False

    def __post_init__(self) -> None:
        low, high = self.interval
        if not 0.0 < low <= high:
            raise ValueError(f"interval must be 0 < low <= high seconds, got {self.interval!r}")

    @property
    def stream_drops(self) -> tuple[float, float] | None:
        return self.interval

    def decide(self, view: View, rng: random.Random) -> Action | None:
        return _play(rng.choice(view.legal), view, rng)


# ----------------------------------------------------------------- hand strength

_CATEGORY_SCORE = {
    HIGH_CARD: 0.05,
    PAIR: 0.42,
    TWO_PAIR: 0.66,
    TRIPS: 0.8,
    STRAIGHT: 0.86,
}
"""Score of a made category before its rank bonus; straights and better are all "strong"."""
_BEST_LOW = LOW8.evaluate(parse_cards("As 2d 3h 4s 5c"))
_WORST_LOW = LOW8.evaluate(parse_cards("8s 7d 6h 5s 4c"))
RAISE_AT = 0.7
"""Scores from here up raise (or bet, or complete)."""
CALL_AT = 0.38
"""Scores from here up call a bet; below, the hand folds unless the call is cheap."""
CHEAP_CALL_AT = 0.22
"""A weak hand still calls when the price is at most a quarter of the pot."""


def _top_rank(strength_value: int) -> int:
    """The most significant tie-break rank of a strength (the pair's rank, the high card...)."""
    return strength_value >> 16 & 0xF


def _made_score(cards: list[int], ranking: Ranking) -> tuple[int, float, int]:
    """(category, score, exact value) of the player's own cards under the game's high ranking or,
    for fewer than five cards, by pairs and trips only (STUD-6's board ranking, suits ignored)."""
    if len(cards) >= 5:
        value = ranking.evaluate(cards[:7])
        category = category_of(value, ranking)
    else:
        value = BOARD.evaluate(cards)
        category = category_of(value, BOARD)
    if category >= STRAIGHT:
        return category, min(1.0, _CATEGORY_SCORE[STRAIGHT] + 0.02 * (category - STRAIGHT)), value
    return category, _CATEGORY_SCORE[category] + 0.12 * _top_rank(value) / 12, value


def _draw_bonus(cards: list[int]) -> float:
    """Early-street potential: three or four cards of one suit (a flush draw)."""
    if len(cards) >= 5 or len(cards) < 3:
        return 0.0
    suits = [card & 3 for card in cards]
    most = max(map(suits.count, range(4)))
    return 0.12 if most >= 3 and most >= len(cards) - 1 else 0.0


def _low_score(cards: list[int]) -> float:
    """Hi-Lo (CARD-4): how good the 8-or-better low is, or promises to be on early streets."""
    if len(cards) >= 5:
        low = LOW8.evaluate(cards[:7])
        if low == NO_LOW:
            return 0.0
        return 0.55 + 0.4 * (low - _WORST_LOW) / (_BEST_LOW - _WORST_LOW)
    lows = {card >> 2 for card in cards if card >> 2 <= 6 or card >> 2 == 12}  # 2..8 and the ace
    return 0.4 + 0.06 * len(cards) if cards and len(lows) == len(cards) >= 3 else 0.0


def rate(own: list[int], ranking: Ranking, hi_lo: bool) -> tuple[int, float, int]:
    """(made category, rough 0..1 rating, exact evaluator value) of cards alone: the rating by
    made category, rank, draws and, in Hi-Lo, the 8-or-better low; the value is the high
    ranking's (the board ranking's below five cards), which percentiles break ties with."""
    category, score, value = _made_score(own, ranking)
    score += _draw_bonus(own)
    if hi_lo:
        score = max(score, _low_score(own))
    return category, score, value


def strength(view: View) -> float:
    """A rough 0..1 rating of the seat's hand (:func:`rate`), with a discount when an opponent's
    up cards alone already beat the seat's made category."""
    own = [*view.down, *view.up, *view.community]
    if not own:
        return 0.0
    category, score, _ = rate(own, view.high_ranking, view.variant.low is LOW8)
    for board in view.others_up:
        if 0 < len(board) <= 4 and category_of(BOARD.evaluate(board), BOARD) > category:
            score -= 0.2
            break
    return max(0.0, min(1.0, score))


def draw_discards(view: View, draw: Legal) -> tuple[int, ...]:
    """Keep made hands (straight or better), four to a flush, and pairs; throw the rest (with no
    pair, keep the two highest cards). The count is clamped to the legal bounds."""
    hand = sorted(view.down)
    if not hand:
        return ()
    ranking = view.high_ranking
    if len(hand) >= 5 and category_of(ranking.evaluate(hand), ranking) >= STRAIGHT:
        discard: list[int] = []
    else:
        suit, count = Counter(card & 3 for card in hand).most_common(1)[0]
        if count >= 4 and count == len(hand) - 1:
            discard = [card for card in hand if card & 3 != suit]
        else:
            ranks = Counter(card >> 2 for card in hand)
            discard = [card for card in hand if ranks[card >> 2] == 1]
            if len(discard) == len(hand):
                discard = hand[:-2]
    kept = [card for card in hand if card not in discard]
    while len(discard) < draw.min and kept:
        discard.append(kept.pop(0))  # lowest first
    return tuple(discard[: draw.max])


@dataclass(frozen=True, slots=True)
class Strength:
    """Plays its cards: folds weak hands to a bet, calls fair ones, raises strong ones."""

    name = "strength"
    needs_board = True
    stream_drops = None

    def decide(self, view: View, rng: random.Random) -> Action | None:
        draw = view.option("draw")
        if draw is not None:
            return Action("draw", discard=draw_discards(view, draw))
        score = strength(view)
        option = view.aggression()
        if option is not None and score >= RAISE_AT:
            if view.fixed_limit:
                return Action(option.kind, option.max)
            half_pot = option.min + view.pot // 2
            return Action(option.kind, max(option.min, min(option.max, half_pot)))
        if view.option("check") is not None or view.option("bring_in") is not None:
            return _passive(view)
        cheap = 4 * view.to_call <= view.pot
        if view.option("call") is not None and (score >= CALL_AT or (score >= CHEAP_CALL_AT and cheap)):
            return Action("call")
        if view.option("fold") is not None:
            return Action("fold")
        return _passive(view)
