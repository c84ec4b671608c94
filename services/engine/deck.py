"""The cards of one hand: the stub, the burns, the discards, and how they are recycled.

The rules of *when* to burn or recycle (STUD-7, DRAW-4) live in the hand; this class only
gives cards. It exists as an object so that a replay can substitute a :class:`ScriptedDeck`
that hands out the cards a hand history recorded, with every count behaving as a real deck's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mypy_extensions import mypyc_attr

from .cards import Card
from .shuffle import Shuffler


@mypyc_attr(native_class=False)  # an exception class stays a Python class in the compiled build
class DeckExhausted(RuntimeError):
    """More cards were asked for than the deck holds: a variant with impossible street sizes."""


@mypyc_attr(native_class=False)
class ScriptExhausted(DeckExhausted):
    """A history gives ``player`` fewer cards than the game deals them."""

    def __init__(self, player: int) -> None:
        super().__init__(f"the history deals player {player} fewer cards than the game does")
        self.player = player


class Deck:
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
    """Deals the cards a history says each player received, in the order it says.

    Counts stay those of a real deck of ``cards`` (a burn or a recycle changes them as it
    would), so the hand takes the same STUD-7 and DRAW-4 branches as it did when played.
    """

    __slots__ = ("_script",)

    def __init__(self, cards: Sequence[Card], script: Mapping[int, Sequence[Card]]) -> None:
        """``script[player]`` lists every card that player receives, in order; key -1 is the
        STUD-7 community card."""
        self._script = {player: list(reversed(dealt)) for player, dealt in script.items()}
        scripted = {c for dealt in script.values() for c in dealt}
        # Unscripted cards go to the bottom so that burns (which no history records) take them.
        order = [c for c in cards if c not in scripted] + [c for c in cards if c in scripted]
        self.stub = list(reversed(order))
        self.burns = []
        self.discards = []

    def deal(self, players: Sequence[int], count: int) -> list[list[Card]]:
        for player in players:  # check every player first: a failed deal changes nothing
            if len(self._script.get(player, ())) < count:
                raise ScriptExhausted(player)
        out = []
        for player in players:
            wanted = self._script[player]
            batch = [wanted.pop() for _ in range(count)]
            for card in batch:
                self._take(card)
            out.append(batch)
        return out

    def burn(self) -> None:
        # Burn a card no one is scripted to receive later, if any remains.
        pending = {c for dealt in self._script.values() for c in dealt}
        for k in range(len(self.stub)):
            if self.stub[k] not in pending:
                self.burns.append(self.stub.pop(k))
                return
        self.burns.append(self.stub.pop())

    def recycle(self, *, discards: bool) -> int:
        returned = self.burns + self.discards if discards else self.burns
        self.stub = self.stub + returned
        self.burns = []
        if discards:
            self.discards = []
        return len(returned)

    def _take(self, card: Card) -> None:
        if card in self.stub:
            self.stub.remove(card)
        elif self.stub:
            self.stub.pop()  # the history re-deals a recycled card: keep the count honest
