"""Rooms: how bots talk to a poker room, one adapter per protocol (docs/rooms.md).

* :mod:`.base`: the interface an adapter implements (:class:`~.base.Room`, its seats' lines and streams);
* :mod:`.traffic`: what a room sends a seat, as the engine's neutral events and a few values;
* :mod:`.registry`: adapters found by name (the ``tablestorm.rooms`` entry point group) or ``module:Class``;
* :mod:`.grpc`: the ``tablestorm.v1`` room (``tablestorm serve``), with :mod:`.grpc_traffic`;
* :mod:`.websocket`: the WebSocket front door's room (``tablestorm serve --websocket``), with
  :mod:`.websocket_client` (one connection) and :mod:`.websocket_traffic`.

The rooms speak the bots' vocabulary (offered actions, actions: :mod:`tablestorm.sim.bots.strategies`),
and the bots' client speaks to rooms: the bots' package is loaded first, whichever is imported first.
"""

import tablestorm.sim.bots  # noqa: F401  # see the docstring: the bots before the rooms they import
