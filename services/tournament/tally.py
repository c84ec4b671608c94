"""What the live driver counts of a tournament's hands beside its director, and how a restart
counts it again: kept with each snapshot in the journal, then counted over the inputs replayed
(:meth:`Tally.replayed`)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from tablestorm.services.director import inputs as di
from tablestorm.services.director.commands import Command, DealHand

__all__ = ["Tally"]


@dataclass(slots=True)
class Tally:
    hands: int = 0
    """Hands played to their end on the tournament's tables (voided ones not counted)."""
    hands_dealt: int = 0
    """Hands the director dealt: counted as its ``DealHand`` is carried out, before the pause
    between hands, the moment a schedule forecast counts a hand (``sim/schedule/demand.py``)."""
    tables_lost: int = 0
    """Tables rebuilt after a fault (their server down, or refusing a director call)."""
    hands_by_players: Counter[int] = field(default_factory=Counter)
    """Hands whose results came back, voided ones included, by the number of players dealt in."""

    def result(self, players: int, voided: bool) -> None:
        """A hand's result came back."""
        self.hands_by_players[players] += 1
        if not voided:
            self.hands += 1

    def dumps(self, dealing: Iterable[Command] = ()) -> str:
        """As the journal keeps it, with the deals of ``dealing`` (commands not carried out yet)."""
        dealt = self.hands_dealt + sum(1 for c in dealing if isinstance(c, DealHand))
        return json.dumps({"hands": self.hands, "hands_dealt": dealt, "tables_lost": self.tables_lost,
                           "hands_by_players": {str(k): v for k, v in self.hands_by_players.items()}})

    @classmethod
    def loads(cls, text: str | None) -> Tally:
        if text is None:
            return cls()
        data = json.loads(text)
        by_players = Counter({int(k): v for k, v in data["hands_by_players"].items()})
        return cls(data["hands"], data["hands_dealt"], data["tables_lost"], by_players)


    def replayed(self, given: di.Input, commands: list[Command]) -> None:
        """Count what an input replayed after a restart tells (an unplaced table offered again
        counts as lost: the journal does not tell them apart)."""
        self.hands_dealt += sum(1 for c in commands if isinstance(c, DealHand))
        if isinstance(given, di.HandFinished):
            self.result(len(given.result.seats), given.result.voided)
        elif isinstance(given, di.TableLost):
            self.tables_lost += 1
