"""Replay refuses a deal the deck could not have made (services/engine/deck.py ``ScriptedDeck``).

Each history is written out here; a test changes one line of it and names the action the replay
must refuse, with the reason, as ``tablestorm replay`` prints them. The stub, the burns and the
reshuffles follow STUD-7 and DRAW-4; the short deck follows CARD-5.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.phh_histories import HEADS_UP_STUD

from tablestorm.services.engine import ScriptedDeck, parse_cards, phh

EIGHT_PLAYERS = """\
variant = "F7S"
antes = [0, 0, 0, 0, 0, 0, 0, 0]
bring_in = 1
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100, 100, 100, 100, 100, 100]
"""

EIGHT_STUD = EIGHT_PLAYERS + """\
actions = [
  "d dh p1 2c2d3c", "d dh p2 5c5d6c", "d dh p3 8c8d9c", "d dh p4 JcJdQc",
  "d dh p5 2h2s3h", "d dh p6 5h5s6h", "d dh p7 8h8s9h", "d dh p8 JhJsQh",
  "p1 pb", "p2 cc", "p3 cc", "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p8 cc",
  "d dh p1 3d", "d dh p2 6d", "d dh p3 9d", "d dh p4 Qd", "d dh p5 3s", "d dh p6 6s", "d dh p7 9s", "d dh p8 Qs",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p8 cc", "p1 cc", "p2 cc", "p3 cc",
  "d dh p1 4c", "d dh p2 7c", "d dh p3 Tc", "d dh p4 Kc", "d dh p5 4h", "d dh p6 7h", "d dh p7 Th", "d dh p8 Kh",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p8 cc", "p1 cc", "p2 cc", "p3 cc",
  "d dh p1 4d", "d dh p2 7d", "d dh p3 Td", "d dh p4 Kd", "d dh p5 4s", "d dh p6 7s", "d dh p7 Ts", "d dh p8 Ks",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p8 cc", "p1 cc", "p2 cc", "p3 cc",
  "d db Ac",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p8 cc", "p1 cc", "p2 cc", "p3 cc",
  "p4 sm JcJdQcQdKcKd", "p8 sm JhJsQhQsKhKs", "p1 sm", "p2 sm", "p3 sm", "p5 sm", "p6 sm", "p7 sm",
]
"""
"""Eight players reach 7th street: 48 cards dealt and 3 burned leave one; with the burns, four."""

SEVEN_LIVE_STUD = EIGHT_PLAYERS + """\
actions = [
  "d dh p1 2c2d3c", "d dh p2 5c5d6c", "d dh p3 8c8d9c", "d dh p4 JcJdQc",
  "d dh p5 2h2s3h", "d dh p6 5s6h6s", "d dh p7 9h9sTh", "d dh p8 QsKhKs",
  "p1 pb", "p2 cc", "p3 cc", "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p8 f",
  "d dh p1 3d", "d dh p2 6d", "d dh p3 9d", "d dh p4 Qd", "d dh p5 3s", "d dh p6 7h", "d dh p7 Ts",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p1 cc", "p2 cc", "p3 cc",
  "d dh p1 4c", "d dh p2 7c", "d dh p3 Tc", "d dh p4 Kc", "d dh p5 4h", "d dh p6 7s", "d dh p7 Jh",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p1 cc", "p2 cc", "p3 cc",
  "d dh p1 4d", "d dh p2 7d", "d dh p3 Td", "d dh p4 Kd", "d dh p5 4s", "d dh p6 8h", "d dh p7 Js",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p1 cc", "p2 cc", "p3 cc",
  "d dh p1 Ac", "d dh p2 Ad", "d dh p3 Ah", "d dh p4 As", "d dh p5 5h", "d dh p6 8s", "d dh p7 Qh",
  "p4 cc", "p5 cc", "p6 cc", "p7 cc", "p1 cc", "p2 cc", "p3 cc",
  "p4 sm JcJdQcQdKcKdAs", "p5 sm", "p6 sm", "p7 sm", "p1 sm", "p2 sm", "p3 sm",
]
"""
"""p8 folds on 3rd street: at 7th, 4 stub cards and the 3 burns are the seven last cards (STUD-7)."""

FIVE_DRAW = """\
variant = "F7A1D"
antes = [0, 0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0, 0]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100, 100, 100, 100]
actions = [
  "d dh p1 6c6d6h6s7c", "d dh p2 7d7h7s8c8d", "d dh p3 8h8s9c9d9h", "d dh p4 9sTcTdThTs", "d dh p5 JcJdJhJsQc",
  "p3 cc", "p4 cc", "p5 cc", "p1 cc", "p2 cc",
  "p1 sd 6c6d6h6s7c", "p2 sd 7d7h7s8c8d", "p3 sd 8h8s9c9d9h", "p4 sd 9sTcTdThTs", "p5 sd JcJdJhJsQc",
  "d dh p1 QdQhQsKcKd",
  "d dh p2 KhKsAcAdAh",
  "d dh p3 As6c6d6h6s",
  "d dh p4 7c7d7h7s8c",
  "d dh p5 8d8h8s9c9d",
  "p1 cc", "p2 cc", "p3 cc", "p4 cc", "p5 cc",
  "p1 sm", "p2 sm", "p3 sm", "p4 sm", "p5 sm",
]
"""
"""Five players, 36 cards (CARD-5), everyone draws five (DRAW-4). 25 dealt, one burned: p1 and p2
take the other ten. The stub is empty for p3: the burn (As, the one card nobody was dealt) and the
discards of p1 and p2 are shuffled in; p3 and p4 take ten of those eleven. p5 takes the last one,
8d, then the discards of p3 and p4 are shuffled in for p5's other four."""

