"""Export: a finished engine :class:`Hand` as PHH text (docs/phh.md).

The hand's events are the record: the cards each player received, every action, the forced bets
and the showdown. PHH orders players its own way (stud in seat order, draw from the button's left),
writes the draw's discards before the replacement cards and shows stud hands as soon as no more
betting is possible, so the export re-sequences the events as phh-std and PokerKit expect.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from tablestorm.services.engine.actions import AGGRESSIVE, ActionKind, TimeoutOutcome
from tablestorm.services.engine.cards import Card, card_str, cards_str
from tablestorm.services.engine.events import (
    Acted,
    CardsDealt,
    CommunityCard,
    Drew,
    ForcedBet,
    HandMucked,
    HandShown,
    PotAwarded,
    Reshuffled,
    RoundStarted,
    TimedOut,
)
from tablestorm.services.engine.hand import Hand, default_blinds
from tablestorm.services.engine.phh.codes import EXTENSION_CODES, EXTENSION_MARK, phh_code
from tablestorm.services.engine.phh.toml_writer import toml_string, toml_value
from tablestorm.services.engine.variants import Structure, Variant


def _phh_order(hand: Hand) -> list[int]:
    """Engine player index of each PHH player: seat order in stud, from the button's left in draw."""
    n = hand.n
    if hand.button < 0:
        return list(range(n))
    return [(hand.button + 1 + k) % n for k in range(n)]


def _forced_bets(hand: Hand) -> list[ForcedBet]:
    return [e for e in hand.events if isinstance(e, ForcedBet)]


def _regular_blinds(hand: Hand) -> bool:
    """Whether the hand's blinds are :func:`default_blinds` (as clipped by short stacks)."""
    expected = []
    for post in default_blinds(hand.options, hand.n, hand.button):
        amount = min(post.amount, hand.starting_stacks[post.player])
        if amount > 0:
            expected.append((post.player, post.kind, amount, post.live))
    actual = [(e.player, e.kind, e.amount, e.live) for e in _forced_bets(hand) if e.kind != "ante"]
    return expected == actual


def dumps(
    hand: Hand,
    *,
    players: Sequence[str] | None = None,
    seats: Sequence[int] | None = None,
    hand_number: int | str | None = None,
    table: int | str | None = None,
    comments: bool = True,
) -> str:
    """The PHH text of a finished hand.

    ``players`` and ``seats`` are given in the engine's player order (seat order); ``seats``
    defaults to ``1..n`` and must increase. ``comments`` adds TOML comments naming the streets.
    """
    if not hand.is_over:
        raise ValueError("only a finished hand can be exported to PHH")
    options = hand.options
    variant = options.variant
    stakes = options.stakes
    n = hand.n
    code = phh_code(variant, options.structure)
    order = _phh_order(hand)
    phh_of = {engine: k for k, engine in enumerate(order)}

    def label(player: int) -> str:
        return f"p{phh_of[player] + 1}"

    if seats is None:
        seats = list(range(1, n + 1))
    if len(seats) != n or any(b <= a for a, b in itertools.pairwise(seats)) or seats[0] < 1:
        raise ValueError("seats must be n increasing seat numbers from 1, in player order")
    if players is not None and len(players) != n:
        raise ValueError("players must name every player")

    head: list[tuple[str, object]] = [("variant", code)]
    if code in EXTENSION_CODES:
        head.append(("_variant_extension", EXTENSION_MARK))
    head.append(("ante_trimming_status", True))  # BET-7: a short ante contests only what it matched
    if variant.is_stud:
        head += [
            ("antes", [stakes.ante] * n),
            ("bring_in", stakes.bring_in),
            ("small_bet", stakes.small_bet),
            ("big_bet", stakes.big_bet),
        ]
    else:
        live = [0] * n
        dead = [0] * n
        for bet in _forced_bets(hand):
            nominal = stakes.big_blind if bet.kind == "big_blind" else stakes.small_blind
            if bet.live:
                live[phh_of[bet.player]] = max(live[phh_of[bet.player]], nominal)
            else:
                dead[phh_of[bet.player]] += nominal
        if n == 2:  # PHH lists heads-up forced bets reversed
            live.reverse()
            dead.reverse()
        head += [("antes", dead), ("blinds_or_straddles", live)]
        if options.structure is Structure.FIXED_LIMIT:
            head += [("small_bet", stakes.small_bet), ("big_bet", stakes.big_bet)]
        else:
            head.append(("min_bet", stakes.big_blind))
    head.append(("starting_stacks", [hand.starting_stacks[p] for p in order]))

    actions, comment_at, timeouts = _actions(hand, label)

    tail: list[tuple[str, object]] = []
    if hand_number is not None:
        tail.append(("hand", hand_number))
    if table is not None:
        tail.append(("table", table))
    tail.append(("seats", [seats[p] for p in order]))
    tail.append(("seat_count", options.seats))
    if players is not None:
        tail.append(("players", [players[p] for p in order]))
    tail.append(("finishing_stacks", [hand.stacks[p] for p in order]))
    won = [0] * n
    for event in hand.events:
        if isinstance(event, PotAwarded):
            won[phh_of[event.player]] += event.amount
    tail.append(("winnings", won))
    tail.append(("time_limit", options.clock_seconds))
    if variant.is_stud:
        tail.append(("_open_pair", options.open_pair_active))
    tail.append(("_heads_up_uncapped", options.heads_up_uncapped))
    tail.append(("_cap", options.cap))
    if options.buy_in:
        tail.append(("_buy_in", options.buy_in))
    if not variant.is_stud and not _regular_blinds(hand):
        tail.append((
            "_blind_posts",
            [
                {"player": label(e.player), "kind": e.kind, "amount": e.amount, "live": e.live}
                for e in _forced_bets(hand)
                if e.kind != "ante"
            ],
        ))
    if timeouts:
        tail.append(("_timeouts", timeouts))

    lines = [f"# tablestorm: {variant.name}, {options.structure.value.replace('_', ' ')}"]
    lines += [f"{key} = {toml_value(value)}" for key, value in head]
    lines.append("actions = [")
    for k, text in enumerate(actions):
        if comments and k in comment_at:
            lines.append(f"  # {comment_at[k]}")
        lines.append(f"  {toml_string(text)},")
    lines.append("]")
    lines += [f"{key} = {toml_value(value)}" for key, value in tail]
    return "\n".join(lines) + "\n"


