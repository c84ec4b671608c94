"""The four games as data: decks, streets, forced bets, structures and rankings.

A game is a :class:`Variant` value, never a subclass: the hand state machine reads the
street list, the forced-bet kind and the rankings from it, so adding a game is adding a
table row. Per-table choices (stakes, structure, open pair, cap, clock, seats) live in
:class:`TableOptions`, whose defaults are those of docs/rules.md.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from tablestorm.services.engine.cards import DECK_32, DECK_36, DECK_52, Card
from tablestorm.services.engine.evaluation import HIGH, LOW8, SHORT_DECK_32, SHORT_DECK_36, Ranking
from tablestorm.services.fields import FieldError


class Structure(enum.Enum):
    """Betting structure (BET-1, BET-4)."""

    FIXED_LIMIT = "fixed_limit"
    POT_LIMIT = "pot_limit"
    NO_LIMIT = "no_limit"


class ForcedBets(enum.Enum):
    """How money goes in before the cards: stud antes plus a bring-in, or draw blinds."""

    ANTE_BRING_IN = "ante_bring_in"
    BLINDS = "blinds"


@dataclass(frozen=True, slots=True)
class Street:
    """One dealing step followed by one betting round.

    ``draw`` marks a draw round (DRAW-4) before the betting; ``big_bet`` selects the fixed-limit
    unit (STUD-4, DRAW-5); ``open_pair`` marks the round on which STUD-5 may apply.
    """

    down: int = 0
    up: int = 0
    burn: bool = False
    draw: bool = False
    big_bet: bool = False
    open_pair: bool = False


@dataclass(frozen=True, slots=True)
class DeckRule:
    """The deck and high ranking used when at least ``min_players`` are dealt in (CARD-5)."""

    min_players: int
    cards: tuple[Card, ...]
    high: Ranking


@dataclass(frozen=True, slots=True)
class Variant:
    """One game as data (deck, streets, forced bets, rankings, structures offered): the hand state
    machine reads everything it needs from it, so a new game is a new row, not new code."""

    code: str
    name: str
    streets: tuple[Street, ...]
    forced_bets: ForcedBets
    decks: tuple[DeckRule, ...]
    low: Ranking | None
    structures: frozenset[Structure]
    max_players: int
    open_pair_rule: bool
    """Whether STUD-5 exists in this game at all (Hi-Lo: no)."""
    street_names: tuple[str, ...]
    """What rooms call each street, in order (hand histories label the rounds with them)."""

    def deck_rule(self, players: int) -> DeckRule:
        """The deck for a hand dealt to ``players`` (the 36-card deck when five play 7-to-A)."""
        chosen = self.decks[0]
        for rule in self.decks:
            if players >= rule.min_players:
                chosen = rule
        return chosen

    @property
    def is_stud(self) -> bool:
        return self.forced_bets is ForcedBets.ANTE_BRING_IN

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """Pickle a game by its code: its rankings are compiled evaluators, rebuilt by lookup, so
        options cross process boundaries (Ray, a ledger) as a few bytes."""
        return variant_named, (self.code,)


_SEVEN_STUD_STREETS = (
    Street(down=2, up=1),
    Street(up=1, burn=True, open_pair=True),
    Street(up=1, burn=True, big_bet=True),
    Street(up=1, burn=True, big_bet=True),
    Street(down=1, burn=True, big_bet=True),
)

SEVEN_CARD_STUD = Variant(
    code="7stud",
    name="Seven Card Stud",
    streets=_SEVEN_STUD_STREETS,
    forced_bets=ForcedBets.ANTE_BRING_IN,
    decks=(DeckRule(2, DECK_52, HIGH),),
    low=None,
    structures=frozenset({Structure.FIXED_LIMIT}),
    max_players=8,
    open_pair_rule=True,
    street_names=("3rd street", "4th street", "5th street", "6th street", "7th street"),
)

SEVEN_CARD_STUD_HILO = replace(
    SEVEN_CARD_STUD,
    code="7stud8",
    name="Seven Card Stud Hi-Lo (8 or better)",
    low=LOW8,
    open_pair_rule=False,
)

FIVE_CARD_STUD = replace(
    SEVEN_CARD_STUD,
    code="5stud",
    name="Five Card Stud",
    streets=(
        Street(down=1, up=1),
        Street(up=1, burn=True, open_pair=True),
        Street(up=1, burn=True, big_bet=True),
        Street(up=1, burn=True, big_bet=True),
    ),
    street_names=("2nd street", "3rd street", "4th street", "5th street"),
)

SEVEN_TO_ACE_DRAW = Variant(
    code="7a5draw",
    name="Seven-to-Ace Five Card Draw",
    streets=(Street(down=5), Street(burn=True, draw=True, big_bet=True)),
    forced_bets=ForcedBets.BLINDS,
    decks=(DeckRule(2, DECK_32, SHORT_DECK_32), DeckRule(5, DECK_36, SHORT_DECK_36)),
    low=None,
    structures=frozenset(Structure),
    max_players=5,
    open_pair_rule=False,
    street_names=("deal", "draw"),
)

VARIANTS: dict[str, Variant] = {
    v.code: v for v in (SEVEN_CARD_STUD, SEVEN_CARD_STUD_HILO, FIVE_CARD_STUD, SEVEN_TO_ACE_DRAW)
}


def variant_named(code: str) -> Variant:
    """Look a game up by code, with an error that lists the valid codes."""
    try:
        return VARIANTS[code]
    except KeyError:
        raise ValueError(f"unknown game {code!r}; known games: {', '.join(VARIANTS)}") from None


@dataclass(frozen=True, slots=True)
class Stakes:
    """Chip amounts of one table. All money is integer chips.

    Stud uses ``ante``, ``bring_in``, ``small_bet`` and ``big_bet``; the draw game uses the
    blinds, plus the bets in fixed limit (the big blind is the minimum bet in pot and no limit).
    """

    small_bet: int
    big_bet: int
    ante: int = 0
    bring_in: int = 0
    small_blind: int = 0
    big_blind: int = 0

    @classmethod
    def default(cls, small_bet: int) -> Stakes:
        """The default stakes for a small bet (docs/rules.md): big bet 2x, ante 10% rounded (STUD-3),
        bring-in half the small bet (STUD-3), blinds half the small bet and the small bet (DRAW-2)."""
        half = small_bet // 2
        return cls(
            small_bet=small_bet,
            big_bet=2 * small_bet,
            ante=(small_bet + 5) // 10,  # 10%, halves rounded up
            bring_in=max(1, half),
            small_blind=max(1, half),
            big_blind=small_bet,
        )

    def validate(self, variant: Variant, structure: Structure) -> None:
        """Raise :class:`FieldError` naming the first field (``stakes.<name>``) that cannot work for this game."""
        for name in ("small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind"):
            if getattr(self, name) < 0:
                raise FieldError(f"stakes.{name}", "must not be negative")
        if not variant.is_stud:
            if self.big_blind <= 0:
                raise FieldError("stakes.big_blind", "must be positive")
            if self.small_blind > self.big_blind:
                raise FieldError("stakes.small_blind", "must not exceed stakes.big_blind")
        if variant.is_stud or structure is Structure.FIXED_LIMIT:
            if self.small_bet <= 0:
                raise FieldError("stakes.small_bet", "must be positive")
            if self.big_bet < self.small_bet:
                raise FieldError("stakes.big_bet", "must be at least stakes.small_bet")
        if variant.is_stud and not 0 < self.bring_in <= self.small_bet:
            raise FieldError("stakes.bring_in", "must be between 1 and stakes.small_bet")


@dataclass(frozen=True, slots=True)
class TableOptions:
    """Everything a table is configured with; the defaults are docs/rules.md's."""

    variant: Variant
    stakes: Stakes
    structure: Structure = Structure.FIXED_LIMIT
    open_pair: bool | None = None
    """STUD-5; ``None`` means the game's own rule (on for stud high and five card stud)."""
    heads_up_uncapped: bool = True  # BET-3
    cap: int = 4  # BET-2: one bet and three raises
    clock_seconds: float = 10.0  # CLOCK-1
    max_seats: int = 0
    """0 means the game's maximum (8 for stud, 5 for the draw game)."""
    buy_in: int = 0
    """The posted buy-in (TABLE-1); 0 means 100 big bets (100 big blinds in pot and no limit)."""

    def __post_init__(self) -> None:
        self.stakes.validate(self.variant, self.structure)
        if self.structure not in self.variant.structures:
            raise FieldError("structure", f"{self.structure.value} is not offered for {self.variant.name}")
        if self.cap < 2:
            raise FieldError("cap", "must be at least 2 bets")
        if self.clock_seconds <= 0:
            raise FieldError("clock_seconds", "must be positive")
        if not 0 <= self.max_seats <= self.variant.max_players:
            raise FieldError("max_seats", f"must be between 2 and {self.variant.max_players}")
        if self.max_seats == 1:
            raise FieldError("max_seats", "must be at least 2")
        if self.buy_in < 0:
            raise FieldError("buy_in", "must not be negative")

    @property
    def seats(self) -> int:
        return self.max_seats or self.variant.max_players

    @property
    def big_unit(self) -> int:
        """What buy-ins are counted in: the big bet in fixed limit, the big blind in pot and no limit."""
        return self.stakes.big_bet if self.structure is Structure.FIXED_LIMIT else self.stakes.big_blind

    @property
    def posted_buy_in(self) -> int:
        return self.buy_in or 100 * self.big_unit

    @property
    def open_pair_active(self) -> bool:
        rule = self.variant.open_pair_rule if self.open_pair is None else self.open_pair
        return rule and self.variant.open_pair_rule
