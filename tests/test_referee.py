"""The referee on its own: fed messages a server must never send, one broken promise each, and clean
streams (crafted hand by hand, resumed, taken over) that must give no violation. No server, no
stream: :class:`~tablestorm.sim.bots.client.referee.Referee` is a pure checker.

Rules exercised: BET-7 (chips conserved in a hand), CLOCK-2 (what the clock does for the seat),
STUD-3 (a bring-in), DRAW-4 (a draw of the seat's own cards).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.sim.bots import Action
from tablestorm.sim.bots.client.referee import ACCEPTED, LATE, LOST, Referee
from tablestorm.sim.rooms.grpc_traffic import traffic
from tablestorm.sim.rooms.traffic import Traffic

SEAT = 1
STUD = pb.TableOptions(game="7stud", structure=pb.STRUCTURE_FIXED_LIMIT)
DRAW = pb.TableOptions(game="7a5draw", structure=pb.STRUCTURE_FIXED_LIMIT)
CALL = pb.LegalAction(kind=pb.ACTION_KIND_CALL, min=20, max=20)
RAISE = pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min=40, max=40)
FOLD = pb.LegalAction(kind=pb.ACTION_KIND_FOLD)


def from_wire(**parts: Any) -> Traffic:
    """A server message as the referee reads it: as the gRPC room's adapter reads it off the wire."""
    return traffic(pb.ServerMessage(**parts))


def event(seq: int, hand: int = 1, **kind: Any) -> pb.Event:
    return pb.Event(seq=seq, hand_number=hand, **kind)


def welcome(last_seq: int = 0, *, options: pb.TableOptions = STUD, seat: int = SEAT, gap: bool = False,
            hand_number: int = 0, hand_running: bool = False) -> Traffic:
    table = pb.TableState(options=options, last_seq=last_seq, hand_number=hand_number, hand_running=hand_running)
    return from_wire(welcome=pb.Welcome(seat=seat, table=table, gap=gap))


def started(seq: int, hand: int = 1, seats: Sequence[int] = (1, 2), stacks: Sequence[int] = (100, 100)) -> pb.Event:
    return event(seq, hand, hand_started=pb.HandStarted(seats=seats, stacks=stacks, deck_size=52))


def dealt(seq: int, seat: int, down: Sequence[int], up: Sequence[int] = (), hand: int = 1) -> pb.Event:
    return event(seq, hand, cards_dealt=pb.CardsDealt(seat=seat, street=0, down=down, up=up))


def acted(seq: int, seat: int, kind: pb.ActionKind, to: int = 0, added: int = 0, hand: int = 1) -> pb.Event:
    return event(seq, hand, acted=pb.Acted(seat=seat, kind=kind, to=to, added=added))


def turn(seq: int, *legal: pb.LegalAction, hand: int = 1) -> Traffic:
    return from_wire(your_turn=pb.YourTurn(hand_number=hand, seq=seq, legal=legal or (CALL, RAISE)))


def ended(seq: int, stacks: Sequence[int] = (120, 80), hand: int = 1) -> pb.Event:
    return event(seq, hand, hand_ended=pb.HandEnded(seats=[1, 2], stacks=stacks))


def events(*items: pb.Event) -> Traffic:
    return from_wire(events=items)


def result(action_id: str, code: int = 0, message: str = "") -> Traffic:
    return from_wire(results=[pb.ActResult(action_id=action_id, code=code, message=message)])


def feed(referee: Referee, messages: Sequence[Traffic]) -> list[str]:
    """Every violation the referee finds in ``messages``, in order."""
    return [violation for message in messages for violation in referee.check(message)]


def dealt_in(referee: Referee, *, options: pb.TableOptions = STUD) -> None:
    """Welcome, a hand dealing seat 1 in (seqs 1-3), and no violation so far."""
    assert feed(referee, [
        welcome(options=options),
        events(started(1), dealt(2, SEAT, [0, 1], [2]), dealt(3, 2, [-1, -1], [9])),
    ]) == []


