"""The placement of a tournament's tables on its own: every fault sequence the live driver met,
replayed as events with the exact decisions expected (``services/tournament/table_placement.py``).
Pure: no server, no loop, no clock. Each test names the commit whose fix it holds, where there is
one; the live runs that found them are in test_tournament_service_findings.py and
test_tournament_serve.py."""

from __future__ import annotations

from tablestorm.services.tournament.table_placement import (
    Abandon,
    Answer,
    Close,
    Copy,
    Create,
    Lose,
    NotPlaced,
    Offer,
    OfferLater,
    Placed,
    Placement,
    Rebuild,
    TablePlacement,
)

A, B = "127.0.0.1:5001", "127.0.0.1:5002"
OPENED, REFUSED, UNANSWERED = Answer.OPENED, Answer.REFUSED, Answer.UNANSWERED


def wire(table_id: str) -> str:
    return f"k.{table_id}"


def at(endpoint: str, table_id: str) -> Copy:
    return Copy(endpoint, wire(table_id))


def placed(model: TablePlacement, table_id: str, endpoint: str, candidates: tuple[str, ...] = (A, B)) -> Placement:
    """Open ``table_id`` and have ``endpoint`` (the first candidate up without its stale copy) take it."""
    assert model.open(table_id, wire(table_id), [endpoint, *(c for c in candidates if c != endpoint)]) == [
        Create(table_id, at(endpoint, table_id))
    ]
    decisions = model.created(table_id, OPENED)
    assert len(decisions) == 1 and isinstance(decisions[0], Placed), decisions
    return decisions[0].placement


def test_a_table_goes_to_the_first_server_that_takes_it() -> None:
    model = TablePlacement([A, B])
    assert model.open("t1", wire("t1"), [A, B]) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", REFUSED) == [Create("t1", at(B, "t1"))]  # e.g. its table limit
    assert model.created("t1", OPENED) == [Placed("t1", Placement(at(B, "t1"), 1), was_unplaced=False)]
    assert model.where("t1") == Placement(at(B, "t1"), 1) and model.stale == ()


def test_a_table_no_server_takes_is_said_unplaced_once_and_offered_again_while_one_is_up() -> None:
    """0655ce0 (said once, and how long it waited) and 2b0fcad (offered again every second)."""
    model = TablePlacement([A])
    assert model.open("t1", wire("t1"), [A]) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", REFUSED) == [NotPlaced("t1", first=True), OfferLater()]
    assert model.offers() == [Offer(("t1",))]
    assert model.offer("t1") == [Rebuild("t1", lost=False)]
    assert model.open("t1", wire("t1"), [A]) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", REFUSED) == [NotPlaced("t1", first=False), OfferLater()]
    assert model.open("t1", wire("t1"), [A]) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", OPENED) == [Placed("t1", Placement(at(A, "t1"), 1), was_unplaced=True)]
    assert model.unplaced == () and model.offers() == [] and model.offer("t1") == []


def test_a_server_lost_loses_each_of_its_tables_once_and_their_results_are_stale() -> None:
    """d1b802f: the tables of a server down are rebuilt where a server is up; what their old
    placement answers is dropped (its epoch); the same loss said twice (the server's, a call's)
    rebuilds once."""
    model = TablePlacement([A, B])
    placed(model, "t1", A)
    t2, t3 = placed(model, "t2", B), placed(model, "t3", B)
    assert model.server_lost(B) == [Lose("t2", t2.epoch), Lose("t3", t3.epoch)]
    assert model.lose("t2", t2.epoch) == [Abandon("t2", t2), Rebuild("t2", lost=True)]  # B down: closed when back
    assert model.lose("t2", t2.epoch) == []
    assert not model.current("t2", t2.epoch)
    assert model.open("t2", wire("t2"), [A]) == [Create("t2", at(A, "t2"))]
    assert model.created("t2", OPENED) == [Placed("t2", Placement(at(A, "t2"), 4), was_unplaced=False)]
    assert model.stale == (at(B, "t2"),)


def test_a_refused_call_rebuilds_the_table_and_its_copy_is_closed_before_it_opens_there_again() -> None:
    """ee8d037 (a server restarted before the health checks noticed: NOT_FOUND) and 2b0fcad (a
    rebuild never meets its own stale copy): the copy is closed at once, its server being up, and
    the rebuild waits for that CloseTable's answer (one at a time)."""
    model = TablePlacement([A])
    t1 = placed(model, "t1", A)
    assert model.lose("t1", t1.epoch) == [Abandon("t1", t1), Close(at(A, "t1")), Rebuild("t1", lost=True)]
    assert model.open("t1", wire("t1"), [A]) == []  # waits for the closing under way
    assert model.closed(at(A, "t1"), gone=True) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", OPENED) == [Placed("t1", Placement(at(A, "t1"), 2), was_unplaced=False)]
    assert model.stale == ()


