"""One bot: a seat's client of a room, as a package of its concepts.

The bot talks to its room through a room adapter (:mod:`tablestorm.sim.rooms`, docs/rooms.md) and
reads what the room sends as neutral traffic. The ``tablestorm.v1`` adapter's wire lives here too:

* :mod:`.transport`: the typed transport (the stub generated from the proto for unary calls, Play
  streams over :mod:`.play`'s HTTP/2 multiplexer), and the pool that shares connections;
  :mod:`.protocol`: the proto's enum numbers by name;
* :mod:`.tracker`: the hand tracker, a seat's events folded into the :class:`~tablestorm.sim.bots.View` its
  strategy reads;
* :mod:`.referee`: the referee, a pure checker of what the server sends against what the seat may
  see, what the API promises and what the bot sent; its violations are counted as
  ``protocol_violation`` (the list is in its docstring);
* :mod:`.lifecycle`: the bot's phase (joining, playing, dropped, resuming, leaving, stood up, gave
  up, stopped) and its transitions;
* :mod:`.bot`: the :class:`Bot` that puts them to work, with :mod:`.config` (its seat and its
  fleet's knobs), :mod:`.tally` (the counters a fleet's bots share) and :mod:`.backoff` (the waits
  between retries, which the tournament player's retries use too).

Hands are counted once per table, not once per bot: by the bot in the lowest seat of the hand that
is still seated when it ends (every bot sees the same events, so they agree without talking). A
table whose counting seat is not a bot of any fleet is not counted.
"""

from tablestorm.sim.bots.client.bot import Bot
from tablestorm.sim.bots.client.config import NO_THINK, Assignment, BotConfig, Resolver
from tablestorm.sim.bots.client.lifecycle import GIVE_UP, Phase
from tablestorm.sim.bots.client.tally import Return, Tally
from tablestorm.sim.bots.client.transport import ChannelPool, TableClient, Tls

__all__ = [
    "GIVE_UP",
    "NO_THINK",
    "Assignment",
    "Bot",
    "BotConfig",
    "ChannelPool",
    "Phase",
    "Resolver",
    "Return",
    "TableClient",
    "Tally",
    "Tls",
]