def on_turn(referee: Referee, seq: int, action: Action, action_id: str = "a1",
            legal: Sequence[pb.LegalAction] = (CALL, RAISE), down: tuple[int, ...] = (0, 1)) -> None:
    """A turn at ``seq`` that the bot answers with ``action``."""
    assert referee.check(turn(seq, *legal)) == ()
    assert referee.turn_opened and referee.turn is not None and referee.turn.seq == seq
    referee.sent(action_id, action, 0.0, down)


# ----------------------------------------------------------------------------- each broken promise


def test_another_seats_dealt_down_card_visible() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(dealt(4, 2, [30]))]) == ["seat 2's down cards visible in hand 1"]


def test_another_seats_draw_visible() -> None:
    referee = Referee(SEAT)
    dealt_in(referee, options=DRAW)
    drew = pb.Drew(seat=2, discarded=[-1, 44], drawn=[-1, -1])
    assert feed(referee, [events(event(4, drew=drew))]) == ["seat 2's draw visible in hand 1"]


def test_own_dealt_down_card_hidden() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(dealt(4, SEAT, [-1]))]) == ["own down card hidden in hand 1"]


def test_own_draw_hidden() -> None:
    """DRAW-4: the seat's own discards and new cards are its to see."""
    referee = Referee(SEAT)
    dealt_in(referee, options=DRAW)
    on_turn(referee, 3, Action("draw", discard=(0,)), legal=[pb.LegalAction(kind=pb.ACTION_KIND_DRAW, max=5)])
    drew = pb.Drew(seat=SEAT, discarded=[0], drawn=[-1])
    assert feed(referee, [result("a1"), events(event(4, drew=drew))]) == ["own draw hidden in hand 1"]


def test_sequence_gap() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(event(5, round_started=pb.RoundStarted(street=1)))]) == ["event seq 5 after 3 (gap)"]


def test_sequence_backwards() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    replayed = event(3, round_started=pb.RoundStarted(street=1))
    assert feed(referee, [events(replayed)]) == ["event seq 3 after 3 (backwards)"]


def test_first_event_past_the_welcomes_last_seq() -> None:
    referee = Referee(SEAT)
    assert feed(referee, [welcome(last_seq=4), events(started(7))]) == [
        "first event seq 7 is past the welcome's last seq 4"
    ]


def test_turn_for_a_hand_that_ended() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(ended(4, (100, 100))), turn(4)]) == ["YourTurn for hand 1, which ended"]
    assert referee.turn is None


def test_turn_for_a_seat_not_dealt_in() -> None:
    referee = Referee(SEAT)
    assert feed(referee, [welcome(), events(started(1, seats=(2, 3))), turn(1)]) == [
        "YourTurn for hand 1, which this seat is not dealt in"
    ]
    assert referee.turn is None


def test_turn_ahead_of_the_events() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [turn(5)]) == ["YourTurn after seq 5, but the last event received is 3"]


def test_turn_offering_nothing_playable() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    timeout = pb.LegalAction(kind=pb.ACTION_KIND_TIMEOUT)
    assert feed(referee, [turn(3, timeout)]) == ["YourTurn in hand 1 offers (Legal(kind='timeout', min=0, max=0),)"]
    assert referee.turn is None, "the bot must not answer it"


def test_result_for_an_unknown_action_id() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [result("nobody-sent-this")]) == ["ActResult for unknown action id 'nobody-sent-this'"]


def test_accepted_action_outside_the_legal_actions() -> None:
    """BET-1: fixed limit allows only the two ends of a money range; the server accepted 30."""
    referee = Referee(SEAT)
    dealt_in(referee)
    bet = pb.LegalAction(kind=pb.ACTION_KIND_BET, min=20, max=40)
    on_turn(referee, 3, Action("bet", 30), legal=[bet])
    assert feed(referee, [result("a1"), events(acted(4, SEAT, pb.ACTION_KIND_BET, 30, 30))]) == [
        "accepted Action(kind='bet', amount=30, discard=()) outside the legal actions"
        " (Legal(kind='bet', min=20, max=40),)"
    ]


