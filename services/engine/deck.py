"""The cards of one hand: the stub, the burns, the discards, and how they are recycled.

The rules of *when* to burn or recycle (STUD-7, DRAW-4) live in the hand; this class only
gives cards. It exists as an object so that a replay can substitute a :class:`ScriptedDeck`
that hands out the cards a hand history recorded, with every count behaving as a real deck's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mypy_extensions import mypyc_attr

from tablestorm.services.engine.cards import Card, card_str
from tablestorm.services.engine.shuffle import Shuffler


@mypyc_attr(native_class=False)  # an exception class stays a Python class in the compiled build
class DeckExhausted(RuntimeError):
    """More cards were asked for than the deck holds: a variant with impossible street sizes."""


@mypyc_attr(native_class=False)
class ScriptExhausted(DeckExhausted):
    """A history gives ``player`` fewer cards than the game deals them."""

    def __init__(self, player: int) -> None:
        super().__init__(f"the history deals player {player} fewer cards than the game does")
        self.player = player


@mypyc_attr(native_class=False)
class ImpossibleDeal(RuntimeError):
    """A history names a card that the deck, the burns and the reshuffle rules (STUD-7, DRAW-4)
    could not have dealt at that point.

    ``position`` is the card's place in the script of ``player`` (-1: the community card) and
    ``reason`` says why, with players written as ``player N``. The hand is left mid-deal.
    """

    def __init__(self, player: int, position: int, reason: str) -> None:
        super().__init__(reason)
        self.player = player
        self.position = position
        self.reason = reason


class Deck:
    """A shuffled deck: the stub deals from its end; the burns and the discards wait for a reshuffle."""

    __slots__ = ("_shuffler", "burns", "discards", "stub")

    def __init__(self, cards: Sequence[Card], shuffler: Shuffler) -> None:
        self._shuffler = shuffler
        self.stub = shuffler.shuffled(cards)
        """Cards still to deal; the next card is the last element."""
        self.burns: list[Card] = []
        self.discards: list[Card] = []

    def __len__(self) -> int:
        return len(self.stub)

    def deal(self, players: Sequence[int], count: int) -> list[list[Card]]:
        """``count`` cards for each of ``players``, one batch per player in dealing order."""
        stub = self.stub
        total = count * len(players)
        if len(stub) < total:
            raise DeckExhausted(f"{total} cards wanted, {len(stub)} left")
        cut = len(stub) - total  # not ``stub[-total:]``: with total 0 that is the whole stub
        dealt = stub[cut:]
        del stub[cut:]
        # The first player takes the top ``count`` cards (the end of the stub), the next the ones below.
        return [dealt[total - (k + 1) * count : total - k * count] for k in range(len(players))]

    def burn(self) -> None:
        self.burns.append(self.stub.pop())

    def recycle(self, *, discards: bool) -> int:
        """Shuffle the burns (and the discards, if asked) with what is left into a new stub.

        Returns how many cards came back.
        """
        returned = self.burns + self.discards if discards else self.burns
        self.stub = self._shuffler.shuffled(self.stub + returned)
        self.burns = []
        if discards:
            self.discards = []
        return len(returned)


class ScriptedDeck(Deck):
    """Deals the cards a history says each player received, and refuses any card a real deck
    could not have dealt at that point.

    It is a real deck of ``cards`` whose order nobody knows: :attr:`stub`, :attr:`burns` and
    :attr:`discards` hold the cards a real deck would hold, so every count is the real one and the
    hand takes the STUD-7 and DRAW-4 branches it took when played. A card is dealt only from the
    stub: the burns and the discards join it when the hand shuffles them in (:meth:`recycle`), not
    before. The one freedom is the burns. A history does not record them and nobody saw them, so a
    burned card is any stub card the history does not deal: when it deals a card the deck had
    burned, the burn was another card of the stub, and the deck burns that one instead.
    """

    __slots__ = ("_cards", "_holder", "_next", "_script")

    def __init__(self, cards: Sequence[Card], script: Mapping[int, Sequence[Card]]) -> None:
        """``script[player]`` lists every card that player receives, in order; key -1 is the
        STUD-7 community card."""
        self._cards = frozenset(cards)
        self._script = {player: list(dealt) for player, dealt in script.items()}
        self._next = dict.fromkeys(self._script, 0)
        """How many cards of each script have been dealt."""
        self._holder: dict[Card, int] = {}
        """Who was dealt each card (-1: the community card), until it is dealt again."""
        self.stub = list(cards)
        self.burns = []
        self.discards = []

    def deal(self, players: Sequence[int], count: int) -> list[list[Card]]:
        if len(self.stub) < count * len(players):
            raise DeckExhausted(f"{count * len(players)} cards wanted, {len(self.stub)} left")
        for player in players:  # check every script first: a short one changes nothing
            if self._left(player) < count:
                self._refuse_short(player, len(players))
        out = []
        for player in players:
            first = self._next[player]
            batch = self._script[player][first : first + count]
            for k in range(count):
                self._take(player, first + k, batch[k])
            self._next[player] = first + count
            out.append(batch)
        return out

    def burn(self) -> None:
        self.burns.append(self.stub.pop(self._spare()))

    def recycle(self, *, discards: bool) -> int:
        returned = self.burns + self.discards if discards else self.burns
        self.stub = self.stub + returned
        self.burns = []
        if discards:
            self.discards = []
        return len(returned)

    def undealt(self) -> list[tuple[int, int]]:
        """``(player, position)`` of the first scripted card the hand has not dealt, per script."""
        return [(player, self._next[player]) for player in self._script if self._left(player)]

    def _left(self, player: int) -> int:
        if player not in self._script:
            return 0
        return len(self._script[player]) - self._next[player]

    def _refuse_short(self, player: int, receivers: int) -> None:
        """The script of ``player`` has no card for this deal: a STUD-7 community card written as a
        card for each player, or the other way round, is an impossible deal; else a short script."""
        if player < 0:
            for other in sorted(self._script):
                if other >= 0 and self._left(other):
                    raise ImpossibleDeal(
                        other,
                        self._next[other],
                        f"only {_count(len(self.stub))} left, not one for each player: "
                        "STUD-7 turns one community card instead",
                    )
        elif self._left(-1):
            raise ImpossibleDeal(
                -1,
                self._next[-1],
                f"the stub holds {_count(len(self.stub))}, enough for a card to each of the {receivers} "
                "players: a community card is dealt only when it is not (STUD-7)",
            )
        raise ScriptExhausted(player)

    def _take(self, player: int, position: int, card: Card) -> None:
        stub = self.stub
        if card in stub:
            stub.remove(card)
        elif card in self.burns:
            # Nobody saw the burn: it was another stub card, one the history deals to no one.
            self.burns.remove(card)
            self.burns.append(stub.pop(self._spare()))
        else:
            raise ImpossibleDeal(player, position, self._unavailable(player, card))
        self._holder[card] = player

    def _spare(self) -> int:
        """The index of a stub card to burn: one no script still holds, if any is left."""
        pending = {c for player, dealt in self._script.items() for c in dealt[self._next[player] :]}
        stub = self.stub
        for k in range(len(stub) - 1, -1, -1):
            if stub[k] not in pending:
                return k
        return len(stub) - 1

    def _unavailable(self, player: int, card: Card) -> str:
        """Why ``card`` cannot be dealt to ``player`` now (it is in neither the stub nor the burns)."""
        name = card_str(card)
        if card not in self._cards:
            return f"{name} is not in this hand's {len(self._cards)}-card deck (CARD-5)"
        if card in self.discards:
            return (
                f"{name} is a discard, and the stub still holds {_count(len(self.stub))}: "
                "the discards are shuffled in only when it runs out (DRAW-4)"
            )
        holder = self._holder[card]
        if holder == player:
            return f"player {player} already had {name}: no card comes back to its player, not even a discard (DRAW-4)"
        if holder < 0:
            return f"{name} is the community card (STUD-7)"
        return f"{name} was already dealt to player {holder}: no card is dealt twice"


def _count(cards: int) -> str:
    return f"{cards} card" if cards == 1 else f"{cards} cards"