def test_a_server_back_has_its_stale_copies_closed_before_the_unplaced_tables_are_offered() -> None:
    """29e5311: the only server, back; offered first, a table met its own stale copy there
    (ALREADY_EXISTS) and stayed unplaced for good."""
    model = TablePlacement([A])
    t1, t2 = placed(model, "t1", A, (A,)), placed(model, "t2", A, (A,))
    assert model.server_lost(A) == [Lose("t1", t1.epoch), Lose("t2", t2.epoch)]
    assert model.lose("t1", t1.epoch) == [Abandon("t1", t1), Rebuild("t1", lost=True)]
    assert model.open("t1", wire("t1"), []) == [NotPlaced("t1", first=True)]  # no server up: no later offer
    assert model.lose("t2", t2.epoch) == [Abandon("t2", t2), Rebuild("t2", lost=True)]
    assert model.open("t2", wire("t2"), []) == [NotPlaced("t2", first=True)]
    assert model.server_back(A) == [Close(at(A, "t1")), Close(at(A, "t2"))]
    assert model.closed(at(A, "t1"), gone=True) == []
    assert model.closed(at(A, "t2"), gone=True) == [Offer(("t1", "t2"))]
    assert model.offer("t1") == [Rebuild("t1", lost=False)]
    assert model.open("t1", wire("t1"), [A]) == [Create("t1", at(A, "t1"))]


def test_a_server_back_between_the_rebuilds_of_its_tables_keeps_no_copy_of_them() -> None:
    """2b0fcad, found by CI's frozen-server test: the server came back while the first of its two
    lost tables was being rebuilt; the second one's copy there was never closed (only the copies
    of tables lost while it was down were), and its players' old streams never ended."""
    model = TablePlacement([A, B])
    placed(model, "t1", A)
    t2 = placed(model, "t2", B)
    placed(model, "t3", A)
    t4 = placed(model, "t4", B)
    assert model.server_lost(B) == [Lose("t2", t2.epoch), Lose("t4", t4.epoch)]
    assert model.lose("t2", t2.epoch) == [Abandon("t2", t2), Rebuild("t2", lost=True)]
    assert model.open("t2", wire("t2"), [A]) == [Create("t2", at(A, "t2"))]
    assert model.server_back(B) == [Close(at(B, "t2"))]  # while t2's CreateTable on A is under way
    assert model.created("t2", OPENED) == [Placed("t2", Placement(at(A, "t2"), 5), was_unplaced=False)]
    assert model.lose("t4", t4.epoch) == [Abandon("t4", t4), Close(at(B, "t4")), Rebuild("t4", lost=True)]
    assert model.closed(at(B, "t2"), gone=True) == []
    assert model.closed(at(B, "t4"), gone=True) == []
    assert model.stale == ()


def test_the_only_server_back_while_a_lost_tables_hand_plays_out_takes_it_once_the_copy_is_gone() -> None:
    """2b0fcad: a tournament table closes only after its running hand. Offered once, while that
    copy still played its hand, the table was refused and never offered again."""
    model = TablePlacement([A])
    t1 = placed(model, "t1", A, (A,))
    assert model.server_lost(A) == [Lose("t1", t1.epoch)]
    assert model.lose("t1", t1.epoch) == [Abandon("t1", t1), Rebuild("t1", lost=True)]
    assert model.open("t1", wire("t1"), []) == [NotPlaced("t1", first=True)]
    assert model.server_back(A) == [Close(at(A, "t1"))]
    assert model.closed(at(A, "t1"), gone=False) == [Offer(("t1",))]  # its hand plays out
    assert model.offer("t1") == [Rebuild("t1", lost=False)]
    assert model.open("t1", wire("t1"), [A]) == [Close(at(A, "t1"))]
    assert model.closed(at(A, "t1"), gone=False) == [NotPlaced("t1", first=False), OfferLater()]
    assert model.offers() == [Offer(("t1",))]
    assert model.offer("t1") == [Rebuild("t1", lost=False)]
    assert model.open("t1", wire("t1"), [A]) == [Close(at(A, "t1"))]
    assert model.closed(at(A, "t1"), gone=True) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", OPENED) == [Placed("t1", Placement(at(A, "t1"), 2), was_unplaced=True)]


def test_a_table_whose_server_holds_its_stale_copy_goes_elsewhere_while_that_hand_plays_out() -> None:
    model = TablePlacement([A, B])
    t1 = placed(model, "t1", B)
    assert model.lose("t1", t1.epoch) == [Abandon("t1", t1), Close(at(B, "t1")), Rebuild("t1", lost=True)]
    assert model.open("t1", wire("t1"), [B, A]) == []
    assert model.closed(at(B, "t1"), gone=False) == [Create("t1", at(A, "t1"))]
    assert model.stale == (at(B, "t1"),)  # closed again before the table may go there


def test_a_table_the_director_breaks_on_a_server_that_does_not_answer_is_closed_once_it_is_back() -> None:
    """7ce2144: the CloseTable went unanswered and the table stayed on its server for good."""
    model = TablePlacement([A, B])
    t1 = placed(model, "t1", A)
    assert model.close("t1") == [Abandon("t1", t1), Close(at(A, "t1"))]
    assert model.server_lost(A) == []  # the driver reports the server down, then answers the call
    assert model.closed(at(A, "t1"), gone=False) == []
    assert model.server_back(A) == [Close(at(A, "t1"))]
    assert model.closed(at(A, "t1"), gone=True) == []
    assert model.stale == ()


