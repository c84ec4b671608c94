"""PHH export and import (services/engine/phh/, docs/phh.md).

The round trip is the backbone: random hands of every game and structure, with random table options,
tiny stacks and CLOCK-2 timeouts, are exported, parsed and replayed, and must give the very same
events and stacks. The other tests pin the notation (what phh-std and PokerKit expect), the
tablestorm user fields and the errors.
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tablestorm.services.engine import (
    FIVE_CARD_STUD,
    SEVEN_CARD_STUD,
    SEVEN_CARD_STUD_HILO,
    SEVEN_TO_ACE_DRAW,
    VARIANTS,
    Action,
    ActionKind,
    BlindPost,
    Hand,
    ScriptedDeck,
    SeededShuffler,
    Stakes,
    Structure,
    TableOptions,
    Variant,
    parse_cards,
    phh,
)
from tablestorm.services.engine.events import CommunityCard, TimedOut
from tablestorm.sim.random_play import play_out, play_random_hand

GAMES = [
    (code, structure)
    for code, variant in VARIANTS.items()
    for structure in sorted(variant.structures, key=lambda s: s.value)
]


def random_options(rng: random.Random, variant: Variant, structure: Structure) -> TableOptions:
    small = rng.choice((2, 3, 4, 10))
    stakes = Stakes(
        small_bet=small,
        big_bet=rng.choice((small, 2 * small, 3 * small)),
        ante=rng.choice((0, 0, 1, 2)),
        bring_in=rng.randint(1, small),
        small_blind=rng.randint(0, small // 2 + 1),
        big_blind=small + rng.choice((0, 0, 1)),
    )
    return TableOptions(
        variant,
        stakes,
        structure=structure,
        open_pair=rng.choice((None, True, False)),
        heads_up_uncapped=rng.random() < 0.5,
        cap=rng.choice((2, 3, 4, 5)),
        clock_seconds=rng.choice((10.0, 2.5, 30.0)),
        max_seats=rng.choice((0, variant.max_players)),
    )


def carried(options: TableOptions) -> tuple[object, ...]:
    """The options a PHH hand carries (stakes a structure does not use are not written)."""
    s = options.stakes
    if options.variant.is_stud:
        money: tuple[int, ...] = (s.ante, s.bring_in, s.small_bet, s.big_bet)
    elif options.structure is Structure.FIXED_LIMIT:
        money = (s.small_blind, s.big_blind, s.small_bet, s.big_bet)
    else:
        money = (s.small_blind, s.big_blind)
    return (options.variant, options.structure, options.open_pair_active, options.heads_up_uncapped,
            options.cap, options.clock_seconds, options.seats, *money)


def round_trip(hand: Hand, **kwargs: Any) -> tuple[str, phh.PhhHand, Hand]:
    text = phh.dumps(hand, **kwargs)
    parsed = phh.loads(text)
    return text, parsed, phh.replay(parsed)


def stud(
    cards: list[str],
    *,
    variant: Variant = SEVEN_CARD_STUD,
    stacks: list[int] | None = None,
    community: str | None = None,
    **options: Any,
) -> Hand:
    stakes = options.pop("stakes", Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2))
    script = {i: parse_cards(c) for i, c in enumerate(cards)}
    if community:
        script[-1] = parse_cards(community)
    deck = ScriptedDeck(variant.deck_rule(len(cards)).cards, script)
    table = TableOptions(variant, stakes, **options)
    return Hand(table, stacks or [200] * len(cards), SeededShuffler(0, "t", 0), deck=deck)


def draw(
    cards: list[str] | int, *, button: int = 0, stacks: list[int] | None = None, **kwargs: Any
) -> Hand:
    """A draw hand dealing ``cards[i]`` to player ``i``, or shuffled cards to ``cards`` players."""
    structure = kwargs.pop("structure", Structure.FIXED_LIMIT)
    stakes = kwargs.pop("stakes", Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2))
    n = cards if isinstance(cards, int) else len(cards)
    deck = None
    if not isinstance(cards, int):
        deck = ScriptedDeck(
            SEVEN_TO_ACE_DRAW.deck_rule(n).cards, {i: parse_cards(c) for i, c in enumerate(cards)}
        )
    table = TableOptions(SEVEN_TO_ACE_DRAW, stakes, structure=structure)
    return Hand(table, stacks or [100] * n, SeededShuffler(0, "t", 0), button=button, deck=deck, **kwargs)


def act(hand: Hand, *steps: tuple[int, ActionKind, int] | tuple[int, ActionKind]) -> None:
    for step in steps:
        player, kind = step[0], step[1]
        assert hand.actor == player, f"{player} is not to act ({hand.actor} is)"
        amount = step[2] if len(step) > 2 else 0  # type: ignore[misc]
        hand.apply(Action(kind, amount))


F, X, C, B, K, BET, R, D, T = (
    ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN, ActionKind.COMPLETE,
    ActionKind.BET, ActionKind.RAISE, ActionKind.DRAW, ActionKind.TIMEOUT,
)


# --------------------------------------------------------------------------- the round trip


@pytest.mark.parametrize(("game", "structure"), GAMES, ids=[f"{g}-{s.value}" for g, s in GAMES])
def test_round_trip_random_hands(game: str, structure: Structure) -> None:
    # BET-1..BET-7, STUD-1..STUD-8, DRAW-1..DRAW-5, CLOCK-2: whatever happened replays identically
    rng = random.Random(f"phh-{game}-{structure.value}")
    variant = VARIANTS[game]
    for _ in range(150):
        options = random_options(rng, variant, structure)
        players = rng.randint(2, options.seats)
        stacks = [rng.choice((1, 2, 3, 5, 8, 20, 60, 300)) for _ in range(players)]
        hand = play_random_hand(
            options, stacks, rng, button=rng.randrange(players), timeout_rate=rng.choice((0.0, 0.05, 0.3))
        )
        text, parsed, again = round_trip(hand)
        assert again.events == hand.events, text
        assert again.stacks == hand.stacks, text
        assert carried(parsed.options) == carried(options)
        assert parsed.in_phh_order(again.stacks) == tomllib.loads(text)["finishing_stacks"]


def test_round_trip_keeps_the_table_options() -> None:  # STUD-5, BET-2, BET-3, CLOCK-1
    rng = random.Random(5)
    for open_pair, uncapped, cap, clock in ((True, True, 3, 2.5), (False, False, 5, 30.0)):
        options = TableOptions(
            SEVEN_CARD_STUD, Stakes(small_bet=2, big_bet=4, ante=1, bring_in=1),
            open_pair=open_pair, heads_up_uncapped=uncapped, cap=cap, clock_seconds=clock, buy_in=500,
        )
        hand = play_random_hand(options, [50, 50, 50], rng)
        parsed = phh.loads(phh.dumps(hand))
        assert parsed.options.open_pair_active is open_pair
        assert parsed.options.heads_up_uncapped is uncapped
        assert parsed.options.cap == cap
        assert parsed.options.clock_seconds == clock
        assert parsed.options.buy_in == 500
        assert parsed.options.stakes == options.stakes


def test_absent_user_fields_mean_standard_phh() -> None:  # STUD-5, BET-2, BET-3, CLOCK-1
    hand = play_random_hand(TableOptions(SEVEN_CARD_STUD, Stakes.default(4)), [80, 80], random.Random(1))
    text = phh.dumps(hand)
    lines = [line for line in text.splitlines() if not line.startswith(("_", "time_limit"))]
    options = phh.loads("\n".join(lines)).options
    assert options.open_pair_active is False
    assert options.heads_up_uncapped is False
    assert options.cap == 4
    assert options.clock_seconds == 10.0


# --------------------------------------------------------------------------- notation


SEVEN_STUD_CARDS = [
    "Ah 8s Qc 3h 9s 4d Kd",
    "6d 7s 2c 5c 2h 9d 3c",
    "Jh 2d 9h Jc 4c Ts 5s",
]


STUD_ACTIONS = [
    "d dh p1 Ah8sQc", "d dh p2 6d7s2c", "d dh p3 Jh2d9h",  # two down cards, then the door card
    "p2 pb", "p3 cbr 4", "p1 cc", "p2 cc",  # 2c brings in (STUD-3); cbr is a street total
    "d dh p1 3h", "d dh p2 5c", "d dh p3 Jc",
    "p1 cc", "p2 cc", "p3 cc",  # Q-high board acts first (STUD-6)
    "d dh p1 9s", "d dh p2 2h", "d dh p3 4c",
    "p2 cc", "p3 cc", "p1 cc",  # a pair of deuces showing acts first
    "d dh p1 4d", "d dh p2 9d", "d dh p3 Ts",
    "p2 cc", "p3 cc", "p1 cc",
    "d dh p1 Kd", "d dh p2 3c", "d dh p3 5s",  # 7th street: down
    "p2 cc", "p3 cc", "p1 cc",
    "p2 sm 6d7s2c5c2h9d3c", "p3 sm Jh2d9hJc4cTs5s", "p1 sm",  # SHOW-2 order; beaten hand mucked
]


def checked_down() -> Hand:
    hand = stud(SEVEN_STUD_CARDS, stacks=[200, 35, 200], open_pair=False)
    act(hand, (1, B, 2), (2, K, 4), (0, C), (1, C))
    while hand.actor >= 0:
        legal = {option.kind for option in hand.legal_actions()}
        act(hand, (hand.actor, X if X in legal else C))
    return hand


def test_stud_export_notation() -> None:  # STUD-1, STUD-2, STUD-3, STUD-6, SHOW-1, SHOW-2
    hand = checked_down()
    text = phh.dumps(hand, players=["Ann", "Bob", "Cy"], hand_number=7, table="t1")
    fields = tomllib.loads(text)
    assert fields["variant"] == "F7S"
    assert "_variant_extension" not in fields
    assert fields["ante_trimming_status"] is True
    assert fields["antes"] == [1, 1, 1]
    assert (fields["bring_in"], fields["small_bet"], fields["big_bet"]) == (2, 4, 8)
    assert fields["starting_stacks"] == [200, 35, 200]
    assert fields["actions"] == STUD_ACTIONS
    assert fields["players"] == ["Ann", "Bob", "Cy"]
    assert (fields["hand"], fields["table"], fields["seats"], fields["seat_count"]) == (7, "t1", [1, 2, 3], 8)
    assert fields["finishing_stacks"] == [195, 30, 210]  # p3's jacks beat p2's deuces
    assert fields["winnings"] == [0, 0, 15]
    assert (fields["time_limit"], fields["_open_pair"], fields["_heads_up_uncapped"], fields["_cap"]) == (
        10.0, False, True, 4,
    )
    assert "# 3rd street" in text and "# 7th street" in text  # TOML comments, not PHH commentary


def test_all_in_hands_are_shown_before_the_remaining_cards() -> None:  # SHOW-2, STUD-2
    # seat 2 is all-in on 4th street and seat 1 folds: no more betting, so the two live hands are
    # shown at once (phh-std, PokerKit), and again at the end for the 7th-street down card
    hand = stud(SEVEN_STUD_CARDS, stacks=[200, 7, 200], open_pair=False)
    act(hand, (1, B, 2), (2, K, 4), (0, C), (1, C), (0, X), (1, BET, 2), (2, C), (0, F))
    assert hand.is_over
    actions = tomllib.loads(phh.dumps(hand))["actions"]
    assert actions[10:] == [
        "p1 cc", "p2 cbr 2", "p3 cc", "p1 f",
        "p2 sm 6d7s2c5c", "p3 sm Jh2d9hJc",
        "d dh p2 2h", "d dh p3 4c", "d dh p2 9d", "d dh p3 Ts", "d dh p2 3c", "d dh p3 5s",
        "p2 sm 6d7s2c5c2h9d3c", "p3 sm Jh2d9hJc4cTs5s",
    ]


def test_the_documented_example_replays() -> None:  # STUD-2, STUD-3, STUD-6, SHOW-2
    docs = (Path(__file__).resolve().parent.parent / "docs" / "phh.md").read_text()
    example = docs[docs.index("```toml\n") + 8 : docs.index("```\n", docs.index("```toml\n"))]
    parsed = phh.loads(example)
    hand = phh.replay(parsed)
    assert parsed.in_phh_order(hand.stacks) == tomllib.loads(example)["finishing_stacks"]
    again = stud(SEVEN_STUD_CARDS, stacks=[200, 7, 200], open_pair=False)
    act(again, (1, B, 2), (2, K, 4), (0, C), (1, C), (0, X), (1, BET, 2), (2, C), (0, F))
    assert hand.events == again.events
    assert phh.dumps(again, players=["Ann", "Bob", "Cy"], hand_number=1, comments=False) == phh.dumps(
        hand, players=["Ann", "Bob", "Cy"], hand_number=1, comments=False
    )


def test_variant_codes() -> None:
    assert phh.phh_code(SEVEN_CARD_STUD, Structure.FIXED_LIMIT) == "F7S"
    assert phh.phh_code(SEVEN_CARD_STUD_HILO, Structure.FIXED_LIMIT) == "F7S/8"
    assert phh.phh_code(FIVE_CARD_STUD, Structure.FIXED_LIMIT) == "F5S"
    assert phh.phh_code(SEVEN_TO_ACE_DRAW, Structure.FIXED_LIMIT) == "F7A1D"
    assert phh.phh_code(SEVEN_TO_ACE_DRAW, Structure.POT_LIMIT) == "P7A1D"
    assert phh.phh_code(SEVEN_TO_ACE_DRAW, Structure.NO_LIMIT) == "N7A1D"
    with pytest.raises(ValueError, match="no PHH code"):
        phh.phh_code(SEVEN_CARD_STUD, Structure.NO_LIMIT)
    assert {"F5S", "F7A1D", "P7A1D", "N7A1D"} == phh.EXTENSION_CODES


@pytest.mark.parametrize(("game", "structure"), GAMES, ids=[f"{g}-{s.value}" for g, s in GAMES])
def test_extension_codes_are_marked(game: str, structure: Structure) -> None:
    options = TableOptions(VARIANTS[game], Stakes.default(4), structure=structure)
    fields = tomllib.loads(phh.dumps(play_random_hand(options, [40, 40, 40], random.Random(2))))
    code = phh.phh_code(VARIANTS[game], structure)
    assert fields["variant"] == code
    assert fields.get("_variant_extension") == ("tablestorm" if code in phh.EXTENSION_CODES else None)
    if structure is Structure.FIXED_LIMIT:
        assert "min_bet" not in fields and fields["small_bet"] == 4
    else:
        assert fields["min_bet"] == 4 and "small_bet" not in fields  # BET-4: the big blind
    assert ("bring_in" in fields) == VARIANTS[game].is_stud
    assert ("blinds_or_straddles" in fields) != VARIANTS[game].is_stud


DRAW_CARDS = [
    "Ac Kc Qc Jc 9c Ad",
    "7d 8d 9d Td Jd",
    "As Ks Qs 7h 8h Kh Qh",
    "7c 8c 9h Th Jh",
]


def test_draw_player_order_and_blinds() -> None:  # DRAW-2, DRAW-3, DRAW-4
    hand2 = draw(DRAW_CARDS, button=1)  # seat 3 (player 2) small blind, seat 4 big blind
    act(hand2, (0, C), (1, C), (2, C), (3, X))
    hand2.apply(Action(D, discard=tuple(parse_cards("7h 8h"))))
    act(hand2, (3, D))
    hand2.apply(Action(D, discard=tuple(parse_cards("Ac"))))
    act(hand2, (1, D))
    while hand2.actor >= 0:
        act(hand2, (hand2.actor, X))
    fields = tomllib.loads(phh.dumps(hand2))
    assert fields["variant"] == "F7A1D" and fields["_variant_extension"] == "tablestorm"
    # p1 = left of the button (the small blind), p4 = the button (seat 2)
    assert fields["seats"] == [3, 4, 1, 2]
    assert fields["blinds_or_straddles"] == [1, 2, 0, 0]
    assert fields["antes"] == [0, 0, 0, 0]
    assert fields["actions"][:4] == ["d dh p1 AsKsQs7h8h", "d dh p2 7c8c9hThJh", "d dh p3 AcKcQcJc9c",
                                      "d dh p4 7d8d9dTdJd"]
    # all discards first, then the replacement cards (phh-std, PokerKit)
    draw_part = fields["actions"][8:14]
    assert draw_part == ["p1 sd 7h8h", "p2 sd", "p3 sd Ac", "p4 sd", "d dh p1 KhQh", "d dh p3 Ad"]
    parsed = phh.loads(phh.dumps(hand2))
    assert parsed.button == 1 and parsed.order == (2, 3, 0, 1)
    assert phh.replay(parsed).events == hand2.events


def test_heads_up_blinds_are_reversed() -> None:  # DRAW-2
    hand = draw(DRAW_CARDS[:2], button=0)  # the button posts the small blind heads-up
    act(hand, (0, F))
    fields = tomllib.loads(phh.dumps(hand))
    # p1 is the big blind (player 1), p2 the button; PHH writes heads-up forced bets reversed
    assert fields["seats"] == [2, 1]
    assert fields["blinds_or_straddles"] == [1, 2]
    assert fields["finishing_stacks"] == [101, 99]
    parsed = phh.loads(phh.dumps(hand))
    assert (parsed.options.stakes.small_blind, parsed.options.stakes.big_blind) == (1, 2)
    assert phh.replay(parsed).events == hand.events


def test_irregular_blinds_round_trip() -> None:  # DRAW-6
    posts = [
        BlindPost(1, "small_blind", 1, True),
        BlindPost(2, "big_blind", 2, True),
        BlindPost(3, "big_blind", 2, True),  # the small blind was missed: a second big blind
        BlindPost(3, "dead_small_blind", 1, False),  # a returning player posts the small one dead
    ]
    hand = draw(4, button=0, stacks=[100, 100, 1, 100], blinds=posts)  # player 2 short: all-in for 1
    play_out(hand, random.Random(4))
    text, parsed, again = round_trip(hand)
    fields = tomllib.loads(text)
    assert fields["_blind_posts"] == [
        {"player": "p1", "kind": "small_blind", "amount": 1, "live": True},
        {"player": "p2", "kind": "big_blind", "amount": 1, "live": True},
        {"player": "p3", "kind": "big_blind", "amount": 2, "live": True},
        {"player": "p3", "kind": "dead_small_blind", "amount": 1, "live": False},
    ]
    assert fields["antes"] == [0, 0, 1, 0]  # dead money, per player
    assert fields["blinds_or_straddles"] == [1, 2, 2, 0]
    assert again.events == hand.events and again.stacks == hand.stacks
    assert parsed.options.stakes.small_blind == 1 and parsed.options.stakes.big_blind == 2


def test_regular_blinds_write_no_blind_posts() -> None:  # DRAW-2
    hand = draw(4, button=3, stacks=[100, 1, 100, 100])  # a short big blind is still regular
    play_out(hand, random.Random(5))
    assert "_blind_posts" not in tomllib.loads(phh.dumps(hand))


def test_stud7_community_card() -> None:  # STUD-7
    cards = [  # eight players reach 7th street: 48 cards + 3 burns leave one card for everyone
        "2c 2d 3c 3d 4c 4d", "5c 5d 6c 6d 7c 7d", "8c 8d 9c 9d Tc Td", "Jc Jd Qc Qd Kc Kd",
        "2h 2s 3h 3s 4h 4s", "5h 5s 6h 6s 7h 7s", "8h 8s 9h 9s Th Ts", "Jh Js Qh Qs Kh Ks",
    ]
    hand = stud(cards, community="Ac", open_pair=False)
    while hand.actor >= 0:
        legal = {option.kind for option in hand.legal_actions()}
        act(hand, (hand.actor, B if B in legal else X if X in legal else C))
    assert any(type(e) is CommunityCard for e in hand.events)
    text, _, again = round_trip(hand)
    assert "d db Ac" in tomllib.loads(text)["actions"]
    assert again.events == hand.events


def test_timeouts_round_trip() -> None:  # CLOCK-2
    hand = stud(SEVEN_STUD_CARDS, open_pair=False)
    act(hand, (1, T))  # the bring-in is posted for them
    act(hand, (2, K, 4), (0, T))  # nothing put in voluntarily: folded
    act(hand, (1, C))
    act(hand, (2, X), (1, BET, 4), (2, R, 8), (1, T))  # seat 2 called and bet: all-in for what is in
    play_out(hand, random.Random(6))
    text, _, again = round_trip(hand)
    fields = tomllib.loads(text)
    outcomes = [(t["player"], t["outcome"]) for t in fields["_timeouts"]]
    assert outcomes == [("p2", "bring_in"), ("p1", "fold"), ("p2", "all_in")]
    for timeout in fields["_timeouts"]:
        entry = fields["actions"][timeout["action"]]
        expected = {"bring_in": "p2 pb", "fold": "p1 f"}.get(timeout["outcome"])
        assert entry == expected if expected else entry.startswith("# p2 timed out")
    assert again.events == hand.events
    assert [e for e in again.events if type(e) is TimedOut] == [e for e in hand.events if type(e) is TimedOut]


def test_timeout_outcome_is_checked() -> None:  # CLOCK-2
    hand = stud(SEVEN_STUD_CARDS, open_pair=False)
    act(hand, (1, B, 2), (2, T))  # nothing in voluntarily: fold
    play_out(hand, random.Random(7))
    text = phh.dumps(hand).replace('outcome = "fold"', 'outcome = "all_in"')
    with pytest.raises(phh.ReplayError, match="the timeout's outcome is fold, not all_in"):
        phh.replay(phh.loads(text))


def test_names_are_escaped() -> None:
    hand = play_random_hand(TableOptions(SEVEN_CARD_STUD, Stakes.default(4)), [9, 9], random.Random(3))
    names = ['Ann "the rock"', "back\\slash\nnew\tline \x7f"]
    fields = tomllib.loads(phh.dumps(hand, players=names))
    assert fields["players"] == names


def test_only_finished_hands_export() -> None:
    hand = stud(SEVEN_STUD_CARDS)
    with pytest.raises(ValueError, match="finished"):
        phh.dumps(hand)


def test_phhs_documents() -> None:
    rng = random.Random(8)
    tables = [TableOptions(v, Stakes.default(2)) for v in VARIANTS.values()]
    hands = [play_random_hand(options, [30, 30, 30], rng) for options in tables]
    parsed = phh.loads_all(phh.dumps_all([phh.dumps(h) for h in hands]))
    assert [p.code for p in parsed] == ["F7S", "F7S/8", "F5S", "F7A1D"]
    assert [phh.replay(p).events for p in parsed] == [h.events for h in hands]
    assert len(phh.loads_all(phh.dumps(hands[0]))) == 1


# --------------------------------------------------------------------------- foreign files


POKERKIT_STYLE = """\
variant = 'F7S'
ante_trimming_status = false
antes = [1, 1, 1]
bring_in = 2
small_bet = 4
big_bet = 8
starting_stacks = [200, 35, 200]
actions = ['d dh p1 Ah8sQc', 'd dh p2 6d7s2c', 'd dh p3 Jh2d9h', 'p2 pb', 'p3 cbr 4', 'p1 cc', 'p2 cc', \
'd dh p1 3h', 'd dh p2 5c', 'd dh p3 Jc', 'p1 cc', 'p2 cc', 'p3 cc', 'd dh p1 9s', 'd dh p2 2h', \
'd dh p3 4c', 'p2 cc', 'p3 cc', 'p1 cc', 'd dh p1 4d', 'd dh p2 9d', 'd dh p3 Ts', 'p2 cc', 'p3 cc', \
'p1 cc', 'd dh p1 Kd', 'd dh p2 3c', 'd dh p3 5s', 'p2 cc', 'p3 cc', 'p1 cc', \
'p2 sm 6d7s2c5c2h9d3c', 'p3 sm Jh2d9hJc4cTs5s', 'p1 sm']
"""
"""What PokerKit 0.7.7 writes (``HandHistory.from_game_state(...).dumps()``) for :func:`checked_down`."""


def test_reads_pokerkit_style_files() -> None:  # STUD-5, BET-3, SHOW-1
    parsed = phh.loads(POKERKIT_STYLE)
    assert parsed.options.open_pair_active is False and parsed.options.heads_up_uncapped is False
    hand = phh.replay(parsed)
    assert hand.events == checked_down().events
    assert hand.stacks == [195, 30, 210]


def test_pokerkit_loads_our_stud_exports() -> None:
    pokerkit = pytest.importorskip("pokerkit")
    rng = random.Random(9)
    for variant in (SEVEN_CARD_STUD, SEVEN_CARD_STUD_HILO):
        options = TableOptions(variant, Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2), open_pair=False)
        hand = play_random_hand(options, [100, 100, 100, 100], rng)
        history = pokerkit.HandHistory.loads(phh.dumps(hand, players=["a", "b", "c", "d"]))
        assert history.variant == phh.phh_code(variant, Structure.FIXED_LIMIT)
        assert history.user_defined_fields["_cap"] == 4
        assert list(history.starting_stacks) == [100, 100, 100, 100]


# --------------------------------------------------------------------------- errors


def _exported() -> str:
    return phh.dumps(checked_down())


STACKS = "starting_stacks = [200, 35, 200]"


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ('variant = "F7S"', 'variant = "NT"', "variant", "unsupported variant 'NT'"),
        ('variant = "F7S"', "", "variant", "missing"),
        ("bring_in = 2", 'bring_in = "two"', "bring_in", "whole number"),
        ("bring_in = 2", "", "bring_in", "missing"),
        ("bring_in = 2", "bring_in = 5", "bring_in", "between 1 and stakes.small_bet"),
        ("antes = [1, 1, 1]", "antes = [1, 1]", "antes", "expected 3 values"),
        ("antes = [1, 1, 1]", "antes = [1, 2, 1]", "antes", "same for every player"),
        (STACKS, "starting_stacks = [200, 0, 200]", "starting_stacks[1]", "at least 1"),
        (STACKS, "starting_stacks = [200, inf, 200]", "starting_stacks[1]", "inf"),
        (STACKS, "starting_stacks = [200]", "starting_stacks", "2 to 8 players"),
        ('"d dh p1 Ah8sQc"', '"d dh p1 Ah8s??"', "actions[0]", "unknown card"),
        ('"d dh p1 Ah8sQc"', '"d dh p1 Ah8sXc"', "actions[0]", "bad card 'Xc'"),
        ('"d dh p1 Ah8sQc"', '"d dh p9 Ah8sQc"', "actions[0]", "not a player"),
        ('"p2 pb"', '"p2 raise 3"', "actions[3]", "bad player action"),
        ('"p2 pb"', '"p2 sd"', "actions[3]", "stud has no draw"),
        ('"p2 pb"', '"p2 cbr x"', "actions[3]", "bad amount"),
        ("_cap = 4", "_cap = 1", "_cap", "at least 2"),
        ("_open_pair = false", '_open_pair = "no"', "_open_pair", "true or false"),
        ("_cap = 4", "_timeouts = [{action = 99, player = \"p1\"}]", "_timeouts[0].action", "no action 99"),
        ("_cap = 4", "_variant_extension = \"other\"", "_variant_extension", "unknown mark"),
        ("time_limit = 10.0", "time_limit = -1", "time_limit", "positive"),
        ("ante_trimming_status = true", "ante_trimming_status = false\nblinds_or_straddles = [1, 2, 0]",
         "blinds_or_straddles", "no blinds"),
        ("actions = [", "actions = [[", "toml", ""),
    ],
)
def test_malformed_files_name_the_field(old: str, new: str, field: str, message: str) -> None:
    text = _exported()
    assert old in text
    with pytest.raises(phh.PhhFormatError) as caught:
        phh.replay(phh.loads(text.replace(old, new, 1)))
    assert caught.value.field == field
    assert message in caught.value.reason


def test_short_stack_needs_ante_trimming() -> None:  # BET-7
    text = _exported().replace("ante_trimming_status = true", "ante_trimming_status = false")
    phh.loads(text)  # every stack covers the ante: trimming makes no difference
    short = text.replace("antes = [1, 1, 1]", "antes = [40, 40, 40]")  # p2 has 35
    with pytest.raises(phh.PhhFormatError, match="ante_trimming_status"):
        phh.loads(short)


def test_missing_and_extra_cards() -> None:
    text = _exported()
    fewer = text.replace('  "d dh p1 3h",\n', "")
    with pytest.raises(phh.PhhFormatError, match="deals p1 fewer cards"):
        phh.replay(phh.loads(fewer))
    more = text.replace('  "d dh p1 3h",\n', '  "d dh p1 3h",\n  "d dh p1 Ac",\n')
    with pytest.raises(phh.ReplayError) as caught:  # p1's cards run one street late: Kd is the eighth
        phh.replay(phh.loads(more))
    assert (caught.value.index, caught.value.text) == (26, "d dh p1 Kd")
    assert caught.value.reason == "the game deals p1 no more cards"


def test_illegal_actions_name_the_action() -> None:  # BET-1, STUD-3
    text = _exported()
    with pytest.raises(phh.ReplayError) as caught:
        phh.replay(phh.loads(text.replace('"p3 cbr 4"', '"p3 cbr 5"')))
    assert (caught.value.index, caught.value.text) == (4, "p3 cbr 5")
    assert caught.value.reason == "fixed limit: p3 may complete to 4, not 5"
    with pytest.raises(phh.ReplayError, match=r"action 3 'p2 cc': p2 must bring in or complete \(STUD-3\)"):
        phh.replay(phh.loads(text.replace('"p2 pb"', '"p2 cc"')))
    with pytest.raises(phh.ReplayError, match="it is p3's turn, not p1's"):
        phh.replay(phh.loads(text.replace('"p3 cbr 4"', '"p1 cbr 4"')))


def test_history_that_stops_early() -> None:
    text = _exported()
    cut = text[: text.index('  "p1 cc",')] + "]\n"
    with pytest.raises(phh.ReplayError, match=r"ends before the hand does \(p1 is to act\)") as caught:
        phh.replay(phh.loads(cut))
    assert caught.value.index == -1


def test_replay_until_stops_before_an_action() -> None:
    parsed = phh.loads(_exported())
    hand = phh.replay(parsed, until=4)  # before "p3 cbr 4"
    assert hand.actor == 2 and not hand.is_over
