"""What a restarted tournament server makes of each table copy it finds (``recovery.reconcile``):
one case per verdict, and the copies it does not keep."""

from __future__ import annotations

from tablestorm.services.director.director import SeatView, TableSeating
from tablestorm.services.engine import Stakes
from tablestorm.services.tournament.recovery import Found, Reconciled, Verdict, reconcile
from tablestorm.services.tournament.remote import TableCopy

STAKES = Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2)
SEATS = (SeatView(2, "a#1", "a", 900, False), SeatView(5, "b#1", "b", 1100, True))
AS_HELD = ((2, "a#1", 900), (5, "b#1", 1100))


def table(hand: int, dealing: bool) -> TableSeating:
    return TableSeating("T/t1", SEATS, (), hand, dealing, STAKES, False, ())


def copy(hand: int, running: bool = False, seats: tuple[tuple[int, str, int], ...] = AS_HELD,
         closing: bool = False) -> TableCopy:
    return TableCopy("T.t1", hand, running, closing, seats)


def test_a_table_between_hands_as_the_director_holds_it_is_adopted() -> None:
    found = Found("b:2", copy(4))
    assert reconcile(table(4, False), [found]) == Reconciled(Verdict.ADOPT, found, ())


def test_the_hand_the_director_waits_on_is_collected_running_or_played() -> None:
    for running in (True, False):
        found = Found("b:2", copy(5, running, seats=((2, "a#1", 850), (5, "b#1", 1100))))
        assert reconcile(table(5, True), [found]).verdict is Verdict.COLLECT


def test_a_deal_that_never_reached_the_table_is_made() -> None:
    assert reconcile(table(5, True), [Found("b:2", copy(4))]).verdict is Verdict.DEAL


def test_a_copy_unlike_the_director_is_rebuilt_and_every_copy_closed() -> None:
    missing_player = Found("a:1", copy(4, seats=AS_HELD[:1]))
    closing = Found("b:2", copy(4, closing=True))
    behind = Found("c:3", copy(3))
    assert reconcile(table(4, False), [missing_player, closing, behind]) == Reconciled(
        Verdict.REBUILD, None, (missing_player, closing, behind)
    )
    assert reconcile(table(5, True), [Found("a:1", copy(4, seats=AS_HELD[:1]))]).verdict is Verdict.REBUILD
    assert reconcile(table(4, False), []) == Reconciled(Verdict.REBUILD, None, ())


def test_the_first_copy_that_fits_is_kept_the_others_closed() -> None:
    stale, kept, other = Found("a:1", copy(2)), Found("b:2", copy(5, True)), Found("c:3", copy(5, True))
    assert reconcile(table(5, True), [stale, kept, other]) == Reconciled(Verdict.COLLECT, kept, (stale, other))
