"""The tournament server's metrics (``tablestorm_tournament_*``) through one tournament, read from
the exposition as Prometheus reads them, against the tournament's own state and the table servers'."""

from __future__ import annotations

import asyncio

import pytest
from support.running import run_async
from support.table_server import exported
from support.tournaments import TIMEOUT, fast_structure, operator, started, tournament_servers, until

from tablestorm.services.api import tournament_pb2 as tpb


@run_async
async def test_the_dashboard_metrics_follow_a_tournament_to_its_end() -> None:
    async with tournament_servers(tables=2) as servers:
        metrics = servers.tournaments
        players, channels, watching = await started(servers, "m", fast_structure("7stud", seats=6), entrants=12, seed=4)
        assert exported(metrics, "tablestorm_tournament_tournaments", status="running") == 1
        assert exported(metrics, "tablestorm_tournament_clock_seconds", tournament="m") == 2.0

        # A hand waits on a bot that does not act: the stall clock runs (the alert's input) ...
        for bot in players:
            bot.acting.clear()
        changed = players[0].changed
        await until(changed, lambda: any(bot.held_at for bot in players))
        assert exported(metrics, "tablestorm_tournament_last_hand_age_seconds", tournament="m") > 0
        # ... and stops while paused; once no hand runs, the gauges are the tournament's state.
        request = tpb.TournamentRequest(tournament_id="m")
        await servers.stub.Pause(request, metadata=operator())
        for bot in players:
            bot.acting.set()
        live = servers.lobby.tournament("m")
        await asyncio.wait_for(live.idle.wait(), TIMEOUT)
        state = await servers.stub.GetTournament(request)
        assert exported(metrics, "tablestorm_tournament_tournaments", status="paused") == 1
        assert exported(metrics, "tablestorm_tournament_last_hand_age_seconds", tournament="m") == 0
        for name, value in (
            ("entries", state.entries), ("players_left", state.players_left), ("tables", state.tables),
            ("level", state.level), ("hand_for_hand", int(state.hand_for_hand)),
            ("level_time_left_seconds", state.time_left_s),  # the clock stands while paused: to the digit
        ):
            assert exported(metrics, f"tablestorm_tournament_{name}", tournament="m") == value, name
        await servers.stub.Resume(request, metadata=operator())

        await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
        assert exported(metrics, "tablestorm_tournament_tournaments", status="finished") == 1
        assert exported(metrics, "tablestorm_tournament_tournaments", status="running") == 0
        assert exported(metrics, "tablestorm_tournament_eliminations_total", game="7stud") == 11
        dealt = sum(exported(s, "tablestorm_hands_by_kind_total", kind="tournament") for s in servers.tables)
        assert dealt > 0 and exported(metrics, "tablestorm_tournament_hands_total", game="7stud") == dealt
        assert exported(metrics, "tablestorm_tournament_tables_lost_total") == 0
        assert exported(metrics, "tablestorm_tournament_table_servers", state="up") == 2
        assert exported(metrics, "tablestorm_tournament_grpc_requests_total", method="Register", code="OK") == 12
        assert exported(metrics, "tablestorm_tournament_grpc_requests_total", method="Watch", code="OK") == 12
        for name in ("players_left", "tables", "level", "level_time_left_seconds", "last_hand_age_seconds"):
            # its series end with it
            with pytest.raises(KeyError):
                exported(metrics, f"tablestorm_tournament_{name}", tournament="m")
        await channels.close()
