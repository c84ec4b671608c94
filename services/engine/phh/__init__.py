"""PHH (Poker Hand History, the phh-std TOML format): export a finished hand, read one back, replay it.

:func:`dumps` writes any finished :class:`Hand` as PHH text; :func:`loads` parses PHH text into a
:class:`PhhHand` (table options, stacks, the cards each player receives, the action list) and
:func:`replay` plays it through the engine again. Pure functions of ``str``: no files, no clocks.
``docs/phh.md`` describes the mapping; in short:

* Variant codes: the standard ``F7S`` and ``F7S/8``, and tablestorm extensions ``F5S`` (Five Card
  Stud) and ``F7A1D``/``P7A1D``/``N7A1D`` (Seven-to-Ace single draw, fixed/pot/no limit), flagged by
  the user field ``_variant_extension = "tablestorm"``.
* Player order: stud players are in seat order (``p1`` is dealt first, STUD-1); draw players start
  left of the button, so ``pN`` is the button (PHH's convention). ``seats`` records the seat of
  each player, which lets :func:`loads` put the players back in table order.
* Per-table options PHH lacks are ``_``-prefixed user fields: ``_open_pair`` (STUD-5),
  ``_heads_up_uncapped`` (BET-3), ``_cap`` (BET-2), ``_blind_posts`` (irregular blinds, DRAW-6),
  ``_timeouts`` (CLOCK-2); the clock itself is the standard ``time_limit``.
* An absent option means what standard PHH means: no open pair, cap always applies, 4 bets.

Every chip amount is an integer. Unknown cards (``??``) cannot be replayed: the engine needs every
card to reach the showdown it recorded.

The modules: :mod:`.codes` (variant codes), :mod:`.toml_writer` (the TOML the export writes),
:mod:`.export` (hand -> text), :mod:`.parse` (text -> :class:`PhhHand`), :mod:`.replaying`
(:class:`PhhHand` -> hand).
"""

from tablestorm.services.engine.phh.codes import EXTENSION_CODES, PHH_CODES, phh_code
from tablestorm.services.engine.phh.export import dumps, dumps_all
from tablestorm.services.engine.phh.parse import PhhError, PhhFormatError, PhhHand, Step, loads, loads_all
from tablestorm.services.engine.phh.replaying import ReplayError, replay

__all__ = [
    "EXTENSION_CODES",
    "PHH_CODES",
    "PhhError",
    "PhhFormatError",
    "PhhHand",
    "ReplayError",
    "Step",
    "dumps",
    "dumps_all",
    "loads",
    "loads_all",
    "phh_code",
    "replay",
]
