"""Who may make a call of the tournament service: players by their token, the operator by its.

Register gives each player a random token (``secrets.token_urlsafe(24)``: 192 bits), kept for
the player's every entry; the calls a player makes for itself carry it in ``x-player-token``. The
server's operator token, when it has one, guards the operator calls (``x-operator-token``).
Tokens are compared in constant time (``hmac.compare_digest``): the player id is public, so a
lookup by token would not do.
"""

from __future__ import annotations

import hmac
import secrets

import grpc

from services.table.errors import ServiceError

PLAYER_METADATA_KEY = "x-player-token"
OPERATOR_METADATA_KEY = "x-operator-token"
MAX_TOKEN_LENGTH = 128


def _same(given: str, expected: str) -> bool:
    return len(given) <= MAX_TOKEN_LENGTH and hmac.compare_digest(given.encode(), expected.encode())


def check_operator(given: str | None, expected: str | None) -> None:
    """An operator call: free when the server has no operator token, else it must be presented."""
    if expected is None:
        return
    if not given:
        raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {OPERATOR_METADATA_KEY} metadata")
    if not _same(given, expected):
        raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "not the operator token of this server")


class PlayerTokens:
    """The token of each player of one tournament."""

    __slots__ = ("_tokens",)

    def __init__(self) -> None:
        self._tokens: dict[str, str] = {}

    def __contains__(self, player_id: str) -> bool:
        return player_id in self._tokens

    def issue(self, player_id: str) -> str:
        token = self._tokens[player_id] = secrets.token_urlsafe(24)
        return token

    def forget(self, player_id: str) -> None:
        self._tokens.pop(player_id, None)

    def check(self, player_id: str, given: str | None) -> None:
        """``given`` must be ``player_id``'s token: missing UNAUTHENTICATED, wrong PERMISSION_DENIED."""
        if not given:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {PLAYER_METADATA_KEY} metadata")
        expected = self._tokens.get(player_id)
        if expected is None or not _same(given, expected):
            raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, f"not the player token of {player_id!r}")
