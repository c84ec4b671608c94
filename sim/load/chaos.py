"""Chaos events of a run: kill a table host, a bot fleet or the registry at a given second.

``--chaos kill-host@20s`` (repeatable) or a list of the same strings; the driver fires each event at
its time into the run and the recovery machinery (:mod:`tablestorm.sim.load.recovery`) has to bring the run back
with no chip lost. A killed registry is restarted by Ray from its journal
(:mod:`tablestorm.sim.load.registry_journal`), and the calls made to it meanwhile wait for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablestorm.services.fields import FieldError

LOAD_ACTIONS = ("kill-host", "kill-fleet", "kill-registry")
_TIME = r"@(\d+(?:\.\d+)?)s?"


@dataclass(frozen=True, slots=True)
class ChaosEvent:
    """Kill one actor ``at`` seconds into the run: ``kill-host``, ``kill-fleet`` or ``kill-registry``
    (a tournament: ``kill-host`` or ``kill-tournament-server``)."""

    action: str
    at: float

    @classmethod
    def parse(cls, text: str, actions: tuple[str, ...] = LOAD_ACTIONS) -> ChaosEvent:
        """``kill-host@20s`` or ``kill-fleet@7.5`` (one of ``actions``): the time is required (an
        event "at 0 s" by omission would fire before the load has started); :class:`FieldError`
        naming ``--chaos``."""
        match = re.fullmatch(f"({'|'.join(map(re.escape, actions))}){_TIME}", text.strip())
        if match is None:
            expected = " or ".join(f"{action}@SECONDS" for action in actions)
            raise FieldError("--chaos", f"expected {expected} (e.g. {actions[0]}@20s), got {text!r}")
        return cls(match.group(1), float(match.group(2)))