HEADS_UP_DRAW = """\
variant = "F7A1D"
antes = [0, 0]
blinds_or_straddles = [1, 2]
small_bet = 2
big_bet = 4
starting_stacks = [100, 100]
actions = [
  "d dh p1 7c8c9cTcJc", "d dh p2 7d8d9dTdQh", "p2 cc", "p1 cc",
  "p1 sd", "p2 sd", "p1 cc", "p2 cc", "p1 sm 7c8c9cTcJc", "p2 sm 7d8d9dTdQh",
]
"""


@pytest.mark.parametrize(
    ("text", "stacks"),
    [
        (HEADS_UP_STUD, [101, 99]),
        (EIGHT_STUD, [99, 99, 99, 103, 99, 99, 99, 103]),
        (SEVEN_LIVE_STUD, [99, 99, 99, 106, 99, 99, 99, 100]),
        (FIVE_DRAW, [98, 98, 98, 108, 98]),
        (HEADS_UP_DRAW, [102, 98]),
    ],
    ids=["heads-up-stud", "eight-stud", "seven-live-stud", "five-draw", "heads-up-draw"],
)
def test_the_histories_replay_as_written(text: str, stacks: list[int]) -> None:  # STUD-7, DRAW-4, CARD-5
    parsed = phh.loads(text)
    assert parsed.in_phh_order(phh.replay(parsed).stacks) == stacks


SEVENTHS = ", ".join(f'"d dh p{k} {card}"' for k, card in enumerate(("Ac", "Ad", "Ah", "As"), 1))
DISCARD_WAITS = "the discards are shuffled in only when it runs out (DRAW-4)"
OWN_CARD = "no card comes back to its player, not even a discard (DRAW-4)"


