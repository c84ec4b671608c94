"""Chaos events of a run: kill a table host or a bot fleet at a given second.

``--chaos kill-host@20s`` (repeatable) or a list of the same strings; the driver fires each event at
its time into the run and the recovery machinery (:mod:`tablestorm.sim.load.recovery`) has to bring the run back
with no chip lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablestorm.services.fields import FieldError

_PATTERN = re.compile(r"(kill-host|kill-fleet)@(\d+(?:\.\d+)?)s?")


@dataclass(frozen=True, slots=True)
class ChaosEvent:
    """Kill one actor ``at`` seconds into the run: ``kill-host`` or ``kill-fleet``."""

    action: str
    at: float

    @classmethod
    def parse(cls, text: str) -> ChaosEvent:
        """``kill-host@20s`` or ``kill-fleet@7.5``: the time is required (an event "at 0 s" by
        omission would fire before the load has started); :class:`FieldError` naming ``--chaos``."""
        match = _PATTERN.fullmatch(text.strip())
        if match is None:
            raise FieldError(
                "--chaos", f"expected kill-host@SECONDS or kill-fleet@SECONDS (e.g. kill-host@20s), got {text!r}"
            )
        return cls(match.group(1), float(match.group(2)))
