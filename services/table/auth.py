"""Seat tokens: who may act for a seat.

SitDown issues a random token (``secrets.token_urlsafe(24)``, 192 bits) bound to one occupancy of
one seat; every seat call presents it in the ``x-seat-token`` metadata. Standing up revokes it, so a
token never outlives the player it was given to, even when the seat is taken again. A token is
looked up, never compared, so there is no comparison timing to leak.

A tournament table's director presents the token it chose at CreateTable in ``x-director-token``;
that one secret per table *is* compared, in constant time (:mod:`.live_tournament`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import NamedTuple

import grpc

from .errors import ServiceError

METADATA_KEY = "x-seat-token"
DIRECTOR_METADATA_KEY = "x-director-token"
"""Director calls on a tournament table carry the token its CreateTable named."""
MAX_TOKEN_LENGTH = 128


class SeatKey(NamedTuple):
    table_id: str
    seat: int
    occupancy: int
    """Which sit-down of that seat the token belongs to (an occupancy counter of the table)."""


def metadata_value(metadata: Iterable[tuple[str, str | bytes]] | None, name: str) -> str | None:
    """The value of the call's metadata key ``name``, if any."""
    for key, value in metadata or ():
        if key == name:
            return value if isinstance(value, str) else value.decode(errors="replace")
    return None


def token_from(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The seat token in the call's metadata, if any."""
    return metadata_value(metadata, METADATA_KEY)


class SeatTokens:
    __slots__ = ("_keys",)

    def __init__(self) -> None:
        self._keys: dict[str, SeatKey] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def issue(self, key: SeatKey) -> str:
        token = secrets.token_urlsafe(24)
        self._keys[token] = key
        return token

    def restore(self, key: SeatKey, token: str) -> None:
        """Honour a token issued before a crash, for the table rebuilt from the ledger."""
        self._keys[token] = key

    def revoke(self, token: str) -> None:
        self._keys.pop(token, None)

    def authorize(self, token: str | None, table_id: str, seat: int) -> SeatKey:
        """The key of ``token`` if it is the token of ``seat`` at ``table_id``.

        No or unknown token (including one revoked by StandUp): UNAUTHENTICATED. A valid token
        of another seat or table: PERMISSION_DENIED.
        """
        if not token:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {METADATA_KEY} metadata")
        key = self._keys.get(token) if len(token) <= MAX_TOKEN_LENGTH else None
        if key is None:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        if key.table_id != table_id or key.seat != seat:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the seat token is not for seat {seat} of table {table_id!r}",
            )
        return key
