"""The bot side of ``tablestorm load``: strategies, one seat's gRPC client, and a fleet of them.

``strategies`` decides (pure functions of what a seat may see), the ``client`` package plays one
seat (its transport, hand tracker, referee and lifecycle, put to work by ``client.Bot``), and
``fleet.Fleet`` runs thousands of bots in one event loop. Nothing here knows of Ray: a Ray actor
wraps a Fleet.
"""

from tablestorm.sim.bots.client import Assignment, Bot, BotConfig, ChannelPool, Resolver, TableClient, Tally
from tablestorm.sim.bots.fleet import Fleet
from tablestorm.sim.bots.kinds import BOT_KINDS, strategy_for
from tablestorm.sim.bots.strategies import Action, Legal, Strategy, View

__all__ = [
    "BOT_KINDS",
    "Action",
    "Assignment",
    "Bot",
    "BotConfig",
    "ChannelPool",
    "Fleet",
    "Legal",
    "Resolver",
    "Strategy",
    "TableClient",
    "Tally",
    "View",
    "strategy_for",
]