@pytest.mark.parametrize(
    ("text", "old", "new", "index", "reason"),
    [
        pytest.param(
            HEADS_UP_STUD, '"d dh p2 2c3d4s"', '"d dh p2 2cAh4s"', 1,
            "Ah was already dealt to p1: no card is dealt twice", id="dealt-to-another-player",
        ),
        pytest.param(
            HEADS_UP_STUD, '"d dh p1 Jh"', '"d dh p1 Ah"', 4, f"p1 already had Ah: {OWN_CARD}",
            id="dealt-to-its-player-again",
        ),
        pytest.param(  # STUD-7: folded players' cards are never reused
            SEVEN_LIVE_STUD, '"d dh p1 Ac"', '"d dh p1 Kh"', 58, "Kh was already dealt to p8: no card is dealt twice",
            id="a-folded-players-card",
        ),
        pytest.param(
            HEADS_UP_STUD, '"d dh p1 7h"', '"d dh p1 7h", "d dh p1 6h"', 17, "the game deals p1 no more cards",
            id="a-card-the-game-never-deals",
        ),
        pytest.param(  # CARD-5: heads-up the deck is 7 to A; FIVE_DRAW deals the sixes of the 36-card deck
            HEADS_UP_DRAW, '"d dh p1 7c8c9cTcJc"', '"d dh p1 6c8c9cTcJc"', 0,
            "6c is not in this hand's 32-card deck (CARD-5)", id="a-six-below-five-players",
        ),
        pytest.param(  # DRAW-4: p1's discard for p2, who draws from the five cards the stub still holds
            FIVE_DRAW, '"d dh p2 KhKsAcAdAh"', '"d dh p2 6cKsAcAdAh"', 16,
            f"6c is a discard, and the stub still holds 5 cards: {DISCARD_WAITS}", id="a-discard-while-the-stub-lasts",
        ),
        pytest.param(  # DRAW-4: p5 draws five from one stub card: that one first, then the reshuffled discards
            FIVE_DRAW, '"d dh p5 8d8h8s9c9d"', '"d dh p5 8h8d8s9c9d"', 19,
            f"8h is a discard, and the stub still holds 1 card: {DISCARD_WAITS}", id="the-last-stub-card-first",
        ),
        pytest.param(  # DRAW-4: the stub ran out for p3; the reshuffle holds the burn and p1's and p2's discards
            FIVE_DRAW, '"d dh p3 As6c6d6h6s"', '"d dh p3 As6c6d6h8h"', 17, f"p3 already had 8h: {OWN_CARD}",
            id="a-players-own-discard",
        ),
        pytest.param(  # DRAW-4: p4 discards after p3 draws, so p4's 9s is not in the reshuffle serving p3
            FIVE_DRAW, '"d dh p3 As6c6d6h6s"', '"d dh p3 As6c6d6h9s"', 17,
            "9s was already dealt to p4: no card is dealt twice", id="a-discard-not-yet-made",
        ),
        pytest.param(  # STUD-7: heads-up at 7th street the stub serves both players
            HEADS_UP_STUD, '"d dh p1 7h", "d dh p2 9c"', '"d db 7h"', 16,
            "the stub holds 36 cards, enough for a card to each of the 2 players: a community card is dealt only"
            " when it is not (STUD-7)", id="a-community-card-while-the-stub-serves-everyone",
        ),
        pytest.param(  # STUD-7: one stub card and the three burns cannot give eight players a card each
            EIGHT_STUD, '"d db Ac"', SEVENTHS, 64,
            "only 4 cards left, not one for each player: STUD-7 turns one community card instead",
            id="a-card-each-when-four-are-left",
        ),
        pytest.param(  # STUD-7
            EIGHT_STUD, '"d db Ac"', '"d db Kh"', 64, "Kh was already dealt to p8: no card is dealt twice",
            id="a-players-card-as-the-community-card",
        ),
    ],
)
def test_an_impossible_deal_is_an_illegal_action(text: str, old: str, new: str, index: int, reason: str) -> None:
    assert text.count(old) == 1, old
    with pytest.raises(phh.ReplayError) as caught:
        phh.replay(phh.loads(text.replace(old, new)))
    assert (caught.value.index, caught.value.reason) == (index, reason)
    assert caught.value.text in new


def test_the_burn_is_whichever_card_nobody_was_dealt() -> None:  # DRAW-4
    """A history does not record burns: p2 may have been dealt As and Ah burned instead. What
    comes back in the reshuffle for p3 is then Ah, and As is p2's."""
    swapped = FIVE_DRAW.replace('"d dh p2 KhKsAcAdAh"', '"d dh p2 KhKsAcAdAs"')
    swapped = swapped.replace('"d dh p3 As6c6d6h6s"', '"d dh p3 Ah6c6d6h6s"')
    parsed = phh.loads(swapped)
    assert parsed.in_phh_order(phh.replay(parsed).stacks) == [98, 98, 98, 108, 98]
    with pytest.raises(phh.ReplayError, match="Ah was already dealt to p2"):  # not both
        phh.replay(phh.loads(FIVE_DRAW.replace('"d dh p3 As6c6d6h6s"', '"d dh p3 Ah6c6d6h6s"')))


# --------------------------------------------------------------------------- the deck itself


def test_a_burned_card_the_history_deals_was_another_stub_card() -> None:  # STUD-7
    """Burns are not written and nobody saw them: while the stub lasts, a card the deck happened to
    burn may be the one the history deals, and the burn was another stub card."""
    a, k, q, j = parse_cards("As Ks Qs Js")
    deck = ScriptedDeck([a, k, q, j], {0: [a, j, k], 1: [q]})
    assert deck.deal((0, 1), 1) == [[a], [q]]
    deck.burn()  # Ks and Js are both still to be dealt: the deck burns one of them
    assert deck.deal((0,), 1) == [[j]]
    assert (deck.stub, deck.burns) == ([], [k])
    assert deck.recycle(discards=False) == 1  # STUD-7: the stub ran out, the burn comes back
    assert deck.deal((0,), 1) == [[k]]
    assert deck.undealt() == []


def test_tablestorm_replay_exits_2_naming_the_deal(tmp_path: Path) -> None:  # DRAW-4
    path = tmp_path / "own-discard.phh"
    path.write_text(FIVE_DRAW.replace('"d dh p3 As6c6d6h6s"', '"d dh p3 As6c6d6h8h"'), encoding="utf-8")
    result = subprocess.run(
        [Path(sys.executable).parent / "tablestorm", "replay", str(path)], capture_output=True, text=True, timeout=120
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"tablestorm replay: {path}: illegal action 17 'd dh p3 As6c6d6h8h': "
        "p3 already had 8h: no card comes back to its player, not even a discard (DRAW-4)\n"
    )
