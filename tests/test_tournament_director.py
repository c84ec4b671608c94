"""The tournament director's rules (RULES.md §8), one scenario per rule, with exact seats and chips.

Each scenario runs a real director whose commands a ``Room`` carries out on real engine tables;
the test ends hands with the outcome it needs (who busts, who ends with what) and checks the
commands, the events, the seats and the chips, and TOURN-11 (tables + players in transit against
the director's books) wherever chips moved. Players are named by the seat the seed drew for them.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.tournament_room import Room, draw_structure, passive, stud_structure

from tablestorm.services.director import commands as cmd
from tablestorm.services.director import events as ev
from tablestorm.services.director.director import ChipInvariantError, Director, DirectorError
from tablestorm.services.director.entries import Entry, TableState
from tablestorm.services.director.finishing import FinishingOrder, split
from tablestorm.services.director.payouts import places_paid
from tablestorm.services.director.structure import TournamentStructure, structure_from_mapping
from tablestorm.services.director.tables import TableIndex
from tablestorm.services.engine import Stakes
from tablestorm.services.engine.events import ForcedBet
from tablestorm.services.engine.tournament_table import HandResult, SeatResult

LEVEL_1 = Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2)
LEVEL_2 = Stakes(small_bet=8, big_bet=16, ante=2, bring_in=4)


def room_of(
    players: int, structure: TournamentStructure | None = None, *, seed: int = 1, auto_rebuy: bool = False
) -> Room:
    room = Room(structure or stud_structure(), seed=seed)
    room.register(*[f"p{k}" for k in range(1, players + 1)], auto_rebuy=auto_rebuy)
    room.start()
    return room


def of(commands: list[cmd.Command], kind: type) -> list:  # type: ignore[type-arg]
    return [c for c in commands if type(c) is kind]


def with_a_break(**extra: Any) -> TournamentStructure:
    """Stud level 1 (600 s), a 300 s break, level 2 (600 s)."""
    return structure_from_mapping({
        "game": "7stud", "starting_stack": 1000,
        "levels": [
            {"duration_s": 600, "ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8},
            {"break_s": 300},
            {"duration_s": 600, "ante": 2, "bring_in": 4, "small_bet": 8, "big_bet": 16},
        ],
        **extra,
    })


def posts(room: Room, table_id: str) -> list[tuple[int, str, int]]:
    """(seat, kind, amount) of the forced bets of the hand running at ``table_id``."""
    table = room.tables[table_id]
    assert table.hand is not None
    return [(table.hand_seats[e.player] + 1, e.kind, e.amount) for e in table.hand.events if type(e) is ForcedBet]


# ----------------------------------------------------------------- TOURN-2 seating


def test_initial_seats_are_drawn_at_random_balanced_and_reproducible() -> None:  # TOURN-2
    def seating(seed: int) -> list[tuple[str, int, str]]:
        return sorted((c.table_id, c.seat, c.entry_id) for c in of(room_of(20, seed=seed).commands, cmd.SeatPlayer))

    first = seating(5)
    assert first == seating(5), "the same seed draws the same seats"
    assert first != seating(6)
    assert sorted(entry for _, _, entry in first) == sorted(f"p{k}#1" for k in range(1, 21))
    sizes = {table: sum(1 for t, _, _ in first if t == table) for table, _, _ in first}
    assert sizes == {"T/t1": 7, "T/t2": 7, "T/t3": 6}
    room = room_of(20, seed=5)
    assert [(c.table_id, c.hand_number, c.stakes) for c in of(room.commands, cmd.DealHand)] == [
        ("T/t1", 1, LEVEL_1), ("T/t2", 1, LEVEL_1), ("T/t3", 1, LEVEL_1)
    ]
    assert {c.stack for c in of(room.commands, cmd.SeatPlayer)} == {1000}
    room.check()


def test_a_late_entry_and_a_reentry_get_a_full_stack_and_a_drawn_seat() -> None:  # TOURN-2, TOURN-10
    structure = stud_structure(late_registration={"until_level": 2}, reentry={"max_entries": 2})
    room = room_of(11, structure)  # tables of 6 and 5
    assert sorted(len(room.seats(t)) for t in room.tables) == [5, 6]
    short = next(t for t in room.tables if len(room.seats(t)) == 5)
    late = room.at(30).register("late")
    (seated,) = of(late, cmd.SeatPlayer)
    assert (seated.table_id, seated.entry_id, seated.stack) == (short, "late#1", 1000)  # the table with fewest
    assert seated.seat not in {seat for seat, entry in room.seats(short).items() if entry != "late#1"}
    room.at(60).finish(short)
    deal = of(room.commands, cmd.DealHand)[-1]
    assert deal.table_id == short and seated.seat - 1 in room.tables[short].hand_seats  # stud: dealt at once
    # p1 busts and re-enters: a new entry with a new drawn seat and a full stack; the old place stands.
    table_of_p1 = next(t for t in room.tables if "p1#1" in room.seats(t).values())
    other = next(e for e in room.seats(table_of_p1).values() if e != "p1#1")
    room.at(90).finish(table_of_p1, {"p1#1": 0}, winner=other)
    (out,) = room.events(ev.Eliminated)
    assert (out.entry_id, out.place, out.prize) == ("p1#1", None, None)  # placed when registration closes
    again = room.at(100).register("p1")
    (reseated,) = of(again, cmd.SeatPlayer)
    assert (reseated.entry_id, reseated.stack) == ("p1#2", 1000)
    assert room.events(ev.Registered)[-1] == ev.Registered(100, "p1", "p1#2", True)
    assert room.director.entries == 13 and room.director.prize_pool == 1300
    with pytest.raises(DirectorError, match="player_id: 'p1' is still in the tournament"):
        room.director.register("p1", 101)
    room.check()
    room.at(1200).tick()  # the end of play level 2: registration closes, places are final
    assert room.events(ev.LateRegistrationClosed) == [ev.LateRegistrationClosed(1200, 13)]
    assert room.events(ev.Placed) == [ev.Placed(1200, "p1#1", 13, 0)]
    with pytest.raises(DirectorError, match="register: registration is closed"):
        room.director.register("latest", 1201)


def late_entry_dealt_at_once(seed: int) -> tuple[bool, bool]:
    """One draw table of four; a late entry takes the empty seat during hand 2. Returns whether
    that seat is between the button and the small blind for hand 3, and whether hand 3 deals it."""
    room = room_of(4, draw_structure(late_registration={"until_level": 1}), seed=seed)
    (table,) = room.tables
    room.at(10).finish(table)
    (seat,) = [c.seat for c in of(room.at(20).register("late"), cmd.SeatPlayer)]
    room.at(30).finish(table)
    waiting = seat in room.results[table].waiting_seats
    dealt = seat - 1 in room.tables[table].hand_seats
    room.check()
    return waiting, dealt


def test_a_newcomer_between_the_button_and_the_small_blind_waits() -> None:  # TOURN-2, DRAW-6
    outcomes = {late_entry_dealt_at_once(seed) for seed in range(1, 9)}
    assert outcomes == {(True, False), (False, True)}, "dealt at once unless between the button and small blind"


# ----------------------------------------------------------------- TOURN-1 levels


def test_a_level_change_applies_from_the_next_hand() -> None:  # TOURN-1
    room = room_of(3)
    (table,) = room.tables
    assert room.director.next_wakeup() == 600
    room.at(600).tick()
    assert room.events(ev.LevelUp)[-1] == ev.LevelUp(600, 1, 2, LEVEL_2)
    assert of(room.commands, cmd.DealHand)[-1].hand_number == 1  # the hand dealt in level 1 runs on
    room.at(650).finish(table)
    record = room.tables[table].last_record
    assert record is not None and {e.amount for e in record.events if type(e) is ForcedBet and e.kind == "ante"} == {1}
    assert of(room.commands, cmd.DealHand)[-1] == cmd.DealHand(table, 2, LEVEL_2)
    assert room.director.time_left(650) == 550 and room.director.play_level == 2


def test_no_hand_is_dealt_on_a_break_and_play_resumes_after_it() -> None:  # TOURN-1
    room = room_of(3, with_a_break())
    (table,) = room.tables
    room.at(610).finish(table)
    assert room.events(ev.BreakStarted) == [ev.BreakStarted(610, 1, 300)]
    assert len(of(room.commands, cmd.DealHand)) == 1 and room.dealing() == set()
    assert room.director.next_wakeup() == 900
    room.at(900).tick()
    assert of(room.commands, cmd.DealHand)[-1] == cmd.DealHand(table, 2, LEVEL_2)
    assert room.events(ev.LevelUp)[-1] == ev.LevelUp(900, 2, 2, LEVEL_2)


def test_pause_holds_the_clock_and_the_deals() -> None:
    room = room_of(3)
    (table,) = room.tables
    room.run(room.director.pause(100))
    room.at(700).finish(table)
    assert room.dealing() == set() and room.director.level_index == 0 and room.director.time_left(700) == 500
    assert room.director.next_wakeup() is None
    room.run(room.director.resume(800))
    assert room.dealing() == {table} and room.director.next_wakeup() == 1300


# ----------------------------------------------------------------- TOURN-3 breaking


def test_a_table_breaks_into_the_others_empty_seats_by_random_draw() -> None:  # TOURN-3
    def broken(seed: int) -> tuple[list[tuple[str, str, int, str, int]], Room]:
        room = room_of(18, seed=seed)  # three tables of six
        assert sorted(len(room.seats(t)) for t in room.tables) == [6, 6, 6]
        start_seats[:] = [(t, s) for t in room.tables for s in room.seats(t)]
        seats = room.seats("T/t1")
        busted = sorted(seats)[:2]
        room.at(50).finish("T/t1", {seats[s]: 0 for s in busted}, winner=seats[sorted(seats)[2]])
        return room.moved(), room

    start_seats: list[tuple[str, int]] = []
    moves, room = broken(3)
    assert room.events(ev.TableBroken) == [ev.TableBroken(50, "T/t1")]
    assert len(moves) == 4 and {m[1] for m in moves} == {"T/t1"}
    taken = [(m[3], m[4]) for m in moves]
    assert len(set(taken)) == 4 and not set(taken) & set(start_seats), "into seats that were empty"
    assert {t for t, _ in taken} == {"T/t2", "T/t3"} and all(len(room.seats(t)) == 8 for t in room.tables)
    assert of(room.commands, cmd.CloseTable) == [cmd.CloseTable("T/t1")] and "T/t1" not in room.director.tables
    assert moves == broken(3)[0], "the draw is the seed's"
    assert [e.place for e in room.events(ev.Eliminated)] == [17, 17]  # equal stacks: a tie (TOURN-6)
    room.check()


def test_a_table_that_must_break_while_dealing_breaks_when_its_hand_ends() -> None:  # TOURN-3
    room = room_of(27)  # tables of 7, 7, 7 and 6
    x, y, z, small = sorted(room.tables, key=lambda t: (-len(room.seats(t)), t))

    def bust_one(table: str, at: float) -> None:
        seats = room.seats(table)
        room.at(at).finish(table, {seats[min(seats)]: 0}, winner=seats[max(seats)])

    bust_one(small, 10)  # 5 players, two short: it deals on
    bust_one(x, 20)
    assert small in room.dealing() and room.events(ev.TableBroken) == []
    bust_one(y, 30)  # 24 players fit in three tables; the fewest is dealing
    assert room.events(ev.TableBroken) == []
    assert [t.breaking for t in room.director.table_summaries()] == [t == small for t in sorted(room.tables)]
    room.at(40).finish(small)
    assert room.events(ev.TableBroken) == [ev.TableBroken(40, small)] and small not in room.tables
    assert sorted(len(room.seats(t)) for t in room.tables) == [8, 8, 8]
    assert {m[1] for m in room.moved()} == {small} and {m[3] for m in room.moved()} == {x, y, z}
    room.check()


# ----------------------------------------------------------------- TOURN-4 balancing


def test_stud_balancing_takes_the_player_in_the_seat_that_opened_last() -> None:  # TOURN-4
    room = room_of(16)  # two full tables
    t1, t2 = room.seats("T/t1"), room.seats("T/t2")
    room.at(10).finish("T/t2", {t2[2]: 0, t2[3]: 0}, winner=t2[1])  # t2: seats 2 and 3 empty
    room.at(20).finish("T/t1", {t1[1]: 0, t1[2]: 0, t1[4]: 0}, winner=t1[5])
    room.at(30).finish("T/t1", {t1[3]: 0}, winner=t1[5])  # t1: 4 players, seat 3 opened last
    assert room.moved() == [], "t2 (6 players) is dealing: the move waits for its hand"
    assert "T/t1" in room.dealing(), "two short: t1 deals on"
    room.at(40).finish("T/t2")
    # At t2 seat 3 is empty and so is seat 2: the nearest occupied seat is 4.
    assert room.moved() == [(t2[4], "T/t2", 4, "T/t1", 3)]
    assert [c for c in room.commands if type(c) in (cmd.RemovePlayer, cmd.SeatPlayer)][-2:] == [
        cmd.RemovePlayer("T/t2", 4, t2[4]), cmd.SeatPlayer("T/t1", 3, t2[4], t2[4].split("#")[0], room.stack(t2[4]))
    ]
    room.check()


def test_stud_balancing_moves_the_player_in_the_same_seat_number() -> None:  # TOURN-4
    room = room_of(16)
    t1, t2 = room.seats("T/t1"), room.seats("T/t2")
    room.at(10).finish("T/t1", {t1[7]: 0}, winner=t1[1])
    room.at(20).finish("T/t1", {t1[5]: 0}, winner=t1[1])  # t1: 6 players, seat 5 opened last
    room.at(30).finish("T/t2")
    assert room.moved() == [(t2[5], "T/t2", 5, "T/t1", 5)]
    room.check()


def test_draw_balancing_moves_the_next_big_blind_to_the_next_big_blind_seat() -> None:  # TOURN-4
    room = room_of(10, draw_structure())  # two full tables of five
    t1, t2 = room.seats("T/t1"), room.seats("T/t2")
    # Hand 1 everywhere: button seat 1, small blind 2, big blind 3. t1 loses seats 3, 4 and 5.
    room.at(10).finish("T/t1", {t1[3]: 0, t1[4]: 0, t1[5]: 0}, winner=t1[1])
    assert room.dealing() == {"T/t2"}, "three short of t2: t1 holds its deal (TOURN-4)"
    assert room.director.table_summaries()[0].held
    room.at(20).finish("T/t2")
    # t2's next big blind is seat 4; t1's next big blind seat is 4 (3 is its small blind's seat).
    assert room.moved() == [(t2[4], "T/t2", 4, "T/t1", 4)]
    assert room.dealing() == {"T/t1", "T/t2"}
    assert posts(room, "T/t1") == [(4, "big_blind", 2)]  # the mover posts at once; the small blind is dead
    room.check()


def test_a_player_moved_to_a_dealing_table_waits_for_its_hand_and_the_fresh_positions() -> None:  # TOURN-4, TOURN-11
    room = room_of(10, draw_structure())
    t1, t2 = room.seats("T/t1"), room.seats("T/t2")
    room.at(10).finish("T/t1", {t1[3]: 0, t1[5]: 0}, winner=t1[1])  # t1: seats 1, 2, 4 (two short: deals on)
    assert room.dealing() == {"T/t1", "T/t2"}
    room.at(20).finish("T/t2")
    carried = {r.player_id: r.end for r in room.results["T/t2"].seats}[t2[4]]
    assert room.director.in_transit() == [(t2[4], carried)] and room.moved() == []
    room.check()  # the player's chips count while they walk over
    room.at(30).finish("T/t1")
    # t1's hand 2 had its big blind on seat 4; the next big blind seat is 5 (never seat 4, the small blind).
    assert room.moved() == [(t2[4], "T/t2", 4, "T/t1", 5)] and room.director.in_transit() == []
    assert posts(room, "T/t1") == [(4, "small_blind", 1), (5, "big_blind", 2)]
    room.check()


def test_the_giving_and_receiving_tables_follow_the_tie_rules() -> None:  # TOURN-4
    index = TableIndex(8)
    tables = [TableState(f"t{n}", n, [None] * 8) for n in range(1, 5)]
    for table, players, given in zip(tables, (8, 8, 6, 6), (1, 0, 0, 0), strict=True):
        index.add(table)
        index.resize(table, players)
        for _ in range(given):
            index.gave(table)
    assert index.largest() is tables[1], "equal largest: the one that gave fewer"
    assert index.smallest() is tables[2], "equal smallest: the lowest number"
    index.gave(tables[1])
    index.gave(tables[1])
    assert index.largest() is tables[0], "then the one that gave fewer again"
    assert index.room == 4


# ----------------------------------------------------------------- TOURN-5 hand-for-hand


def test_hand_for_hand_waits_for_every_table_and_its_eliminations_are_simultaneous() -> None:  # TOURN-5, TOURN-6
    structure = stud_structure(payouts={"table": [20, 15, 12, 11, 10, 9, 8, 6, 5, 4]})  # ten places paid
    room = room_of(16, structure)
    t1, t2 = room.seats("T/t1"), room.seats("T/t2")
    room.at(10).finish("T/t1", {t1[1]: 0, t1[2]: 0}, winner=t1[3])
    room.at(20).finish("T/t2", {t2[1]: 0, t2[2]: 0, t2[3]: 0}, winner=t2[4])
    assert room.director.players_left == 11 and room.director.hand_for_hand
    assert room.events(ev.HandForHand) == [ev.HandForHand(20, True)]
    assert room.dealing() == {"T/t1"}, "t2 waits for t1's hand: the round starts when every table is idle"
    room.at(30).finish("T/t1", {t1[4]: 800}, winner=t1[3])
    assert room.dealing() == {"T/t1", "T/t2"}
    room.at(40).finish("T/t1", {t1[4]: 0}, winner=t1[3])  # out first, with the smaller stack
    assert room.dealing() == {"T/t2"} and room.events(ev.Eliminated)[-1].entry_id != t1[4]
    stack = room.stack(t2[5])
    assert stack == 1000
    room.at(50).finish("T/t2", {t2[5]: 0}, winner=t2[4])
    last_two = room.events(ev.Eliminated)[-2:]
    assert [(e.entry_id, e.place) for e in last_two] == [(t1[4], 11), (t2[5], 10)]  # by starting stack
    assert last_two[1].prize == room.director.payouts()[9] and last_two[0].prize == 0
    assert room.events(ev.HandForHand)[-1] == ev.HandForHand(50, False) and room.director.in_the_money
    assert room.dealing() == {"T/t1", "T/t2"}
    room.check()


def test_with_one_table_there_is_no_hand_for_hand() -> None:  # TOURN-5
    room = room_of(5, stud_structure(payouts={"table": [60, 40]}))
    (table,) = room.tables
    seats = room.seats(table)
    room.at(10).finish(table, {seats[s]: 0 for s in sorted(seats)[:2]}, winner=seats[sorted(seats)[2]])
    assert room.director.players_left == 3 and not room.director.hand_for_hand and room.dealing() == {table}


# ----------------------------------------------------------------- TOURN-6 finishing order


def test_two_players_out_in_one_hand_finish_by_their_starting_stacks() -> None:  # TOURN-6
    room = room_of(5)
    (table,) = room.tables
    seats = room.seats(table)
    a, b, c, *_ = seats.values()
    room.at(10).finish(table, {a: 300, b: 600}, winner=c)
    room.at(20).finish(table, {a: 0, b: 0}, winner=c)
    assert [(e.entry_id, e.place) for e in room.events(ev.Eliminated)] == [(a, 5), (b, 4)]
    room.check()


def test_equal_stacks_tie_and_split_their_places_prizes() -> None:  # TOURN-6
    room = room_of(4, stud_structure(buy_in=101, payouts={"table": [50, 30, 20]}))
    (table,) = room.tables
    a, b, c, d = room.seats(table).values()
    room.at(10).finish(table, {d: 0}, winner=c)  # d 4th
    room.at(20).finish(table, {a: 0, b: 0}, winner=c)  # a and b started this hand with 1000 each: a tie
    prizes = room.director.payouts()
    shared = prizes[1] + prizes[2]
    assert shared % 2 == 1, "the pool leaves a remainder to give"
    first = min((a, b), key=lambda e: int(e.split("#")[0][1:]))  # p<k>: registered in order
    second = b if first == a else a
    out = {e.entry_id: (e.place, e.prize) for e in room.events(ev.Eliminated)}
    assert out[d] == (4, 0)
    assert out[first] == (2, shared // 2 + 1) and out[second] == (2, shared // 2)
    assert room.events(ev.Finished) == [ev.Finished(20, c, c.split("#")[0], prizes[0])]
    assert sum(p.prize for p in room.director.finishing_order()) == room.director.prize_pool == 404


def test_a_tie_splits_the_sum_of_places_with_the_remainder_in_registration_order() -> None:  # TOURN-6
    entries = [Entry(f"p{k}#1", f"p{k}", k) for k in range(4)]
    order = FinishingOrder()
    order.add([(entries[3], 500), (entries[1], 500), (entries[2], 700)], alive_before=4, entries=4)
    settled = order.settle(4, (100, 51, 30, 20), paid=4)
    assert {e.entry_id: (e.place, e.prize) for e in settled} == {
        "p2#1": (2, 51), "p1#1": (3, 25), "p3#1": (3, 25)
    }
    assert split(51, [entries[3], entries[1]]) == [25, 26]  # p1 registered before p3: the odd unit


# ----------------------------------------------------------------- TOURN-7 away players


def test_an_away_player_stays_dealt_in_and_is_folded() -> None:  # TOURN-7
    room = room_of(3)
    (table,) = room.tables
    p1_seat = next(s for s, e in room.seats(table).items() if e == "p1#1")
    out = room.run(room.director.set_away("p1", True, 5))
    assert out == [cmd.SetAway(table, p1_seat, "p1#1", True)] and room.tables[table].is_away(p1_seat)
    room.at(10).finish(table)
    assert p1_seat - 1 in room.tables[table].hand_seats
    assert [r.away for r in room.tables[table].result().seats if r.seat == p1_seat] == [True]


# ----------------------------------------------------------------- TOURN-9 payouts


def test_the_prize_pool_and_payouts_follow_the_entries() -> None:  # TOURN-9
    room = room_of(30, stud_structure(buy_in=50))
    assert room.director.prize_pool == 1500 and room.director.places_paid == places_paid(30, 15.0) == 5
    prizes = room.director.payouts()
    assert len(prizes) == 5 and sum(prizes) == 1500 and list(prizes) == sorted(prizes, reverse=True)


# ----------------------------------------------------------------- TOURN-10 rebuys and add-ons


def test_a_rebuy_before_the_deal_plays_in_that_hand() -> None:  # TOURN-10
    room = room_of(3, stud_structure(rebuys={"until_level": 1, "threshold": 1000, "max_per_player": 2}))
    (table,) = room.tables
    a, b, _ = room.seats(table).values()
    assert room.run(room.director.rebuy(a.split("#")[0], 5)) == []  # asked during hand 1: before hand 2's deal
    room.at(10).finish(table, {a: 400}, winner=b)
    added, deal = of(room.commands, cmd.AddChips)[-1], of(room.commands, cmd.DealHand)[-1]
    assert added.entry_id == a and added.chips == 1000 and room.commands.index(added) < room.commands.index(deal)
    hand = room.tables[table].hand
    assert hand is not None and deal.hand_number == 2
    assert hand.starting_stacks[room.tables[table].hand_seats.index(added.seat - 1)] == 1400
    assert room.director.prize_pool == 400 and room.director.expected_chips == 4000
    with pytest.raises(DirectorError, match="above the rebuy threshold of 1000"):
        room.director.rebuy(b.split("#")[0], 11)
    room.check()


def test_a_busted_player_with_auto_rebuy_keeps_the_seat() -> None:  # TOURN-10
    room = room_of(3, stud_structure(rebuys={"until_level": 1, "max_per_player": 1}), auto_rebuy=True)
    (table,) = room.tables
    a, b, _ = room.seats(table).values()
    seat = next(s for s, e in room.seats(table).items() if e == a)
    room.at(10).finish(table, {a: 0}, winner=b)
    assert of(room.commands, cmd.AddChips)[-1] == cmd.AddChips(table, seat, a, 1000, "rebuy")
    assert room.events(ev.Eliminated) == [] and room.seats(table)[seat] == a
    room.at(20).finish(table, {a: 0}, winner=b)  # no rebuy left: out
    assert [e.entry_id for e in room.events(ev.Eliminated)] == [a]
    room.at(700).tick()
    with pytest.raises(DirectorError, match="rebuy: the rebuy period is over"):
        room.director.rebuy(b.split("#")[0], 701)
    room.check()


def test_the_add_on_is_taken_in_the_break_after_its_level() -> None:  # TOURN-10
    room = room_of(3, with_a_break(addon={"after_level": 1, "stack": 1500, "cost": 50}))
    (table,) = room.tables
    with pytest.raises(DirectorError, match="add_on: the add-on window is not open"):
        room.director.add_on("p1", 100)
    room.at(620).tick()
    assert room.events(ev.AddOnWindow) == [ev.AddOnWindow(620, True)]
    assert room.run(room.director.add_on("p1", 630)) == []  # its hand still runs: given when it ends
    room.at(640).finish(table)
    assert of(room.commands, cmd.AddChips)[-1].chips == 1500
    with pytest.raises(DirectorError, match="has taken the add-on"):
        room.director.add_on("p1", 650)
    out = room.run(room.director.add_on("p2", 700))
    assert [type(c) for c in out] == [cmd.AddChips]
    room.at(900).tick()
    assert room.events(ev.AddOnWindow)[-1] == ev.AddOnWindow(900, False)
    with pytest.raises(DirectorError, match="add_on: the add-on window is not open"):
        room.director.add_on("p3", 901)
    assert room.director.prize_pool == 400 and room.director.expected_chips == 6000
    room.check()


def test_without_a_break_the_add_on_comes_before_the_tables_first_hand_of_the_next_level() -> None:  # TOURN-10
    room = room_of(3, stud_structure(addon={"after_level": 1, "stack": 500, "cost": 100}))
    (table,) = room.tables
    room.at(600).tick()  # level 2 begins while hand 1 (level 1) runs
    assert room.run(room.director.add_on("p1", 610)) == []
    room.at(620).finish(table)
    added, deal = of(room.commands, cmd.AddChips)[-1], of(room.commands, cmd.DealHand)[-1]
    assert room.commands.index(added) < room.commands.index(deal) and deal.stakes == LEVEL_2
    assert room.events(ev.AddOnWindow)[-1] == ev.AddOnWindow(620, False), "every table has dealt level 2"
    with pytest.raises(DirectorError, match="add_on: the add-on window is not open"):
        room.director.add_on("p2", 630)
    room.check()


def test_late_registration_closes_at_the_end_of_its_level_and_the_running_hand_completes() -> None:  # TOURN-10
    room = room_of(3, stud_structure(late_registration={"until_level": 1}))
    (table,) = room.tables
    room.at(599).register("just_in_time")
    room.at(600).tick()
    assert room.events(ev.LateRegistrationClosed) == [ev.LateRegistrationClosed(600, 4)]
    with pytest.raises(DirectorError, match="register: registration is closed"):
        room.director.register("too_late", 600)
    room.at(650).finish(table)  # dealt in level 1: it completes and is taken as usual
    assert of(room.commands, cmd.DealHand)[-1] == cmd.DealHand(table, 2, LEVEL_2)
    room.check()


# ----------------------------------------------------------------- TOURN-11 chips


def test_a_lost_table_voids_its_hand_and_is_rebuilt_with_the_stacks_it_started_with() -> None:  # TOURN-11
    room = room_of(3)
    (table,) = room.tables
    a, b, c = room.seats(table).values()
    room.at(10).finish(table, {a: 700}, winner=b)
    engine = room.tables.pop(table)
    assert engine.hand is not None and engine.hand_number == 2
    out = room.run(room.director.table_lost(table, 20))
    assert room.events(ev.HandVoided) == [ev.HandVoided(20, table, 2)]
    assert out[0] == cmd.OpenTable(table, room.director.structure.table_options(), 2)
    assert sorted((c.entry_id, c.stack) for c in of(out, cmd.SeatPlayer)) == sorted([(a, 700), (b, 1300), (c, 1000)])
    assert of(out, cmd.DealHand) == [cmd.DealHand(table, 3, LEVEL_1)]
    assert room.tables[table].hand_number == 3
    room.check()


def test_chips_that_appear_or_vanish_raise_and_change_nothing() -> None:  # TOURN-11
    room = room_of(3)
    (table,) = room.tables
    engine = room.tables[table]
    while engine.hand is not None:
        engine.apply(engine.hand_seats[engine.hand.actor] + 1, passive(engine))
    result = engine.result()
    events = len(room.director.events)
    richer = result._replace(seats=(result.seats[0]._replace(end=result.seats[0].end + 1), *result.seats[1:]))
    with pytest.raises(ChipInvariantError, match="stacks do not add up"):
        room.director.hand_finished(richer, 10)
    wrong_start = result._replace(seats=(result.seats[0]._replace(start=999), *result.seats[1:]))
    with pytest.raises(ChipInvariantError, match="the director holds 1000"):
        room.director.hand_finished(wrong_start, 10)
    assert len(room.director.events) == events
    room.run(room.director.hand_finished(result, 10))  # the true result is still taken
    room.check()


# ----------------------------------------------------------------- bad inputs


def test_bad_inputs_name_the_field_and_change_nothing() -> None:
    room = room_of(3)
    director: Director = room.director
    (table,) = room.tables
    before = len(director.events)
    cases = [
        (lambda: director.register("", 1), "player_id: expected a non-empty string"),
        (lambda: director.register("p1", float("nan")), "now: expected a finite number"),
        (lambda: director.rebuy("nobody", 1), "player_id: 'nobody' is not in the tournament"),
        (lambda: director.rebuy("p1", 1), "rebuy: this tournament has no rebuys"),
        (lambda: director.set_away("p1", "yes", 1), "away: expected true or false"),  # type: ignore[arg-type]
        (lambda: director.table_lost("T/t9", 1), "table_id: no open table 'T/t9'"),
        (lambda: director.start(1), "start: the tournament has already started"),
        (lambda: director.unregister("p1", 1), "unregister: only before the start"),
        (lambda: director.resume(1), "resume: the tournament is not paused"),
    ]
    for call, message in cases:
        with pytest.raises(DirectorError, match=message):
            call()
    engine = room.tables[table]
    result = engine.result() if engine.last_record else None
    assert result is None  # no hand has finished yet
    with pytest.raises(DirectorError, match=r"result\.hand_number: table T/t1 is dealing hand 1, not hand 7"):
        seats = tuple(SeatResult(k + 1, s.player_id, s.stack, s.stack, False) for k, s in enumerate(engine.seats) if s)
        director.hand_finished(HandResult(table, 7, seats, False, (), ()), 1)
    room.at(5).tick()
    with pytest.raises(DirectorError, match="now: 4 is before the last input's time 5"):
        director.tick(4)
    assert len(director.events) == before
    with pytest.raises(DirectorError, match="seed: expected a whole number"):
        Director(stud_structure(), seed="1", tournament_id="x")  # type: ignore[arg-type]


def test_an_explicit_table_longer_than_the_field_pays_its_first_places() -> None:  # TOURN-9 [decision]
    room = room_of(2, stud_structure(payouts={"table": [50, 30, 20]}))
    assert room.director.places_paid == 2 and room.director.payouts() == (125, 75)