def test_action_applied_as_another_kind() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    on_turn(referee, 3, Action("call"))
    assert feed(referee, [result("a1"), events(acted(4, SEAT, pb.ACTION_KIND_FOLD))]) == [
        "sent call, the server applied fold"
    ]


def test_action_applied_with_another_amount() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    on_turn(referee, 3, Action("raise", 40))
    assert feed(referee, [result("a1"), events(acted(4, SEAT, pb.ACTION_KIND_RAISE, 80, 80))]) == [
        "sent raise to 40, the server applied raise to 80"
    ]


def test_draw_applied_with_other_cards() -> None:
    referee = Referee(SEAT)
    dealt_in(referee, options=DRAW)
    on_turn(referee, 3, Action("draw", discard=(0,)), legal=[pb.LegalAction(kind=pb.ACTION_KIND_DRAW, max=5)])
    drew = pb.Drew(seat=SEAT, discarded=[1], drawn=[40])
    assert feed(referee, [result("a1"), events(event(4, drew=drew))]) == [
        "sent Action(kind='draw', amount=0, discard=(0,)), the server drew [1]"
    ]


def test_action_applied_that_the_seat_never_sent() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(acted(4, SEAT, pb.ACTION_KIND_RAISE, 20, 20))]) == [
        "the server applied raise that this seat never sent"
    ]


def test_draw_applied_that_the_seat_never_sent() -> None:
    referee = Referee(SEAT)
    dealt_in(referee, options=DRAW)
    drew = pb.Drew(seat=SEAT, discarded=[0], drawn=[40])
    assert feed(referee, [events(event(4, drew=drew))]) == [
        "the server drew [0] for this seat, which sent no draw"
    ]


def test_the_clock_acting_for_the_seat_is_not_a_violation_but_another_kind_is() -> None:
    """CLOCK-2: after a timeout the engine reports the action it took (a fold here)."""
    referee = Referee(SEAT)
    dealt_in(referee)
    timed_out = event(4, timed_out=pb.TimedOut(seat=SEAT, outcome=pb.TIMEOUT_OUTCOME_FOLD))
    assert feed(referee, [events(timed_out, acted(5, SEAT, pb.ACTION_KIND_FOLD))]) == []
    assert referee.clock_outcomes == ["fold"]
    assert feed(referee, [events(acted(6, SEAT, pb.ACTION_KIND_CHECK))]) == [
        "the server applied check that this seat never sent"
    ]


def test_an_away_tournament_seat_acted_for_by_the_table_is_not_a_violation() -> None:  # TOURN-7
    """Away (SITTING_OUT) at a tournament table: the table folds, checks or posts the bring-in for the
    seat at once; back (PLAYING) it does not, and a raise is never the table's."""
    referee = Referee(SEAT)
    dealt_in(referee)
    away = pb.SeatState(seat=SEAT, player_id="p1#1", status=pb.SEAT_STATUS_SITTING_OUT)
    back = pb.SeatState(seat=SEAT, player_id="p1#1", status=pb.SEAT_STATUS_PLAYING)
    assert feed(referee, [events(event(4, seat_changed=pb.SeatChanged(seat=away)),
                                 acted(5, SEAT, pb.ACTION_KIND_CHECK), acted(6, SEAT, pb.ACTION_KIND_FOLD))]) == []
    assert feed(referee, [events(acted(7, SEAT, pb.ACTION_KIND_RAISE, 20, 20))]) == [
        "the server applied raise that this seat never sent"
    ]
    assert feed(referee, [events(event(8, seat_changed=pb.SeatChanged(seat=back)),
                                 acted(9, SEAT, pb.ACTION_KIND_FOLD))]) == [
        "the server applied fold that this seat never sent"
    ]


def test_legal_action_refused_on_the_seats_turn() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    on_turn(referee, 3, Action("call"))
    assert feed(referee, [result("a1", code=9, message="no")]) == ["legal action refused: no"]
    assert referee.settled == []


