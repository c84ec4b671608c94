"""Who enters a tournament, when, and what they buy: the field's rates.

An operator knows a field in shares: how many of the entrants register during late registration
(after the start), and how many of the players re-enter when busted while it is open, keep the
standing rebuy preference, and take the add-on (TOURN-10). :class:`FieldRates` holds the four;
:meth:`FieldRates.profiles` splits a field's player profiles by the last three (one rule for
``tablestorm tournament``, ``tablestorm structure`` and the schedules), :meth:`FieldRates.late`
counts the late entrants.

[decision] The defaults are the example day's (``sim/schedules/online-day.yaml``): a quarter of
each field registers late (:data:`LATE_SHARE`) and 15 % of the players re-enter
(:data:`REENTRY_RATE`); everyone who may rebuy or add on does (:data:`REBUY_RATE`,
:data:`ADDON_RATE`), the schedules' rule, for no room publishes those shares. A rate applies only
where the structure offers what it is a rate of (:func:`offered`): a structure without late
registration has no late entrants whatever the default says, and a rate given for what the
structure does not offer is refused, as a schedule refuses it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.inputs import PROBABILITY

if TYPE_CHECKING:
    from tablestorm.services.director.structure import TournamentStructure
    from tablestorm.sim.tournament.profiles import PlayerProfile

__all__ = ["ADDON_RATE", "LATE_SHARE", "REBUY_RATE", "REENTRY_RATE", "FieldRates", "offered"]

LATE_SHARE: Final = 0.25
"""Share of the entrants registering during late registration (the example day's)."""
REENTRY_RATE: Final = 0.15
"""Share of the players re-entering when busted while late registration is open (the example day's)."""
REBUY_RATE: Final = 1.0
"""Share of the players with the standing rebuy preference (the schedules' rule: all)."""
ADDON_RATE: Final = 1.0
"""Share of the players taking the add-on (the schedules' rule: all)."""
MINIMUM_START: Final = 2
"""Entrants registered before the start, at least: a tournament starts with two."""


@dataclass(frozen=True, slots=True)
class FieldRates:
    """The field's four shares, each 0 to 1 (0: nobody; a rate of what the structure does not
    offer is 0)."""

    late_share: float = 0.0
    reentry_rate: float = 0.0
    rebuy_rate: float = 0.0
    addon_rate: float = 0.0

    def __post_init__(self) -> None:
        for name, value in self.to_dict().items():
            PROBABILITY.check(value, name)

    def late(self, entrants: int) -> int:
        """How many of ``entrants`` register during late registration (the rest before the start,
        at least :data:`MINIMUM_START` of them)."""
        return min(round(self.late_share * entrants), entrants - MINIMUM_START)

    def profiles(self, field: Sequence[PlayerProfile]) -> tuple[PlayerProfile, ...]:
        """Each of ``field``'s profiles split into those who re-enter or not, rebuy or not, add on or
        not, in the rates' shares of its weight (rows of no weight left out)."""
        rows = [
            dataclasses.replace(profile, weight=profile.weight * reenter_share * rebuy_share * addon_share,
                                reenter=reenter, rebuys=rebuys, add_on=add_on)
            for profile in field
            for reenter_share, reenter in _split(self.reentry_rate)
            for rebuy_share, rebuys in _split(self.rebuy_rate)
            for addon_share, add_on in _split(self.addon_rate)
        ]
        return tuple(row for row in rows if row.weight > 0)

    def to_dict(self) -> dict[str, float]:
        return dataclasses.asdict(self)


def _split(rate: float) -> tuple[tuple[float, bool], tuple[float, bool]]:
    """The share that does (``rate``) and the share that does not."""
    return (rate, True), (1.0 - rate, False)


def offered(
    structure: TournamentStructure,
    *,
    late_share: float | None = None,
    reentry_rate: float | None = None,
    rebuy_rate: float | None = None,
    addon_rate: float | None = None,
) -> FieldRates:
    """The rates for ``structure``, each given or None (its default where the structure offers it,
    else 0); :class:`FieldError` naming a rate out of 0 to 1, or above 0 for what the structure
    does not offer."""
    given = {"late_share": late_share, "reentry_rate": reentry_rate, "rebuy_rate": rebuy_rate,
             "addon_rate": addon_rate}
    offers = {
        "late_share": (structure.late_registration is not None, LATE_SHARE, "has no late_registration"),
        "reentry_rate": (structure.reentry.max_entries > 1, REENTRY_RATE, "allows no re-entry (reentry.max_entries)"),
        "rebuy_rate": (structure.rebuys is not None, REBUY_RATE, "has no rebuys"),
        "addon_rate": (structure.addon is not None, ADDON_RATE, "has no addon"),
    }
    rates: dict[str, float] = {}
    for name, (offer, default, missing) in offers.items():
        value = given[name]
        rates[name] = (default if offer else 0.0) if value is None else PROBABILITY.check(value, name)
        if rates[name] and not offer:
            raise FieldError(name, f"the structure ({structure.name or 'unnamed'}) {missing}")
    return FieldRates(**rates)
