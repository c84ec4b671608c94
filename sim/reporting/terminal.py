"""Whether a live view may redraw in place: one answer for every command's view while it runs.

``tablestorm load``, ``schedule`` and ``tournament`` each show their progress on a stream: redrawn
in place (a carriage return, cursor moves) on a terminal that can take it, or as plain lines now and
then in a file, a pipe, a CI log, or a terminal that says it is ``dumb`` (Emacs' shell, some CI
runners), where a redraw would be garbage. The views write no colour, so ``NO_COLOR`` has nothing to
turn off.
"""

from __future__ import annotations

import os
from typing import TextIO

__all__ = ["redraws"]


def redraws(stream: TextIO) -> bool:
    """``stream`` is a terminal, and ``TERM`` is not ``dumb``."""
    return stream.isatty() and os.environ.get("TERM") != "dumb"
