"""Request checks done before anything reaches a table: lengths, identifiers, ranges.

Every failure is INVALID_ARGUMENT and names the field, so a client can fix its request without
reading the server's code. Size limits bound what one request can make the server hold.
"""

from __future__ import annotations

import re

from tablestorm.services.rpc.errors import invalid
from tablestorm.services.table.convert import MAX_CHIPS

MAX_ID_LENGTH = 64
_TABLE_ID = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def table_id(value: str, field: str = "table_id") -> str:
    if not _TABLE_ID.fullmatch(value):
        raise invalid(f"{field}: 1 to {MAX_ID_LENGTH} characters of A-Z a-z 0-9 _ . - (got {value[:80]!r})")
    return value


def player_id(value: str) -> str:
    if not value or len(value) > MAX_ID_LENGTH or not value.isprintable():
        raise invalid(f"player_id: 1 to {MAX_ID_LENGTH} printable characters")
    return value


def action_id(value: str) -> str:
    if not value or len(value) > MAX_ID_LENGTH:
        raise invalid(f"action_id: 1 to {MAX_ID_LENGTH} characters")
    return value


def seat(value: int, seats: int, field: str = "seat") -> int:
    if not 1 <= value <= seats:
        raise invalid(f"{field}: must be between 1 and {seats}, got {value}")
    return value


def chips(value: int, field: str) -> int:
    if not 1 <= value <= MAX_CHIPS:
        raise invalid(f"{field}: a whole number of chips from 1 to 2**{MAX_CHIPS.bit_length() - 1}, got {value}")
    return value