def test_timeout_with_an_outcome_clock_2_does_not_have() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    unknown = pb.TimedOut(seat=SEAT, outcome=77)  # type: ignore[arg-type]  # a number the proto lacks
    assert feed(referee, [events(event(4, timed_out=unknown))]) == [
        "timeout with outcome 77"
    ]


def test_chips_lost_in_a_hand() -> None:
    """BET-7: the final stacks add up to the starting ones (200 here, 190 at the end)."""
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(ended(4, (100, 90)))]) == ["hand 1: stacks 190 != 200 at start"]


def test_welcome_to_another_seat() -> None:
    assert feed(Referee(SEAT), [welcome(seat=2)]) == ["welcomed to seat 2"]


def test_hand_out_of_order() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(ended(4), started(5, hand=3))]) == ["hand 3 started after hand 1"]


def test_event_without_a_kind() -> None:
    referee = Referee(SEAT)
    dealt_in(referee)
    assert feed(referee, [events(pb.Event(seq=4, hand_number=1))]) == ["event 4 has no kind"]


# ----------------------------------------------------------------------------- clean streams


def clean_hand(referee: Referee) -> None:
    """A fixed-limit stud hand as a server sends it to seat 1, the bot's answers told to the referee
    as it would send them (``referee.sent`` is called when each turn has been checked)."""
    messages = [
        welcome(),
        events(
            started(1, stacks=(100, 100)),
            event(2, forced_bet=pb.ForcedBet(seat=1, kind=pb.FORCED_BET_KIND_ANTE, amount=1)),
            event(3, forced_bet=pb.ForcedBet(seat=2, kind=pb.FORCED_BET_KIND_ANTE, amount=1)),
            dealt(4, SEAT, [0, 1], [2]),
            dealt(5, 2, [-1, -1], [40]),
            event(6, round_started=pb.RoundStarted(street=0, first_seat=1)),
        ),
        turn(6, pb.LegalAction(kind=pb.ACTION_KIND_BRING_IN, min=5, max=5),
             pb.LegalAction(kind=pb.ACTION_KIND_COMPLETE, min=10, max=10)),  # STUD-3
        # The bring-in accepted, coalesced with what followed it.
        from_wire(
            results=[pb.ActResult(action_id="1")],
            events=[
                acted(7, SEAT, pb.ACTION_KIND_BRING_IN, 5, 5),
                acted(8, 2, pb.ACTION_KIND_CALL, 5, 5),
                dealt(9, SEAT, [], [3]),
                dealt(10, 2, [], [41]),
                event(11, round_started=pb.RoundStarted(street=1)),
            ],
        ),
        turn(11, pb.LegalAction(kind=pb.ACTION_KIND_CHECK), pb.LegalAction(kind=pb.ACTION_KIND_BET, min=10, max=10)),
        # Too late: the clock checked for the seat first (CLOCK-2); the refusal comes with it.
        from_wire(
            results=[pb.ActResult(action_id="2", code=9, message="turn_seq: the turn at seq 11 has passed")],
            events=[event(12, timed_out=pb.TimedOut(seat=SEAT, outcome=pb.TIMEOUT_OUTCOME_CHECK)),
                    acted(13, SEAT, pb.ACTION_KIND_CHECK), acted(14, 2, pb.ACTION_KIND_BET, 10, 10)],
        ),
        turn(14, FOLD, pb.LegalAction(kind=pb.ACTION_KIND_CALL, min=10, max=10)),
        from_wire(
            results=[pb.ActResult(action_id="3")],
            events=[
                acted(15, SEAT, pb.ACTION_KIND_CALL, 10, 10),
                event(16, seat_changed=pb.SeatChanged(seat=pb.SeatState(seat=1, status=pb.SEAT_STATUS_SITTING_OUT))),
                event(17, hand_shown=pb.HandShown(seat=SEAT, cards=[0, 1, 2, 3])),
                event(18, pots_formed=pb.PotsFormed(pots=[pb.Pot(amount=32, eligible_seats=[1, 2])])),
                event(19, pot_awarded=pb.PotAwarded(seat=SEAT, amount=32)),
                ended(20, (116, 84)),
            ],
        ),
    ]
    answers = {2: ("1", Action("bring_in", 5)), 4: ("2", Action("bet", 10)), 6: ("3", Action("call"))}
    for index, message in enumerate(messages):
        violations = referee.check(message)
        assert violations == (), (index, violations)
        if index in answers:
            action_id, action = answers[index]
            assert referee.turn is not None
            referee.sent(action_id, action, float(index), (0, 1))