def _actions(
    hand: Hand, label: Callable[[int], str]
) -> tuple[list[str], dict[int, str], list[dict[str, object]]]:
    """The PHH action strings, the street comment before some of them, and the CLOCK-2 timeouts."""
    variant = hand.options.variant
    stud = variant.is_stud
    names = variant.street_names
    events = hand.events
    actions: list[str] = []
    comment_at: dict[int, str] = {}
    timeouts: list[dict[str, object]] = []

    # Showdown order (SHOW-2) and when it happens. PHH (and PokerKit) show hands as soon as no more
    # betting is possible in stud, before the remaining cards; a down card dealt after that needs a
    # second showing.
    reveal = [e for e in events if isinstance(e, HandShown | HandMucked)]
    show_street = -1
    if stud and reveal:
        closed = [e.street for e in events if isinstance(e, RoundStarted) and e.first < 0]
        if closed:
            show_street = max(closed[0], 1)
    dealt: dict[int, list[Card]] = {i: [] for i in range(hand.n)}
    shown: dict[int, int] = {}
    down_since: dict[int, bool] = {}
    live = set(range(hand.n))
    pending_deals: list[str] = []
    pending_timeout: TimedOut | None = None
    street = -1

    def flush_deals() -> None:
        actions.extend(pending_deals)
        pending_deals.clear()

    def new_street(s: int) -> None:
        nonlocal street
        if s != street:
            street = s
            if s < len(names):
                comment_at.setdefault(len(actions), names[s])

    def mark_timeout(player: int, outcome: TimeoutOutcome) -> None:
        timeouts.append({"action": len(actions), "player": label(player), "outcome": outcome.value})

    def show_all_live() -> None:
        comment_at.setdefault(len(actions), "showdown (no more betting)")
        for shown_event in reveal:
            p = shown_event.player
            if p in live:
                actions.append(f"{label(p)} sm {cards_str(dealt[p], '')}")
                shown[p] = len(dealt[p])
                down_since[p] = False

    for event in events:
        if not isinstance(event, Drew | TimedOut | Reshuffled):
            flush_deals()
        if isinstance(event, CardsDealt | CommunityCard):
            if event.street == show_street:
                show_all_live()
                show_street = -1
            new_street(event.street)
            if isinstance(event, CardsDealt):
                cards = event.down + event.up
                dealt[event.player] += cards
                if event.down and event.player in shown:
                    down_since[event.player] = True
                actions.append(f"d dh {label(event.player)} {cards_str(cards, '')}")
            else:
                actions.append(f"d db {card_str(event.card)}")
        elif isinstance(event, TimedOut):
            if event.outcome is TimeoutOutcome.ALL_IN:
                mark_timeout(event.player, event.outcome)
                actions.append(f"# {label(event.player)} timed out: all-in for what is already in (CLOCK-2)")
            else:
                pending_timeout = event
        elif isinstance(event, Drew):
            if pending_timeout is not None:
                mark_timeout(pending_timeout.player, pending_timeout.outcome)
                pending_timeout = None
            who = label(event.player)
            new_street(_draw_street(variant))
            actions.append(f"{who} sd {cards_str(event.discarded, '')}".rstrip())
            dealt[event.player] = [c for c in dealt[event.player] if c not in event.discarded]
            if event.drawn:
                dealt[event.player] += event.drawn
                pending_deals.append(f"d dh {who} {cards_str(event.drawn, '')}")
        elif isinstance(event, Acted):
            if pending_timeout is not None:
                mark_timeout(pending_timeout.player, pending_timeout.outcome)
                pending_timeout = None
            who = label(event.player)
            act = event.kind
            if act is ActionKind.FOLD:
                live.discard(event.player)
                actions.append(f"{who} f")
            elif act is ActionKind.CHECK or act is ActionKind.CALL:
                actions.append(f"{who} cc")
            elif act is ActionKind.BRING_IN:
                actions.append(f"{who} pb")
            elif act in AGGRESSIVE:
                actions.append(f"{who} cbr {event.to}")
            else:  # pragma: no cover - the engine records no other kind
                raise AssertionError(f"unexpected action {act}")
    flush_deals()

    final = [e for e in reveal if e.player not in shown or down_since.get(e.player, False)]
    if final:
        comment_at.setdefault(len(actions), "showdown")
    for e in final:
        if isinstance(e, HandShown):
            actions.append(f"{label(e.player)} sm {cards_str(dealt[e.player], '')}")
        else:
            actions.append(f"{label(e.player)} sm")
    return actions, comment_at, timeouts


def _draw_street(variant: Variant) -> int:
    return next(k for k, s in enumerate(variant.streets) if s.draw)


def dumps_all(hands: Sequence[str]) -> str:
    """Several PHH texts as one ``.phhs`` document: tables ``[1]``, ``[2]``..."""
    return "\n".join(f"[{k}]\n{text}" for k, text in enumerate(hands, 1))
