"""Seat tokens: who may act for a seat.

SitDown (and a director's SeatPlayer) issues a random token bound to one occupancy of one seat;
every seat call presents it in the ``x-seat-token`` metadata. Standing up revokes it, so a token
never outlives the player it was given to, even when the seat is taken again.

A token is ``<handle>.<secret>`` (``secrets.token_urlsafe``: a 72-bit handle, a 192-bit secret,
45 characters). The handle names the token's entry: it is looked up, and it is not secret (a
refused call logs it, so a refusal can be traced to the seat and the table incarnation that issued
the token). The secret is compared in constant time (``hmac.compare_digest``), so neither the
lookup nor the comparison tells a guesser how much of its guess was right. Clients treat the token
as opaque; a table rebuilt from the ledger on another server honours the same tokens.

A tournament table's director presents the token it chose at CreateTable in ``x-director-token``;
that one secret per table is compared in constant time too (:mod:`.live_tournament`).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Iterable
from typing import NamedTuple

import grpc

from tablestorm.services.rpc.errors import ServiceError

SEAT_METADATA_KEY = "x-seat-token"
"""Seat calls carry the seat token (the bots' client reads this name too)."""
DIRECTOR_METADATA_KEY = "x-director-token"
"""Director calls on a tournament table carry the token its CreateTable named."""
MAX_TOKEN_LENGTH = 128
HANDLE_BYTES = 9
"""72 random bits: unique among the tokens of a run, and not secret."""
SECRET_BYTES = 24
"""192 random bits: the part a caller must know."""
SEPARATOR = "."
"""Never produced by ``secrets.token_urlsafe`` (its alphabet is ``A-Z a-z 0-9 - _``)."""


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
    return metadata_value(metadata, SEAT_METADATA_KEY)


def secret_matches(given: str, expected: bytes) -> bool:
    """Whether ``given`` is the secret ``expected``, compared in constant time
    (``hmac.compare_digest``: its time depends on the lengths alone); nothing over
    MAX_TOKEN_LENGTH characters is a token."""
    return len(given) <= MAX_TOKEN_LENGTH and hmac.compare_digest(given.encode(), expected)


def split_token(token: str) -> tuple[str, str] | None:
    """``(handle, secret)`` of a well-formed seat token, else None."""
    if len(token) > MAX_TOKEN_LENGTH:
        return None
    handle, separator, secret = token.partition(SEPARATOR)
    if not separator or not handle or not secret:
        return None
    return handle, secret


def handle_of(token: str | None) -> str | None:
    """What a log may show of a token: its handle (None when there is no well-formed token)."""
    parts = split_token(token) if token else None
    return parts[0] if parts is not None else None


class SeatTokens:
    """The live seat tokens of one server, by handle: issued, restored after a rebuild, revoked,
    and checked (the secret in constant time)."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, tuple[SeatKey, bytes]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def issue(self, key: SeatKey) -> str:
        handle = secrets.token_urlsafe(HANDLE_BYTES)
        while handle in self._entries:  # 72 bits: never in practice, but a handle names one token
            handle = secrets.token_urlsafe(HANDLE_BYTES)
        secret = secrets.token_urlsafe(SECRET_BYTES)
        self._entries[handle] = (key, secret.encode())
        return f"{handle}{SEPARATOR}{secret}"

    def restore(self, key: SeatKey, token: str) -> None:
        """Honour a token issued before a crash, for the table rebuilt from the ledger
        (ValueError for a string that is not a seat token)."""
        parts = split_token(token)
        if parts is None:
            raise ValueError("a restored seat token must be <handle>.<secret>")
        handle, secret = parts
        self._entries[handle] = (key, secret.encode())

    def revoke(self, token: str) -> None:
        handle = handle_of(token)
        if handle is not None:
            self._entries.pop(handle, None)

    def named(self, token: str | None) -> SeatKey | None:
        """The seat whose token has ``token``'s handle, whatever its secret (for a refusal's log)."""
        handle = handle_of(token)
        entry = self._entries.get(handle) if handle is not None else None
        return entry[0] if entry is not None else None

    def authorize(self, token: str | None, table_id: str, seat: int) -> SeatKey:
        """The key of ``token`` if it is the token of ``seat`` at ``table_id``.

        No, malformed or unknown token, or a wrong secret (including a token revoked by StandUp):
        UNAUTHENTICATED. A valid token of another seat or table: PERMISSION_DENIED.
        """
        if not token:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {SEAT_METADATA_KEY} metadata")
        parts = split_token(token)
        entry = self._entries.get(parts[0]) if parts is not None else None
        if parts is None or entry is None or not secret_matches(parts[1], entry[1]):
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        key = entry[0]
        if key.table_id != table_id or key.seat != seat:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"the seat token is not for seat {seat} of table {table_id!r}",
            )
        return key