def test_a_clean_hand_gives_no_violation_and_settles_every_action() -> None:
    referee = Referee(SEAT)
    clean_hand(referee)
    settled = [(s.action.kind, s.code) for s in referee.settled]
    assert settled == [("bring_in", ACCEPTED), ("bet", LATE), ("call", ACCEPTED)]
    assert referee.clock_outcomes == ["check"]
    assert referee.turn is None and not referee.in_flight


def test_a_resumed_stream_replaying_what_the_seat_missed_gives_no_violation() -> None:
    """The stream drops after the bot sent its call; the resume (from seq 14) replays the call's
    Acted, which the referee still holds in flight, and the rest of the hand."""
    referee = Referee(SEAT)
    dealt_in(referee)
    on_turn(referee, 3, Action("call"))
    referee.stream_closed()
    assert referee.hello() == 3 and referee.resuming
    replay = [welcome(last_seq=5), events(acted(4, SEAT, pb.ACTION_KIND_CALL, 20, 20), ended(5, (80, 120)))]
    assert feed(referee, replay) == []
    assert [(s.action.kind, s.sent, s.code) for s in referee.settled] == [("call", 0.0, ACCEPTED)], (
        "the call caught in flight by the drop is settled when the replay shows it applied"
    )


def test_other_seats_actions_and_the_prompt_after_an_action_carry_its_server_time() -> None:
    """Another seat's action received live is a broadcast to time; a turn that follows an action in
    the same hand (the bot's own or another's) is a prompt to time from that action's server time.
    Replayed events and a hand's first turn are not timed."""
    referee = Referee(SEAT)
    dealt_in(referee)
    assert referee.check(events(event(4, acted=pb.Acted(seat=2, kind=pb.ACTION_KIND_CALL, to=20, added=20),
                                      server_time_us=1_000))) == ()
    assert referee.broadcasts == [1_000] and referee.prompted_after == 0
    referee.broadcasts.clear()
    assert referee.check(turn(4)) == ()
    assert referee.prompted_after == 1_000
    referee.sent("a1", Action("call"), 0.0, (0, 1))
    own = event(5, acted=pb.Acted(seat=SEAT, kind=pb.ACTION_KIND_CALL, to=20, added=0), server_time_us=2_000)
    assert feed(referee, [result("a1"), events(own)]) == [] and referee.broadcasts == []
    assert referee.check(turn(5)) == () and referee.prompted_after == 2_000, "prompted after its own action"
    assert referee.check(turn(5)) == () and referee.prompted_after == 0, "no action since the last prompt"
    assert feed(referee, [events(ended(6, (100, 100)), started(7, hand=2, stacks=(100, 100))), turn(7, hand=2)]) == []
    assert referee.prompted_after == 0, "a hand's first turn follows no action of it"
    capped = event(8, timed_out=pb.TimedOut(seat=2, outcome=pb.TIMEOUT_OUTCOME_ALL_IN), server_time_us=3_000)
    assert feed(referee, [events(capped), turn(8, hand=2)]) == []
    assert referee.prompted_after == 3_000, "the clock's action, with no Acted after it (CLOCK-2's all-in cap)"

    replayed = Referee(SEAT)
    assert feed(replayed, [welcome(last_seq=4, hand_number=1, hand_running=True),
                           events(started(1), dealt(2, SEAT, [0, 1], [2]), dealt(3, 2, [-1, -1], [9]),
                                  event(4, acted=pb.Acted(seat=2, kind=pb.ACTION_KIND_CALL, to=20, added=20),
                                        server_time_us=1_000)),
                           turn(4)]) == []
    assert replayed.broadcasts == [] and replayed.prompted_after == 0


