"""/metrics of a real server (scraped over HTTP from 127.0.0.1) after scripted hands whose every
count is known in advance: hands completed and actions by game and kind, the action processing
histogram's count by game, timeouts by game and CLOCK-2 outcome, side pots, raise caps, tables and
seats live by game, stream messages, and gRPC requests by method and status code; chip-conservation
violations and voided hands stay at zero.
"""

from __future__ import annotations

import asyncio

import grpc
from support.calls import code_of
from support.metrics import scraped
from support.running import run_async
from support.table_replay import hand_events
from support.table_server import GateLedger, serving, token
from support.table_streams import Stream, play_script, seated_table

from tablestorm.services.api import table_service_pb2 as pb

K = pb

# Table "stud": heads-up Seven Card Stud, the cap applying heads-up too (BET-3 off).
#   hand 1: bring-in, fold.
#   hand 2: bring-in, complete, raise, raise, raise (the fourth bet: cap), call; fourth street:
#           check, bet, fold. CloseTable during hand 2: no hand 3.
STUD = pb.TableOptions(game="7stud", stakes=pb.Stakes(small_bet=10), heads_up_uncapped=False, clock_seconds=30)
# Table "draw": three-handed no-limit Seven-to-Ace draw (blinds 5/10), seat 3 silent after calling.
#   hand 1: seat 1 raises to 30, seats 2 and 3 call; seats 2 and 1 stand pat, seat 3's clock stands
#           pat for it; seat 2 bets 50, seat 3's clock runs out again (all-in for its 30: a side pot
#           of 100 between seats 1 and 2), seat 1 calls; showdown. CloseTable during the hand, then
#           everyone stands up: the table closes.
DRAW = pb.TableOptions(
    game="7a5draw", structure=pb.STRUCTURE_NO_LIMIT, stakes=pb.Stakes(small_bet=10), clock_seconds=1.0
)


def actions_on_street(stream: Stream, number: int) -> int:
    """Actions so far on the street being played, as this stream saw them."""
    count = 0
    for e in stream.events:
        if e.hand_number == number and e.HasField("round_started"):
            count = 0
        elif e.hand_number == number and e.HasField("acted"):
            count += 1
    return count


