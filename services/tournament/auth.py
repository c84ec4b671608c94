"""Who may make a call of the tournament service: players by their token, the operator by its.

Register gives each player a random token (``secrets.token_urlsafe(24)``: 192 bits), kept for
the player's every entry; the calls a player makes for itself carry it in ``x-player-token``. The
server's operator token, when it has one, guards the operator calls (``x-operator-token``).
A player's token is found by the player's id (public, so not secret: the handle); the server
keeps only its SHA-256 digest (what a journal may hold: docs/security.md), and compares the digest
of the token presented with it in constant time (``hmac.compare_digest``), as it compares the
operator token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

import grpc

from tablestorm.services.rpc.errors import ServiceError
from tablestorm.services.table.auth import MAX_TOKEN_LENGTH, secret_matches

PLAYER_METADATA_KEY = "x-player-token"
OPERATOR_METADATA_KEY = "x-operator-token"


def check_operator(given: str | None, expected: str | None) -> None:
    """An operator call: free when the server has no operator token, else it must be presented."""
    if expected is None:
        return
    if not given:
        raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {OPERATOR_METADATA_KEY} metadata")
    if not secret_matches(given, expected.encode()):
        raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "not the operator token of this server")


def token_digest(token: str) -> bytes:
    """What is kept of a player's token (a 192-bit random secret needs no slow hash)."""
    return hashlib.sha256(token.encode()).digest()


class PlayerTokens:
    """The token digest of each player of one tournament."""

    __slots__ = ("_tokens",)

    def __init__(self, digests: dict[str, bytes] | None = None) -> None:
        self._tokens: dict[str, bytes] = dict(digests or {})

    def __contains__(self, player_id: str) -> bool:
        return player_id in self._tokens

    def issue(self, player_id: str) -> tuple[str, bytes]:
        """A new token for ``player_id``, and its digest."""
        token = secrets.token_urlsafe(24)
        digest = self._tokens[player_id] = token_digest(token)
        return token, digest

    def forget(self, player_id: str) -> None:
        self._tokens.pop(player_id, None)

    def check(self, player_id: str, given: str | None) -> None:
        """``given`` must be ``player_id``'s token: missing UNAUTHENTICATED, wrong PERMISSION_DENIED."""
        if not given:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {PLAYER_METADATA_KEY} metadata")
        expected = self._tokens.get(player_id)
        if expected is None or len(given) > MAX_TOKEN_LENGTH or not hmac.compare_digest(token_digest(given), expected):
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, f"not the player token of {player_id!r}")
