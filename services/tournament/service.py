"""The RPC layer of ``tablestorm.v1.TournamentService``: requests in, statuses and streams out.

Requests are checked here, every refusal INVALID_ARGUMENT naming the field, then handed to the
:class:`~.lobby.TournamentLobby` as domain values; the lobby answers NOT_FOUND for an unknown
tournament or player, UNAUTHENTICATED or PERMISSION_DENIED for a token, FAILED_PRECONDITION for
the director's refusals. Nothing changes on an error.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.director import inputs as di
from tablestorm.services.fields import FieldError
from tablestorm.services.rpc.errors import invalid
from tablestorm.services.rpc.handlers import Context, unary, unary_stream
from tablestorm.services.table.auth import metadata_value
from tablestorm.services.tournament import convert
from tablestorm.services.tournament.auth import OPERATOR_METADATA_KEY, PLAYER_METADATA_KEY, check_operator
from tablestorm.services.tournament.live import LiveTournament
from tablestorm.services.tournament.lobby import TournamentLobby

SERVICE_NAME = "tablestorm.v1.TournamentService"
MAX_TOURNAMENT_ID = 48
"""A tournament's tables are ``<tournament_id>.t<n>``: table ids are at most 64 characters."""
MAX_PLAYER_ID = 56
"""An entry id ``<player_id>#<n>`` is the player's id at its table, at most 64 characters."""
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
_TOURNAMENT_ID = re.compile(rf"[A-Za-z0-9_.\-]{{1,{MAX_TOURNAMENT_ID}}}")


def tournament_id(value: str) -> str:
    if not _TOURNAMENT_ID.fullmatch(value):
        raise invalid(
            f"tournament_id: 1 to {MAX_TOURNAMENT_ID} characters of A-Z a-z 0-9 _ . - (got {value[:80]!r})"
        )
    return value


def player_id(value: str) -> str:
    if not value or len(value) > MAX_PLAYER_ID or not value.isprintable():
        raise invalid(f"player_id: 1 to {MAX_PLAYER_ID} printable characters")
    return value


