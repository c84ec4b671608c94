"""Where a load run's tables live: the run's own table hosts on Ray, or table servers it is given.

The driver opens its tables, finds them, watches their servers and ends them through one
:class:`TableSites`, of two kinds:

* :class:`~tablestorm.sim.load.own_hosts.OwnHosts`: table host actors the run starts on Ray, writing the registry's
  ledger; a lost host's tables are rebuilt on the others with exact refunds, and the chips are
  counted by the ledger;
* :class:`~tablestorm.sim.load.given_servers.GivenServers` (``--target``): servers an SRE already runs, on which
  the run creates its tables or plays those it finds; there is no ledger, so a lost server's tables
  are lost with it, and the chips are counted from what the bots paid and were paid and what the
  servers' own tables hold at the end.

Everything else of a run (fleets, the load's shape, the stats, the report) is the same for both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from tablestorm.sim.load.recovery import Recovery
from tablestorm.sim.load.scenario import Scenario
from tablestorm.sim.load.seat_pool import SeatPool

__all__ = ["ChipTally", "Outages", "ServerLoss", "SiteEnd", "SiteFacts", "TableChips", "TableSites"]


class TableChips(NamedTuple):
    """What the bots paid onto one table (buy-ins, rebuys) and were paid off it (stand-ups)."""

    bought: int
    cashed_out: int


@dataclass(frozen=True, slots=True)
class ServerLoss:
    """A given server that stopped answering: nothing rebuilds its tables, so they are lost."""

    server: str
    """Its endpoint, HOST:PORT."""
    at_s: float
    """When it first failed to answer, in seconds since the load began."""
    tables: tuple[str, ...]
    chips_last_seen: int | None
    """The chips the run knew to be on its tables then: what they held when the run found them,
    plus what the bots paid there, minus what they were paid (None: a table's start was unknown)."""


@dataclass(frozen=True, slots=True)
class Outages:
    """What a check of the servers found: hosts rebuilt elsewhere, or servers lost for good."""

    recoveries: tuple[Recovery, ...] = ()
    losses: tuple[ServerLoss, ...] = ()


@dataclass(frozen=True, slots=True)
class SiteEnd:
    """What ending the tables took beyond the bots leaving."""

    voided: int = 0
    """Hands the servers' drain voided (exact refunds)."""
    seats_stood_up: int = 0
    """Players the servers stood up because their bots had not (within the wind-down's budget)."""
    chips_paid: int = 0
    """What those players were paid."""


@dataclass(frozen=True, slots=True)
class ChipTally:
    """The run's chips once it is over: ``start`` came onto its tables (and was there when they were
    found), ``end`` is on them plus what left with players; ``left_on_tables`` is what is still on
    them. None when a count could not be made."""

    start: int | None
    end: int | None
    left_on_tables: int | None


@dataclass(frozen=True, slots=True)
class SiteFacts:
    """What the summary says of where the tables lived."""

    servers: tuple[Mapping[str, Any], ...]
    """Each table server measured (``table_servers`` in summary.json)."""
    hosts: int
    """Table host actors asked for (0 for given servers)."""
    nodes: int
    """Ray nodes the live table hosts ran on (0 for given servers)."""
    target: Mapping[str, Any] | None = field(default=None)
    """``--target`` as it ran: the servers, whose tables, TLS; None for the run's own hosts."""


class TableSites(Protocol):
    """Where the tables of a load run live, and everything the run does to them there."""

    def open(self, scenario: Scenario, pool: SeatPool) -> None:
        """Open (or find) the run's tables; their free seats go into ``pool``, in fill order."""
        ...

    def where(self, table_id: str) -> str | None:
        """The endpoint serving ``table_id`` now; None while it has none."""
        ...

    def seat_tokens(self, seats: Sequence[tuple[str, int, str]]) -> list[str | None] | None:
        """The tokens of players seated at (table, seat, player id), so that a new bot can play
        their seats on (None for a player not seated there); None: nobody keeps the tokens."""
        ...

    def killable(self) -> Mapping[str, str]:
        """The servers the run's chaos may kill: id -> endpoint (only the run's own)."""
        ...

    def kill(self, server: str, at_s: float) -> Outages:
        """Kill ``server`` (one of :meth:`killable`) ``at_s`` seconds into the load."""
        ...

    def watch(self, at_s: float, chips: Mapping[str, TableChips]) -> Outages:
        """Check every server (once a second): the outages found, and what became of their tables.
        ``chips``: the bots' payments by table, for the chips a lost server held."""
        ...

    def stop_dealing(self) -> None:
        """The wind-down begins: the run's tables deal no new hand (the running ones play out)."""
        ...

    def finish(self) -> SiteEnd:
        """The bots have left: end the tables (every hand over, every seat cashed out or counted)."""
        ...

    def chips(self, bots: Mapping[str, TableChips]) -> ChipTally:
        """The run's chips after :meth:`finish`; ``bots``: the bots' payments by table."""
        ...

    def processing(self) -> list[tuple[float, float]]:
        """The servers' action processing histogram ((upper bound s, cumulative count), ``+Inf``
        last), or none when the run cannot read it."""
        ...

    def describe(self) -> SiteFacts:
        ...
