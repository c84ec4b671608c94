"""What a bot knows, built from the engine's hand instead of an event stream.

A live bot (``tablestorm.sim.bots.client``) builds its :class:`~tablestorm.sim.bots.strategies.View` from the events its
seat receives; the accelerated driver has the :class:`~tablestorm.services.engine.Hand` itself. :func:`view_of`
gives the very View the live client would have built at the same turn (the same fields, the same
values), so that a strategy decides alike in both and live and accelerated runs of one seed agree.
It reads the engine's state in O(players), and each event once (the round's raises, counted on
from turn to turn), except in one place where the client's bookkeeping differs from the engine's:
during a draw the client still reports the street and its own street total of the round before
the draw (no event of the draw moves them), while the engine has moved on to the draw street with
the bets cleared.
"""

from __future__ import annotations

from tablestorm.services.engine import Action, ActionKind, Hand
from tablestorm.services.engine.events import Acted, ForcedBet, HandStarted, RoundStarted
from tablestorm.services.engine.hand import DRAWING, FOLDED
from tablestorm.sim.bots.strategies import Action as BotAction
from tablestorm.sim.bots.strategies import Legal, View

__all__ = ["HandViews", "engine_action", "view_of"]

_KINDS = {kind.value: kind for kind in ActionKind}
_AGGRESSIVE = (ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE)
"""A tuple, not the engine's frozenset: ``in`` matches Enum members by identity, where a set
would call their Python-level ``__hash__`` on every event."""


class HandViews:
    """The Views of one hand's players, turn after turn: what stays the same all hand (the game,
    the betting structure, the deck, the big blind posted) is read once, when the hand is dealt;
    the rest at each turn, and the round's raises are counted on from the events read at the turn
    before. The driver builds one per hand; :func:`view_of` is one turn's."""

    __slots__ = ("_big_blind", "_deck_size", "_game", "_hand", "_hand_number", "_raises", "_read", "_structure")

    def __init__(self, hand: Hand, *, hand_number: int) -> None:
        """``hand_number`` is the table's number of the hand (the client's YourTurn carries it)."""
        options = hand.options
        self._hand = hand
        self._hand_number = hand_number
        self._game = options.variant.code
        self._structure = options.structure.value
        self._deck_size = len(hand.deck_rule.cards)
        self._big_blind = _big_blind(hand)
        self._read = 0
        """Events counted into ``_raises`` so far."""
        self._raises = 0

    def of(self, player: int, *, needs_board: bool) -> View:
        """The View of player index ``player`` on their turn, as their client builds it.

        ``needs_board`` is the strategy's: a client tracks others' up cards only for such strategies.
        """
        hand = self._hand
        # ``_value_``, the member's plain attribute: ``.value`` is a Python-level property.
        legal = tuple([Legal(option.kind._value_, option.min, option.max) for option in hand.legal_actions()])
        if hand.phase == DRAWING:
            street, bet, to_call = hand.street - 1, _last_round_bet(hand, player), 0
        else:
            street, bet = hand.street, hand.bets[player]
            to_call = 0
            for option in legal:
                if option.kind == "call":
                    to_call = option.max - bet
        up, status = hand.up, hand.status
        others: list[tuple[int, ...]] = []
        opponents = 0
        for j in range(hand.n):
            if j != player and status[j] != FOLDED:
                opponents += 1
                if needs_board and up[j]:
                    others.append(up[j])
        community = hand.community_card
        # Positional, in the fields' order (test_tournament_view checks each against the client's):
        # keywords would be a third of the cost of building the View.
        return View(
            self._game,
            self._structure,
            legal,
            hand.down[player],
            up[player],
            tuple(others),  # others_up
            () if community is None else (community,),
            street,
            hand.pot_total(),
            bet,
            to_call,
            hand.stacks[player],
            self._hand_number,
            self._deck_size,
            self._big_blind,
            opponents,
            self._count_raises(),  # during a draw, of the round before it, as the client counts
        )

    def _count_raises(self) -> int:
        """Bets, raises and completions since the betting round began."""
        events = self._hand.events
        raises = self._raises
        for event in events[self._read:]:
            if type(event) is RoundStarted:
                raises = 0
            elif type(event) is Acted and event.kind in _AGGRESSIVE:
                raises += 1
        self._read = len(events)
        self._raises = raises
        return raises


def view_of(hand: Hand, player: int, *, hand_number: int, needs_board: bool) -> View:
    """The View of player index ``player`` of ``hand`` on their turn, as their client builds it
    (:meth:`HandViews.of`; ``hand_number`` is the table's number of the hand)."""
    return HandViews(hand, hand_number=hand_number).of(player, needs_board=needs_board)


def _big_blind(hand: Hand) -> int:
    """The largest big blind posted (as the client sees the ForcedBet events; 0 in stud)."""
    posted = 0
    for event in hand.events:
        if type(event) is ForcedBet:
            if event.kind == "big_blind" and event.amount > posted:
                posted = event.amount
        elif type(event) is not HandStarted:
            break  # the blinds come first
    return posted


def _last_round_bet(hand: Hand, player: int) -> int:
    """The client's own street total during a draw: its last action or live blind before it."""
    for event in reversed(hand.events):
        if type(event) is Acted and event.player == player:
            return event.to
        if type(event) is ForcedBet and event.player == player and event.live:
            return event.amount
    return 0


def engine_action(action: BotAction) -> Action:
    """A strategy's action as the engine takes it."""
    return Action(_KINDS[action.kind], action.amount, tuple(action.discard))