class TournamentService:
    """The handlers of ``tablestorm.v1.TournamentService``: each checks its request and asks the lobby."""

    def __init__(self, lobby: TournamentLobby, operator_token: str | None) -> None:
        self._lobby = lobby
        self._operator_token = operator_token

    def _operator(self, context: Context) -> None:
        check_operator(metadata_value(context.invocation_metadata(), OPERATOR_METADATA_KEY), self._operator_token)

    @staticmethod
    def _player_token(context: Context) -> str | None:
        return metadata_value(context.invocation_metadata(), PLAYER_METADATA_KEY)

    # ----------------------------------------------------------------- tournaments

    async def create_tournament(self, request: tpb.CreateTournamentRequest, context: Context) -> tpb.TournamentState:
        self._operator(context)
        if request.tournament_id:
            tournament_id(request.tournament_id)
        if not request.HasField("structure"):
            raise invalid("structure: required")
        try:
            structure = convert.structure_from_proto(request.structure)
        except FieldError as exc:
            raise invalid(str(exc)) from None
        seed = request.seed if request.HasField("seed") else None
        return self._lobby.create(request.tournament_id, structure, seed).state()

    async def get_tournament(self, request: tpb.TournamentRequest, context: Context) -> tpb.TournamentState:
        return self._lobby.tournament(tournament_id(request.tournament_id)).state()

    async def list_tournaments(
        self, request: tpb.ListTournamentsRequest, context: Context
    ) -> tpb.ListTournamentsResponse:
        return tpb.ListTournamentsResponse(tournaments=[live.state() for live in self._lobby.tournaments()])

    async def _operate(
        self, request: tpb.TournamentRequest, context: Context, call: Callable[[LiveTournament], Awaitable[None]]
    ) -> tpb.TournamentState:
        self._operator(context)
        return (await self._lobby.operate(tournament_id(request.tournament_id), call)).state()

    async def start(self, request: tpb.TournamentRequest, context: Context) -> tpb.TournamentState:
        return await self._operate(request, context, lambda live: live.give(di.Start()))

    async def pause(self, request: tpb.TournamentRequest, context: Context) -> tpb.TournamentState:
        return await self._operate(request, context, lambda live: live.pause())

    async def resume(self, request: tpb.TournamentRequest, context: Context) -> tpb.TournamentState:
        return await self._operate(request, context, lambda live: live.resume())

    # ----------------------------------------------------------------- players

    async def register(self, request: tpb.RegisterRequest, context: Context) -> tpb.RegisterResponse:
        entry_id, token, live = await self._lobby.register(
            tournament_id(request.tournament_id),
            player_id(request.player_id),
            request.auto_rebuy,
            self._player_token(context),
        )
        return tpb.RegisterResponse(entry_id=entry_id, player_token=token, tournament=live.state())

    async def unregister(self, request: tpb.PlayerRequest, context: Context) -> tpb.TournamentState:
        tid, pid = tournament_id(request.tournament_id), player_id(request.player_id)
        return (await self._lobby.unregister(tid, pid, self._player_token(context))).state()

    async def _play(
        self, request: tpb.PlayerRequest | tpb.PlayerAwayRequest, context: Context,
        action: Callable[[str], di.Input],
    ) -> tpb.TournamentState:
        """A call the player makes for itself: ``action(player_id)`` is the director's input."""
        pid = player_id(request.player_id)
        tid = tournament_id(request.tournament_id)
        return (await self._lobby.play(tid, pid, self._player_token(context), action(pid))).state()

    async def rebuy(self, request: tpb.PlayerRequest, context: Context) -> tpb.TournamentState:
        return await self._play(request, context, di.Rebuy)

    async def add_on(self, request: tpb.PlayerRequest, context: Context) -> tpb.TournamentState:
        return await self._play(request, context, di.AddOn)

    async def set_away(self, request: tpb.PlayerAwayRequest, context: Context) -> tpb.TournamentState:
        away = request.away
        return await self._play(request, context, lambda pid: di.SetAway(pid, away))

    # ----------------------------------------------------------------- results

    async def get_standings(self, request: tpb.StandingsRequest, context: Context) -> tpb.StandingsResponse:
        live = self._lobby.tournament(tournament_id(request.tournament_id))
        if request.page_size > MAX_PAGE_SIZE:
            raise invalid(f"page_size: at most {MAX_PAGE_SIZE}, got {request.page_size}")
        standings = live.director.standings()
        size = request.page_size or DEFAULT_PAGE_SIZE
        page = standings[request.offset : request.offset + size]
        return tpb.StandingsResponse(
            standings=[convert.standing_to_proto(request.offset + k + 1, s) for k, s in enumerate(page)],
            total=len(standings),
        )

    async def get_payouts(self, request: tpb.TournamentRequest, context: Context) -> tpb.PayoutsResponse:
        return convert.payouts_to_proto(self._lobby.tournament(tournament_id(request.tournament_id)).director)

    def watch(self, request: tpb.WatchRequest, context: Context) -> AsyncIterator[tpb.TournamentEvent]:
        tid = tournament_id(request.tournament_id)
        pid = player_id(request.player_id) if request.player_id else ""
        resume = request.resume_after_seq if request.HasField("resume_after_seq") else None
        return self._lobby.watch(tid, pid, self._player_token(context), resume, request.own_only)


def handlers(service: TournamentService) -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        SERVICE_NAME,
        {
            "CreateTournament": unary(service.create_tournament, tpb.CreateTournamentRequest, tpb.TournamentState),
            "GetTournament": unary(service.get_tournament, tpb.TournamentRequest, tpb.TournamentState),
            "ListTournaments": unary(
                service.list_tournaments, tpb.ListTournamentsRequest, tpb.ListTournamentsResponse
            ),
            "Register": unary(service.register, tpb.RegisterRequest, tpb.RegisterResponse),
            "Unregister": unary(service.unregister, tpb.PlayerRequest, tpb.TournamentState),
            "Start": unary(service.start, tpb.TournamentRequest, tpb.TournamentState),
            "Pause": unary(service.pause, tpb.TournamentRequest, tpb.TournamentState),
            "Resume": unary(service.resume, tpb.TournamentRequest, tpb.TournamentState),
            "Rebuy": unary(service.rebuy, tpb.PlayerRequest, tpb.TournamentState),
            "AddOn": unary(service.add_on, tpb.PlayerRequest, tpb.TournamentState),
            "SetAway": unary(service.set_away, tpb.PlayerAwayRequest, tpb.TournamentState),
            "GetStandings": unary(service.get_standings, tpb.StandingsRequest, tpb.StandingsResponse),
            "GetPayouts": unary(service.get_payouts, tpb.TournamentRequest, tpb.PayoutsResponse),
            "Watch": unary_stream(service.watch, tpb.WatchRequest, tpb.TournamentEvent),
        },
    )
