"""Pure game logic: cards, hand rankings, the four variants, hands, tables, hand histories.

No I/O, clocks, threads, gRPC or Ray here: the services and simulations own those and drive
this package through :class:`Hand` (one hand) and :class:`CashTable` (seats across hands).
"""

from tablestorm.services.engine import _compiled, actions, deck, evaluation, events, hand, pots, record, shuffle
from tablestorm.services.engine.actions import Action, ActionKind, IllegalAction, LegalAction, TimeoutOutcome
from tablestorm.services.engine.cards import Card, card_str, cards_str, parse_card, parse_cards
from tablestorm.services.engine.deck import Deck, ScriptedDeck
from tablestorm.services.engine.hand import BlindPost, Hand, default_blinds
from tablestorm.services.engine.shuffle import SecureShuffler, SeededShuffler, Shuffler, shuffler_for
from tablestorm.services.engine.variants import (
    FIVE_CARD_STUD,
    SEVEN_CARD_STUD,
    SEVEN_CARD_STUD_HILO,
    SEVEN_TO_ACE_DRAW,
    VARIANTS,
    Stakes,
    Structure,
    TableOptions,
    Variant,
    variant_named,
)

_compiled.check(record, actions, events, hand, pots, deck, shuffle, evaluation)

__all__ = [
    "FIVE_CARD_STUD",
    "SEVEN_CARD_STUD",
    "SEVEN_CARD_STUD_HILO",
    "SEVEN_TO_ACE_DRAW",
    "VARIANTS",
    "Action",
    "ActionKind",
    "BlindPost",
    "Card",
    "Deck",
    "Hand",
    "IllegalAction",
    "LegalAction",
    "ScriptedDeck",
    "SecureShuffler",
    "SeededShuffler",
    "Shuffler",
    "Stakes",
    "Structure",
    "TableOptions",
    "TimeoutOutcome",
    "Variant",
    "card_str",
    "cards_str",
    "default_blinds",
    "parse_card",
    "parse_cards",
    "shuffler_for",
    "variant_named",
]