@run_async
async def test_metrics_count_scripted_hands_exactly() -> None:
    ledger = GateLedger()
    async with serving(ledger=ledger, metrics_http=True) as (server, stub):
        assert server.metrics_port is not None
        stud_tokens, stud, stud_watch = await seated_table(stub, ledger, "stud", STUD, 7, 2)
        draw_tokens, draw, draw_watch = await seated_table(stub, ledger, "draw", DRAW, 8, 3)
        code, _ = await code_of(stub.CreateTable(pb.CreateTableRequest(table_id="x", options=pb.TableOptions())))
        assert code == grpc.StatusCode.INVALID_ARGUMENT

        def stud_hand_1(seat: int, street: int, legal: dict[int, pb.LegalAction]) -> tuple[int, int]:
            kind = K.ACTION_KIND_BRING_IN if K.ACTION_KIND_BRING_IN in legal else K.ACTION_KIND_FOLD
            return kind, legal[kind].min

        def stud_hand_2(seat: int, street: int, legal: dict[int, pb.LegalAction]) -> tuple[int, int]:
            order: tuple[int, ...]
            if street == 0:
                order = (K.ACTION_KIND_BRING_IN, K.ACTION_KIND_COMPLETE, K.ACTION_KIND_RAISE, K.ACTION_KIND_CALL)
            elif K.ACTION_KIND_FOLD in legal:
                order = (K.ACTION_KIND_FOLD,)
            else:  # the first to act checks, the other bets
                order = (K.ACTION_KIND_CHECK,) if actions_on_street(stud[seat], 2) == 0 else (K.ACTION_KIND_BET,)
            kind = next((k for k in order if k in legal), None)
            assert kind is not None, (seat, street, order, sorted(legal))
            return kind, legal[kind].min

        assert await play_script(stud, stud_watch, 1, stud_hand_1)
        await stud_watch.until(lambda: any(s.turn is not None and s.turn.hand_number == 2 for s in stud.values()))
        closing = await stub.CloseTable(pb.CloseTableRequest(table_id="stud"))
        assert (closing.closed, closing.seats_taken, closing.hand_running) == (False, 2, True)
        assert await play_script(stud, stud_watch, 2, stud_hand_2)

        def draw_hand(seat: int, street: int, legal: dict[int, pb.LegalAction]) -> tuple[int, int] | None:
            if K.ACTION_KIND_DRAW in legal:
                return (K.ACTION_KIND_DRAW, 0) if seat != 3 else None
            if street == 0:
                return (K.ACTION_KIND_RAISE, 30) if seat == 1 else (K.ACTION_KIND_CALL, 0)
            return {1: (K.ACTION_KIND_CALL, 0), 2: (K.ACTION_KIND_BET, 50), 3: None}[seat]

        await draw_watch.until(lambda: any(s.turn is not None for s in draw.values()))
        closing = await stub.CloseTable(pb.CloseTableRequest(table_id="draw"))
        assert (closing.closed, closing.seats_taken, closing.hand_running) == (False, 3, True)
        assert await play_script(draw, draw_watch, 1, draw_hand), "a player who acts missed a 1 s clock"
        hand = hand_events(draw_watch.events, 1)
        outcomes = [e.timed_out.outcome for e in hand if e.HasField("timed_out")]
        assert outcomes == [K.TIMEOUT_OUTCOME_STAND_PAT, K.TIMEOUT_OUTCOME_ALL_IN]
        pots = [e.pots_formed for e in hand if e.HasField("pots_formed")][-1].pots
        assert [(p.amount, list(p.eligible_seats)) for p in pots] == [(90, [1, 2, 3]), (100, [1, 2])]
        for seat in (1, 2, 3):
            await stub.StandUp(pb.SeatRequest(table_id="draw", seat=seat), metadata=token(draw_tokens[seat]))
        for stream in [draw_watch, *draw.values()]:
            await stream.until_end()  # stand-up ends a seat's stream; closing the table the spectator's
            assert stream.error is None
        code, _ = await code_of(stub.GetTable(pb.GetTableRequest(table_id="draw")))
        assert code == grpc.StatusCode.NOT_FOUND
        code, _ = await code_of(stub.CloseTable(pb.CloseTableRequest(table_id="draw")))
        assert code == grpc.StatusCode.NOT_FOUND
        assert [t.table_id for t in (await stub.ListTables(pb.ListTablesRequest())).tables] == ["stud"]
        wrong = pb.ActRequest(table_id="stud", seat=1, action_id="w", kind=K.ACTION_KIND_CHECK)
        code, _ = await code_of(stub.Act(wrong, metadata=token(stud_tokens[2])))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        for nonce, stream in enumerate([stud_watch, *stud.values()]):
            await stream.ping(nonce)  # everything queued for the open streams has arrived

        got = await asyncio.to_thread(scraped, server.metrics_port)

        def value(name: str, **labels: str) -> float:
            return got.get((name, tuple(sorted(labels.items()))), 0.0)

        assert value("tablestorm_hands_completed_total", game="7stud") == 2
        assert value("tablestorm_hands_completed_total", game="7a5draw") == 1
        # A game's series exist (at zero) from its first table on; games never opened have none.
        games = {dict(labels)["game"] for name, labels in got if name == "tablestorm_hands_voided_total"}
        assert games == {"7stud", "7a5draw"}
        for game in games:
            assert value("tablestorm_hands_voided_total", game=game) == 0, game
            assert value("tablestorm_chip_conservation_violations_total", game=game) == 0, game
        # Stud then draw. The draw: two players stand pat (draw), the clock for the third (timeout),
        # and the clock again when it faces the bet.
        actions = {
            "7stud": {"bring_in": 2, "fold": 1 + 1, "complete": 1, "raise": 3, "call": 1, "check": 1, "bet": 1},
            "7a5draw": {"raise": 1, "call": 3, "bet": 1, "draw": 2, "timeout": 2},
        }
        for game, kinds in actions.items():
            for kind in ("fold", "check", "call", "bring_in", "complete", "bet", "raise", "draw", "timeout"):
                assert value("tablestorm_actions_total", game=game, kind=kind) == kinds.get(kind, 0), (game, kind)
            # The processing time of every action a client sent, not of the clock's.
            sent = sum(kinds.values()) - kinds.get("timeout", 0)
            assert value("tablestorm_action_processing_seconds_count", game=game) == sent, game
        assert value("tablestorm_timeouts_total", game="7a5draw", outcome="all_in") == 1
        assert value("tablestorm_timeouts_total", game="7a5draw", outcome="stand_pat") == 1
        for outcome in ("check", "fold", "bring_in", "all_in", "stand_pat"):
            assert value("tablestorm_timeouts_total", game="7stud", outcome=outcome) == 0, outcome
        for outcome in ("check", "fold", "bring_in"):
            assert value("tablestorm_timeouts_total", game="7a5draw", outcome=outcome) == 0, outcome
        def by_game(name: str) -> dict[str, float]:
            return {game: value(name, game=game) for game in ("7stud", "7a5draw")}

        assert by_game("tablestorm_side_pots_total") == {"7stud": 0, "7a5draw": 1}
        assert by_game("tablestorm_raise_caps_total") == {"7stud": 1, "7a5draw": 0}
        # "stud" is closing (two players seated); "draw" closed once its three stood up.
        assert by_game("tablestorm_tables_live") == {"7stud": 1, "7a5draw": 0}
        assert by_game("tablestorm_seats_live") == {"7stud": 2, "7a5draw": 0}
        assert value("tablestorm_streams_live") == 3
        streams = [stud_watch, *stud.values(), draw_watch, *draw.values()]
        assert value("tablestorm_stream_messages_total", direction="in") == sum(s.sent for s in streams)
        assert value("tablestorm_stream_messages_total", direction="out") == sum(s.messages for s in streams)
        requests = {
            ("CreateTable", "OK"): 2,
            ("CreateTable", "INVALID_ARGUMENT"): 1,
            ("SitDown", "OK"): 5,
            ("CloseTable", "OK"): 2,
            ("CloseTable", "NOT_FOUND"): 1,
            ("StandUp", "OK"): 3,
            ("GetTable", "NOT_FOUND"): 1,
            ("ListTables", "OK"): 1,
            ("Act", "PERMISSION_DENIED"): 1,
            ("Play", "OK"): 4,  # the draw table's three seats and spectator; the stud table's are open
        }
        counted = {
            (dict(labels)["method"], dict(labels)["code"]): v
            for (name, labels), v in got.items()
            if name == "tablestorm_grpc_requests_total"
        }
        assert counted == requests
        for stream in [stud_watch, *stud.values()]:
            await stream.close()
