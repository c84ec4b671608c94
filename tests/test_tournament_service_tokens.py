"""A player's token on the tournament service: a Watch stream opened with it shows the player's
private events only while the token is still the player's.

Found by the stateful model of the tournament service (a player unregisters, and the id registers
again with a new token); real servers on 127.0.0.1.
"""

from __future__ import annotations

from support.running import run_async
from support.tournaments import create, fast_structure, operator, player, tournament_servers

from tablestorm.services.api import tournament_pb2 as tpb


@run_async
async def test_a_watch_opened_before_unregistering_shows_no_seat_of_the_player_who_takes_the_id_again() -> None:
    """Found by the model (a player unregisters, and the id registers again: a new token): the
    Watch stream opened with the old token went on with the player's private events, so whoever
    held the revoked token was handed the new registration's seat tokens (SeatAssigned). A stream
    shows a player's private events only while its token is still the player's."""
    async with tournament_servers(tables=1) as servers:
        await create(servers, "t", fast_structure("7stud"))
        stub = servers.stub
        first = await stub.Register(tpb.RegisterRequest(tournament_id="t", player_id="a"))
        old = stub.Watch(tpb.WatchRequest(tournament_id="t", player_id="a"), metadata=player(first.player_token))
        assert (await old.read()).HasField("registered")
        await stub.Unregister(tpb.PlayerRequest(tournament_id="t", player_id="a"), metadata=player(first.player_token))
        again = await stub.Register(tpb.RegisterRequest(tournament_id="t", player_id="a"))
        await stub.Register(tpb.RegisterRequest(tournament_id="t", player_id="b"))
        new = stub.Watch(tpb.WatchRequest(tournament_id="t", player_id="a"), metadata=player(again.player_token))
        started = await stub.Start(tpb.TournamentRequest(tournament_id="t"), metadata=operator())
        seen_new: list[tpb.TournamentEvent] = []
        while not any(e.HasField("seat_assigned") for e in seen_new):  # the new registration's seat
            seen_new.append(await new.read())
        seen_old: list[tpb.TournamentEvent] = []
        while not seen_old or seen_old[-1].seq < started.last_seq:  # the old stream, as far as the start
            seen_old.append(await old.read())
        await stub.Pause(tpb.TournamentRequest(tournament_id="t"), metadata=operator())
        seen_old.append(await old.read())  # Paused: public, and after the seat's SeatAssigned
        assert not [e for e in seen_old if e.HasField("seat_assigned")], "the revoked token got the seat"
        assert seen_old[-1].HasField("paused")
        old.cancel()
        new.cancel()
