"""The minimal TOML emitter PHH export needs: strings, numbers, booleans, arrays, inline tables.

The standard library reads TOML (``tomllib``) but does not write it, and a PHH hand uses so few
of its forms that a dependency would add more than it saves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def toml_string(text: str) -> str:
    """``text`` as a basic TOML string, escaping quotes, backslashes and control characters."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def toml_value(value: object) -> str:
    """A TOML value: a mapping is written as an inline table with bare keys, any other sequence
    than a string as an array."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value} to PHH")
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to PHH")