@pytest.mark.parametrize(
    "resumed",
    [
        [welcome(last_seq=3), turn(3)],
        [welcome(last_seq=4), events(event(4, timed_out=pb.TimedOut(seat=SEAT, outcome=pb.TIMEOUT_OUTCOME_FOLD)))],
        [welcome(last_seq=4), events(event(4, hand_voided=pb.HandVoided()))],
        [welcome(last_seq=9, gap=True, hand_number=2)],
    ],
    ids=["offered-again", "clock", "voided", "gap"],
)
def test_an_action_lost_with_its_stream_is_settled_lost_once_the_resume_shows_it(
    resumed: list[Traffic],
) -> None:
    """The stream drops after the bot sent its call, and the resumed stream shows the call never
    applied: the turn offered again, the clock acting, the hand voided, or the events gone (a gap).
    The call is settled LOST then, with the time it was sent: it is timed to that moment."""
    referee = Referee(SEAT)
    dealt_in(referee)
    assert referee.check(turn(3)) == ()
    referee.sent("a1", Action("call"), 7.5, (0, 1))
    referee.stream_closed()
    referee.hello()
    assert referee.settled == []
    assert feed(referee, resumed) == []
    assert [(s.action.kind, s.sent, s.code) for s in referee.settled] == [("call", 7.5, LOST)]


def test_a_takeover_inherits_the_previous_players_actions() -> None:
    """A seat played by a bot that died (a killed fleet): its replacement joins with the seat's token
    and the replay of the running hand shows the dead bot's call and draw. Those are the seat's past,
    not the server's fault; a call applied after the takeover that nobody sent still is."""
    replay = [
        welcome(last_seq=5, options=DRAW, hand_number=1, hand_running=True),
        events(started(1), dealt(2, SEAT, [20, 21, 22, 23, 24]), dealt(3, 2, [-1] * 5),
               acted(4, SEAT, pb.ACTION_KIND_CALL, 20, 20),
               event(5, drew=pb.Drew(seat=SEAT, discarded=[20], drawn=[30]))),
    ]
    assert feed(Referee(SEAT, takeover=True), replay) == []
    assert feed(Referee(SEAT), replay) == [
        "the server applied call that this seat never sent",
        "the server drew [20] for this seat, which sent no draw",
    ], "a bot that sat down itself has no past to inherit"
    referee = Referee(SEAT, takeover=True)
    feed(referee, replay)
    assert feed(referee, [events(acted(6, SEAT, pb.ACTION_KIND_CALL, 40, 20))]) == [
        "the server applied call that this seat never sent"
    ]


def test_a_takeover_answering_its_inherited_turn_is_clean() -> None:
    referee = Referee(SEAT, takeover=True)
    assert feed(referee, [welcome(last_seq=3, hand_number=1, hand_running=True),
                          events(started(1), dealt(2, SEAT, [0, 1], [2]), dealt(3, 2, [-1, -1], [9]))]) == []
    on_turn(referee, 3, Action("call"))
    assert feed(referee, [result("a1"), events(acted(4, SEAT, pb.ACTION_KIND_CALL, 20, 20), ended(5, (80, 120)))]) == []
    assert [s.code for s in referee.settled] == [ACCEPTED]


@pytest.mark.parametrize("gap", [False, True], ids=["whole", "gap"])
def test_a_resume_the_server_could_not_serve_whole_starts_over(gap: bool) -> None:
    """With ``Welcome.gap`` the events the seat missed are gone: the referee forgets the hand it
    knew and takes the next events as a fresh join's (no sequence or hand-order violation)."""
    referee = Referee(SEAT)
    dealt_in(referee)
    referee.stream_closed()
    referee.hello()
    resumed = [welcome(last_seq=40, gap=gap, hand_number=3), events(started(41, hand=4) if gap else dealt(4, 2, [-1]))]
    assert feed(referee, resumed) == []