def test_a_tables_copies_on_a_server_down_at_the_end_are_closed_when_it_is_back() -> None:
    """CI's frozen-server flake: the tournament finished on A before B (frozen, its tables rebuilt
    on A) was seen up again. The driver stopped hearing of the servers at the end, so B kept its
    stale copies, their hands' players waiting there for good. The model closes them when B is
    back, the end notwithstanding; the driver hears of B until then."""
    model = TablePlacement([A, B])
    placed(model, "t1", A)
    t2 = placed(model, "t2", B)
    assert model.server_lost(B) == [Lose("t2", t2.epoch)]
    assert model.lose("t2", t2.epoch) == [Abandon("t2", t2), Rebuild("t2", lost=True)]
    t2_again = placed(model, "t2", A, (A,))
    t1 = model.where("t1")
    assert t1 is not None
    assert model.close("t1") == [Abandon("t1", t1), Close(at(A, "t1"))]  # the end: every table closed
    assert model.close("t2") == [Abandon("t2", t2_again), Close(at(A, "t2"))]
    assert model.closed(at(A, "t1"), gone=True) == [] and model.closed(at(A, "t2"), gone=True) == []
    assert model.stale == (at(B, "t2"),)
    assert model.server_back(B) == [Close(at(B, "t2"))]
    assert model.closed(at(B, "t2"), gone=False) == []  # its hand plays out: then the server removes it
    assert model.stale == (at(B, "t2"),)


def test_a_create_table_unanswered_may_have_opened_the_table_it_is_closed_there_before_it_opens_there() -> None:
    """A frozen server's CreateTable timed out, but the server, thawed, may still carry it out: an
    untracked copy stayed there, and with one server the table's rebuild met it (ALREADY_EXISTS)
    for good."""
    model = TablePlacement([A, B])
    assert model.open("t1", wire("t1"), [B, A]) == [Create("t1", at(B, "t1"))]
    assert model.server_lost(B) == []  # the driver reports B down, then answers the call
    assert model.created("t1", UNANSWERED) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", OPENED) == [Placed("t1", Placement(at(A, "t1"), 1), was_unplaced=False)]
    assert model.stale == (at(B, "t1"),)
    assert model.server_back(B) == [Close(at(B, "t1"))]
    assert model.closed(at(B, "t1"), gone=True) == []  # NOT_FOUND: it never opened
    assert model.stale == ()


def test_a_table_opened_on_a_server_lost_meanwhile_is_lost_too() -> None:
    """The server's loss came while its CreateTable was under way, before the table was placed:
    it would have stayed there, its calls failing on a server already known down."""
    model = TablePlacement([A, B])
    assert model.open("t1", wire("t1"), [B, A]) == [Create("t1", at(B, "t1"))]
    assert model.server_lost(B) == []
    t1 = Placement(at(B, "t1"), 1)
    assert model.created("t1", OPENED) == [Placed("t1", t1, was_unplaced=False), Lose("t1", 1)]
    assert model.lose("t1", 1) == [Abandon("t1", t1), Rebuild("t1", lost=True)]


def test_servers_lost_since_the_offer_began_are_skipped() -> None:
    model = TablePlacement([A, B])
    assert model.open("t1", wire("t1"), [A, B]) == [Create("t1", at(A, "t1"))]
    assert model.server_lost(B) == []
    assert model.created("t1", REFUSED) == [NotPlaced("t1", first=True), OfferLater()]


def test_an_unplaced_table_the_director_closes_is_forgotten() -> None:
    model = TablePlacement([A])
    assert model.open("t1", wire("t1"), [A]) == [Create("t1", at(A, "t1"))]
    assert model.created("t1", REFUSED) == [NotPlaced("t1", first=True), OfferLater()]
    assert model.close("t1") == []
    assert model.unplaced == () and model.offers() == [] and model.offer("t1") == []


def test_halting_closes_every_copy_now_or_when_its_server_is_back_and_offers_nothing() -> None:
    model = TablePlacement([A, B])
    t1, t2 = placed(model, "t1", A), placed(model, "t2", B)
    assert model.open("t3", wire("t3"), [A]) == [Create("t3", at(A, "t3"))]
    assert model.server_lost(B) == [Lose("t2", t2.epoch)]
    assert model.halt() == [Abandon("t1", t1), Close(at(A, "t1")), Abandon("t2", t2)]
    assert model.lose("t2", t2.epoch) == []
    t3 = Placement(at(A, "t3"), 3)
    assert model.created("t3", OPENED) == [Abandon("t3", t3), Close(at(A, "t3"))]  # opened as it halted
    assert model.closed(at(A, "t1"), gone=True) == [] and model.closed(at(A, "t3"), gone=True) == []
    assert model.server_back(B) == [Close(at(B, "t2"))]
    assert model.closed(at(B, "t2"), gone=True) == []
    assert model.stale == ()
