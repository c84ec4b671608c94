"""Seat tokens (``tablestorm.services.table.auth.SeatTokens``): their format and strength, and that nothing but
the token itself authorizes its seat.

A token is ``<handle>.<secret>``: the handle names the entry (not secret), the 192-bit secret is
compared in constant time. A property (hypothesis) holds that no other string, however close
(the right handle with another secret, a prefix, the secret alone, an edit of one character) is
accepted, and that a token is refused once revoked.
"""

from __future__ import annotations

import base64

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablestorm.services.rpc.errors import ServiceError
from tablestorm.services.table.auth import HANDLE_BYTES, SECRET_BYTES, SeatKey, SeatTokens, handle_of, split_token

KEY = SeatKey("t", 3, 1)


def refused(tokens: SeatTokens, presented: str | None) -> grpc.StatusCode:
    with pytest.raises(ServiceError) as info:
        tokens.authorize(presented, "t", 3)
    return info.value.code


def test_a_token_is_a_handle_and_a_192_bit_secret_from_the_csprng() -> None:
    tokens = SeatTokens()
    issued = {tokens.issue(SeatKey("t", seat, seat)) for seat in range(1, 2001)}
    assert len(issued) == 2000 and len(tokens) == 2000
    for token in issued:
        parts = split_token(token)
        assert parts is not None
        handle, secret = parts
        assert len(base64.urlsafe_b64decode(secret + "==")) == SECRET_BYTES >= 16  # >= 128 bits
        assert len(base64.urlsafe_b64decode(handle + "==")) == HANDLE_BYTES and handle_of(token) == handle
    assert len({handle_of(t) for t in issued}) == 2000


def test_only_the_token_authorizes_its_seat_and_only_until_revoked() -> None:
    tokens = SeatTokens()
    token = tokens.issue(KEY)
    assert tokens.authorize(token, "t", 3) == KEY
    handle, secret = token.split(".")
    for presented in (None, "", handle, secret, f"{handle}.", f".{secret}", f"{handle}.{secret[:-1]}", token + "x",
                      f"{handle}.{secret}" + "y" * 200):
        assert refused(tokens, presented) == grpc.StatusCode.UNAUTHENTICATED, presented
    with pytest.raises(ServiceError) as other_seat:
        tokens.authorize(token, "t", 4)
    assert other_seat.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert tokens.named(f"{handle}.wrong") == KEY  # what a refusal's log names: the handle's seat
    tokens.revoke(token)
    assert refused(tokens, token) == grpc.StatusCode.UNAUTHENTICATED and tokens.named(token) is None


def test_a_restored_token_authorizes_as_it_did_and_a_malformed_one_is_not_restored() -> None:
    before = SeatTokens()
    token = before.issue(KEY)
    rebuilt = SeatTokens()
    rebuilt.restore(SeatKey("t", 3, 7), token)
    assert rebuilt.authorize(token, "t", 3) == SeatKey("t", 3, 7)
    with pytest.raises(ValueError, match=r"<handle>\.<secret>"):
        rebuilt.restore(KEY, "no-separator")


@given(st.text(max_size=80))
def test_no_other_string_authorizes_the_seat(guess: str) -> None:
    tokens = SeatTokens()
    token = tokens.issue(KEY)
    if guess != token:
        assert refused(tokens, guess) == grpc.StatusCode.UNAUTHENTICATED


@given(st.integers(0, 44), st.characters(categories=("L", "N", "P")))
def test_a_token_changed_in_one_place_does_not_authorize(position: int, character: str) -> None:
    tokens = SeatTokens()
    token = tokens.issue(KEY)
    changed = token[:position] + character + token[position + 1 :]
    if changed != token:
        code = refused(tokens, changed)
        # A change in the handle may land on no entry; in the secret it is a wrong secret: both refused.
        assert code == grpc.StatusCode.UNAUTHENTICATED
