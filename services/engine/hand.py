"""One hand of any variant as a state machine (docs/rules.md: BET, STUD, DRAW, SHOW, CLOCK).

The public surface is small: :attr:`Hand.actor` (whose turn it is), :meth:`Hand.legal_actions`
(the legal kinds with exact bounds), :meth:`Hand.apply` (validate, then change state and append
events; an illegal action raises :class:`IllegalAction` *before* anything changes), and the
append-only :attr:`Hand.events`.

The class is the inner loop of every simulation, so per-player state is kept in flat lists
indexed by player (player ``i`` is the ``i``-th dealt-in seat in seat order), the variant's
data is unpacked once in ``__init__``, and no per-action objects are built beyond the event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from tablestorm.services.engine.actions import Action, ActionKind, IllegalAction, LegalAction, TimeoutOutcome
from tablestorm.services.engine.cards import Card, card_str
from tablestorm.services.engine.deck import Deck
from tablestorm.services.engine.evaluation import BOARD_BY_KEY, BOARD_KEY, NO_LOW
from tablestorm.services.engine.events import (
    Acted,
    BetReturned,
    CapReached,
    CardsDealt,
    CommunityCard,
    Drew,
    Event,
    ForcedBet,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    Pot,
    PotAwarded,
    PotsFormed,
    Reshuffled,
    RoundStarted,
    TimedOut,
)
from tablestorm.services.engine.pots import layer_pots
from tablestorm.services.engine.shuffle import Shuffler
from tablestorm.services.engine.variants import Structure, TableOptions

# Constants are Final so that the compiled build (mypyc) inlines them instead of looking them up.
ACTIVE: Final = 0
FOLDED: Final = 1
ALL_IN: Final = 2
"""Player status. ALL_IN covers both a player with no chips behind and one capped by CLOCK-2."""

BETTING: Final = 0
DRAWING: Final = 1
OVER: Final = 2

FOLD: Final = ActionKind.FOLD
CHECK: Final = ActionKind.CHECK
CALL: Final = ActionKind.CALL
BRING_IN: Final = ActionKind.BRING_IN
COMPLETE: Final = ActionKind.COMPLETE
BET: Final = ActionKind.BET
RAISE: Final = ActionKind.RAISE
DRAW: Final = ActionKind.DRAW
TIMEOUT: Final = ActionKind.TIMEOUT


_SINGLE: Final = tuple((card,) for card in range(52))
"""One shared 1-tuple per card: most streets deal a single card, and a hand keeps every street's."""

_CHECK: Final = LegalAction(CHECK)
_FOLD: Final = LegalAction(FOLD)


def _rotations(n: int) -> tuple[tuple[int, ...], ...]:
    """``_rotations(n)[last]``: every player index after ``last``, clockwise, ending with ``last``."""
    return tuple(tuple((last + k) % n for k in range(1, n + 1)) for last in range(n))


_ROTATIONS: Final = {n: _rotations(n) for n in range(2, 11)}


class BlindPost(NamedTuple):
    """A forced bet of the draw game, decided by the table (DRAW-2, DRAW-6)."""

    player: int
    kind: str
    """``"small_blind"``, ``"big_blind"`` or ``"dead_small_blind"``."""
    amount: int
    live: bool


def default_blinds(options: TableOptions, players: int, button: int) -> list[BlindPost]:
    """The blinds of a hand with no missed blinds: left of the button, or the button heads-up."""
    stakes = options.stakes
    small = button if players == 2 else (button + 1) % players
    big = (small + 1) % players
    return [
        BlindPost(small, "small_blind", stakes.small_blind, True),
        BlindPost(big, "big_blind", stakes.big_blind, True),
    ]


class Hand:
    """One hand of any game, from the deal to the last award: the rules as a state machine.

    Whose turn it is (:attr:`actor`), what they may do (:meth:`legal_actions`), doing it
    (:meth:`apply`), and the append-only :attr:`events` every other layer reads; tables, services
    and simulations only ever drive a hand through these."""

    __slots__ = (
        "_acted", "_active", "_bets_made", "_big_blind", "_big_made", "_big_unit", "_bring_in",
        "_bring_in_pending", "_cap", "_community", "_current", "_draw_queue", "_epoch", "_first", "_fixed",
        "_full_level", "_heads_up_uncapped", "_high", "_last_aggressor", "_last_inc", "_live", "_low",
        "_open_pair", "_open_pair_option", "_order", "_pot_limit", "_rotation", "_small_unit", "_street",
        "_streets", "_stud", "_uncapped", "_unit", "_voluntary", "actor", "bets", "button", "committed", "dead",
        "deck", "deck_rule", "down", "events", "n", "options", "phase", "stacks", "starting_stacks", "status", "up",
    )

    def __init__(
        self,
        options: TableOptions,
        stacks: Sequence[int],
        shuffler: Shuffler,
        *,
        button: int = 0,
        blinds: Sequence[BlindPost] | None = None,
        deck: Deck | None = None,
    ) -> None:
        """Deal a hand to players ``0..n-1`` (seat order) holding ``stacks``, and post forced bets.

        ``button`` is the dealer's player index (draw game only); ``blinds`` overrides the
        default blinds when the table has missed or dead blinds to collect (DRAW-6); ``deck``
        replaces the shuffled deck (a replay's :class:`ScriptedDeck`).
        """
        variant = options.variant
        n = len(stacks)
        if not 2 <= n <= options.seats:
            raise ValueError(f"a hand needs 2 to {options.seats} players, got {n}")
        if any(type(s) is not int or s <= 0 for s in stacks):
            raise ValueError("every stack must be a positive whole number of chips (TABLE-1)")
        self.options = options
        self.n = n
        self._rotation = _ROTATIONS[n]
        self.deck_rule = rule = variant.deck_rule(n)
        self.deck = deck if deck is not None else Deck(rule.cards, shuffler)
        self._high = rule.high.evaluate
        self._low = variant.low.evaluate if variant.low is not None else None
        self._streets = variant.streets
        self._stud = variant.is_stud
        stakes = options.stakes
        self._fixed = options.structure is Structure.FIXED_LIMIT
        self._pot_limit = options.structure is Structure.POT_LIMIT
        self._small_unit = stakes.small_bet
        self._big_unit = stakes.big_bet
        self._big_blind = stakes.big_blind
        self._bring_in = stakes.bring_in
        self._cap = options.cap
        self._heads_up_uncapped = options.heads_up_uncapped
        self._open_pair_option = options.open_pair_active
        self._open_pair = False

        self.starting_stacks = tuple(stacks)
        self.stacks = list(stacks)
        self.bets = [0] * n
        self.committed = [0] * n
        self.dead = 0
        """Dead blinds (DRAW-6): money in the main pot that is nobody's bet or pot level."""
        self.status = [ACTIVE] * n
        self._voluntary = 0
        """Bit ``i`` set once player ``i`` put chips in by choice (CLOCK-2)."""
        # Tuples, not lists: on the first street a player's cards *are* the dealt event's tuples.
        self.down: list[tuple[Card, ...]] = [()] * n
        self.up: list[tuple[Card, ...]] = [()] * n
        self._community = -1
        self._live = n
        self._active = n
        self.actor = -1
        self.phase = BETTING
        self._street = 0
        self._first = -1
        self._last_aggressor = -1
        if self._stud:
            self.button = -1
            self._order = self._rotation[n - 1]  # stud deals and splits odd chips from seat 1 (STUD-1, SHOW-5)
        else:
            if not 0 <= button < n:
                raise ValueError(f"button must be a player index below {n}")
            self.button = button
            self._order = self._rotation[button]  # from the button's left (DRAW-3, SHOW-5)
        self.events: list[Event] = [HandStarted(self.starting_stacks, self.button, len(rule.cards))]
        if self._stud:
            if stakes.ante:
                for i in range(n):
                    self._post(i, "ante", stakes.ante, False)
        else:
            for post in blinds if blinds is not None else default_blinds(options, n, button):
                if not 0 <= post.player < n:
                    raise ValueError(f"blind poster {post.player} is not a player of this hand")
                self._post(post.player, post.kind, post.amount, post.live)
        self._start_street(0)

    # ----------------------------------------------------------------- public surface

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def street(self) -> int:
        return self._street

    @property
    def community_card(self) -> Card | None:
        return None if self._community < 0 else self._community

    def cards_of(self, player: int) -> list[Card]:
        """Every card that plays for ``player``: down, up, and the STUD-7 community card."""
        cards = [*self.down[player], *self.up[player]]
        if self._community >= 0:
            cards.append(self._community)
        return cards

    def pot_total(self) -> int:
        """Everything in the middle: every player's chips put in, and dead money."""
        total = self.dead
        for chips in self.committed:  # a loop, not sum(): machine-integer adds in the compiled build
            total += chips
        return total

    def total_chips(self) -> int:
        """Stacks plus everything in the middle: constant through a hand (BET-7)."""
        return sum(self.stacks) + self.pot_total()

    def pots(self) -> tuple[Pot, ...]:
        """The pots as they stand, at the end of a round (BET-7); dead money is in the main pot."""
        status = self.status
        if ALL_IN not in status:  # nobody stopped short: everyone live has put in the same
            return (Pot(self.pot_total(), tuple([i for i in range(self.n) if status[i] == ACTIVE])),)
        live = [s != FOLDED for s in status]
        pots = layer_pots(self.committed, live)
        if not self.dead:
            return pots
        if not pots:
            return (Pot(self.dead, tuple(i for i in range(self.n) if live[i])),)
        return (Pot(pots[0].amount + self.dead, pots[0].eligible), *pots[1:])

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """The legal kinds for :attr:`actor` with their exact bounds; empty once the hand is over."""
        i = self.actor
        if i < 0:
            return ()
        if self.phase == DRAWING:
            return (LegalAction(DRAW, 0, min(5, len(self.down[i]))),)
        if self._bring_in_pending:
            return self._bring_in_options(i)
        bet = self.bets[i]
        current = self._current
        aggression = self._aggression(i)
        if bet == current:
            return (_CHECK,) if aggression is None else (_CHECK, aggression)
        reach = bet + self.stacks[i]
        to = current if current < reach else reach
        if aggression is None:
            return (_FOLD, LegalAction(CALL, to, to))
        return (_FOLD, LegalAction(CALL, to, to), aggression)

    def apply(self, action: Action) -> None:
        """Apply ``action`` for :attr:`actor`, or raise IllegalAction leaving the hand unchanged."""
        i = self.actor
        if i < 0:
            raise IllegalAction("the hand is over: no action is expected")
        # Read the fields untyped: the compiled build would otherwise turn a float amount or a
        # card list into a TypeError at the boundary instead of the IllegalAction callers expect.
        fields: tuple[object, ...] = action
        kind = fields[0]
        if not isinstance(kind, ActionKind):
            raise IllegalAction(f"action kind must be an ActionKind, got {kind!r}")
        if self.phase == DRAWING:
            if kind is TIMEOUT:
                self._timeout(i)
            elif kind is not DRAW:
                raise IllegalAction(f"player {i} must draw (discard 0 to 5 cards), not {kind.value}")
            else:
                self._draw(i, fields[2])
        elif kind is CALL:
            bet = self.bets[i]
            current = self._current
            if bet == current or self._bring_in_pending:
                raise IllegalAction(self._cannot(i, "call"))
            reach = bet + self.stacks[i]
            self._wager(i, CALL, current if current < reach else reach)
        elif kind is CHECK:
            if self.bets[i] != self._current or self._bring_in_pending:
                raise IllegalAction(self._cannot(i, "check"))
            self._acted[i] = self._epoch
            self.events.append(Acted(i, CHECK, self.bets[i], 0, False))
            self._advance(i)
        elif kind is FOLD:
            if self.bets[i] == self._current or self._bring_in_pending:
                raise IllegalAction(self._cannot(i, "fold"))
            self._fold(i)
        elif kind is BRING_IN:
            if not self._bring_in_pending:
                raise IllegalAction(f"player {i} cannot bring in: the bring-in is only the first stud action")
            bring = min(self._bring_in, self.stacks[i])
            amount = fields[1]
            if amount != 0 and amount != bring:  # 0: the bring-in is implied, as a call's amount is
                raise IllegalAction(
                    f"player {i} brings in for {bring}, not {amount!r} (a full small bet is COMPLETE)"
                )
            self._wager(i, BRING_IN, bring, bring_in=True)
        elif kind is COMPLETE or kind is BET or kind is RAISE:  # not ``in AGGRESSIVE``: Enum hashes in Python
            amount = fields[1]
            if type(amount) is not int:
                raise IllegalAction(f"{kind.value} amount must be a whole number of chips, got {amount!r}")
            self._aggress(i, kind, amount)
        elif kind is TIMEOUT:
            self._timeout(i)
        else:
            raise IllegalAction(f"player {i} cannot {kind.value} while betting")

    # ----------------------------------------------------------------- forced bets and dealing

    def _post(self, i: int, kind: str, amount: int, live: bool) -> None:
        amount = min(amount, self.stacks[i])
        if amount <= 0:
            return
        self.stacks[i] -= amount
        if kind == "dead_small_blind":
            self.dead += amount  # DRAW-6: into the pot, not counting as a bet
        else:
            self.committed[i] += amount
        if live:
            self.bets[i] += amount
        if self.stacks[i] == 0 and self.status[i] == ACTIVE:
            self.status[i] = ALL_IN
            self._active -= 1
        self.events.append(ForcedBet(i, kind, amount, live))

    def _start_street(self, street: int) -> None:
        self._street = street
        spec = self._streets[street]
        if spec.draw:
            self._begin_draw()
            return
        receivers = [i for i in self._order if self.status[i] != FOLDED]
        n_down = spec.down
        n_up = spec.up
        count = n_down + n_up
        deck = self.deck
        burn = spec.burn
        community = False
        if len(deck) < count * len(receivers) + burn:
            burn = False
            community = self._refill(street, count * len(receivers))
        if burn:
            deck.burn()
        if not community:
            events = self.events
            batches = deck.deal(receivers, count)
            for k in range(len(receivers)):  # not zip(..., strict=True): a generic call and iterator
                i = receivers[k]
                cards = batches[k]
                down = _SINGLE[cards[0]] if n_down == 1 else tuple(cards[:n_down])
                up = _SINGLE[cards[n_down]] if n_up == 1 else tuple(cards[n_down:])
                if down:
                    self.down[i] += down
                if up:
                    self.up[i] += up
                events.append(CardsDealt(i, street, down, up))
        self._begin_betting()

    def _refill(self, street: int, needed: int) -> bool:
        """STUD-7: shuffle the burns back without a further burn; if still short, deal one community
        card to serve as everyone's last card. Returns whether the community card was dealt."""
        deck = self.deck
        if deck.burns:
            self.events.append(Reshuffled(street, deck.recycle(discards=False)))
        if len(deck) >= needed:
            return False
        self._community = deck.deal((-1,), 1)[0][0]
        self.events.append(CommunityCard(street, self._community))
        return True

    # ----------------------------------------------------------------- betting rounds

    def _begin_betting(self) -> None:
        self.phase = BETTING
        street = self._street
        spec = self._streets[street]
        n = self.n
        self._acted = [-1] * n
        self._epoch = 0
        self._last_aggressor = -1
        self._big_made = False
        self._bring_in_pending = False
        self._unit = self._big_unit if spec.big_bet else self._small_unit
        self._uncapped = self._heads_up_uncapped and self._live <= 2
        self._open_pair = (
            self._open_pair_option and spec.open_pair and self._fixed and self._any_open_pair()
        )
        status = self.status
        if street == 0 and not self._stud:
            # The big blind is the round's first bet (BET-2); short blinds do not lower what others call.
            self._current = max(max(self.bets), self._big_blind)
            self._full_level = self._big_blind
            self._bets_made = 1
            self._last_inc = self._big_blind
            first = self._after_big_blind()
        else:
            self._current = 0
            self._full_level = 0
            self._bets_made = 0
            self._last_inc = self._big_blind
            if street == 0:
                first = self._bring_in_player()
                self._bring_in_pending = first >= 0 and self._active >= 2
            elif self._stud:
                first = self._best_board()
            else:
                first = self._order[0]
        if first < 0 or (self._active < 2 and not any(
            status[i] == ACTIVE and self.bets[i] < self._current for i in range(n)
        )):
            self._first = -1
            self.events.append(RoundStarted(street, -1))
            self._end_round()
            return
        if self._bring_in_pending:
            self.actor = first
        else:
            # The seat the rules name may be folded or all-in (a folded player left of the
            # button, an all-in best board): the first to act is the next player who can.
            # Someone can (checked above), so this only sets the actor.
            self._advance(first - 1)
        self._first = self.actor  # SHOW-2: the first to act on a checked-through round shows first
        self.events.append(RoundStarted(street, self.actor))

    def _bring_in_player(self) -> int:
        """STUD-3: the lowest door card (CARD-2: rank, then suit) brings in.

        When that player is all-in on the ante, the next player clockwise who can act brings in
        instead (the room rule; the sources are silent: docs/rules.md STUD-3) — and -1 when nobody can act.
        """
        up = self.up
        lowest = 0
        for i in range(1, self.n):
            if up[i][0] < up[lowest][0]:
                lowest = i
        status = self.status
        for i in self._rotation[lowest - 1]:  # from the lowest card, clockwise
            if status[i] == ACTIVE:
                return i
        return -1

    def _best_board(self) -> int:
        """STUD-6: best up cards among live hands; ties to the lowest seat from seat 1."""
        best, best_strength = -1, -1
        for i in self._order:
            if self.status[i] != FOLDED:
                key = 0
                for card in self.up[i]:
                    key += BOARD_KEY[card]
                strength = BOARD_BY_KEY[key]
                if strength > best_strength:
                    best, best_strength = i, strength
        return best

    def _after_big_blind(self) -> int:
        """DRAW-3: the first to act pre-draw sits left of the big blind.

        The first big blind posted is the one in position; returning players' big blinds
        (DRAW-6) come after it and do not move the action.
        """
        for event in self.events:
            if type(event) is ForcedBet and event.kind == "big_blind":
                return (event.player + 1) % self.n
        return self._order[0]

    def _any_open_pair(self) -> bool:
        for i in range(self.n):
            if self.status[i] != FOLDED:
                ranks = 0
                for card in self.up[i]:
                    rank = 1 << (card >> 2)
                    if ranks & rank:
                        return True
                    ranks |= rank
        return False

    def _advance(self, last: int) -> None:
        """Give the turn to the next player who owes an action, or close the round."""
        status, bets, acted = self.status, self.bets, self._acted
        current = self._current
        may_open = self._active >= 2
        for i in self._rotation[last]:
            if status[i] == ACTIVE and (bets[i] < current or (acted[i] < 0 and may_open)):
                self.actor = i
                return
        self._end_round()

    def _end_round(self) -> None:
        self.actor = -1
        bets = self.bets
        leader, top, second = -1, -1, -1
        for i in range(self.n):
            bet = bets[i]
            if bet > top:
                leader, top, second = i, bet, top
            elif bet > second:
                second = bet
        if second < top:
            excess = top - second
            bets[leader] -= excess
            self.committed[leader] -= excess
            self.stacks[leader] += excess
            self.events.append(BetReturned(leader, excess))
        self.events.append(PotsFormed(self._street, self.pots()))
        self.bets = [0] * self.n
        if self._live == 1:
            self._award_uncontested()
        elif self._street == len(self._streets) - 1:
            self._showdown()
        else:
            self._start_street(self._street + 1)

    def _bring_in_options(self, i: int) -> tuple[LegalAction, ...]:
        reach = self.stacks[i]
        bring = min(self._bring_in, reach)
        options = [LegalAction(BRING_IN, bring, bring)]
        if self._bring_in < self._small_unit and reach > bring:
            complete = min(self._small_unit, reach)
            options.append(LegalAction(COMPLETE, complete, complete))
        return tuple(options)

    def _aggression(self, i: int) -> LegalAction | None:
        """The one bet/raise kind open to player ``i`` and its street-total bounds, if any."""
        current = self._current
        reach = self.bets[i] + self.stacks[i]
        if reach <= current or self._acted[i] >= self._epoch:
            return None  # cannot add more, or a short all-in did not reopen the betting (BET-5)
        if not self._someone_can_call(i):
            return None  # BET-6: a raise nobody can call would only come back
        if self._fixed:
            if self._bets_made >= self._cap and not self._uncapped:
                return None  # BET-2
            base = self._full_level
            low = base + self._unit
            high = base + self._big_unit if self._open_pair and not self._big_made else low
            kind = (BET if current == 0 else COMPLETE) if self._bets_made == 0 else RAISE
        else:
            if current == 0:
                kind, low = BET, self._big_blind
            else:
                kind, low = RAISE, current + self._last_inc
            if self._pot_limit:
                # BET-4: the pot after the raiser's call, plus that call.
                call = current - self.bets[i]
                high = current + self.pot_total() + call
            else:
                high = reach
        if reach < high:
            high = reach
        if reach < low:
            low = reach
        return LegalAction(kind, low, high)

    def _someone_can_call(self, i: int) -> bool:
        """Whether another player who can still act could put in more than the current bet."""
        current = self._current
        status, bets, stacks = self.status, self.bets, self.stacks
        for j in self._rotation[i]:  # noqa: SIM110 - a plain loop: any() over a generator is slower here
            if j != i and status[j] == ACTIVE and bets[j] + stacks[j] > current:
                return True
        return False

    def _aggress(self, i: int, kind: ActionKind, to: int) -> None:
        if self._bring_in_pending:
            options = self._bring_in_options(i)
            found = options[1] if kind is COMPLETE and len(options) == 2 else None
        else:
            found = self._aggression(i)
        if found is None:
            raise IllegalAction(self._cannot(i, kind.value))
        legal = found
        if kind is not legal.kind:
            raise IllegalAction(
                f"player {i} cannot {kind.value} here; the aggressive action is {legal.kind.value}"
            )
        if self._fixed:
            if to != legal.min and to != legal.max:
                sizes = str(legal.min) if legal.min == legal.max else f"{legal.min} or {legal.max}"
                raise IllegalAction(f"fixed limit: player {i} may {kind.value} to {sizes}, not {to}")
        elif not legal.min <= to <= legal.max:
            raise IllegalAction(
                f"player {i} may {kind.value} to between {legal.min} and {legal.max}, not {to}"
            )
        self._wager(i, kind, to)

    def _wager(self, i: int, kind: ActionKind, to: int, *, bring_in: bool = False) -> None:
        """Move chips so that player ``i``'s street total becomes ``to``; update the round."""
        added = to - self.bets[i]
        stacks = self.stacks
        stacks[i] -= added
        self.bets[i] = to
        self.committed[i] += added
        all_in = stacks[i] == 0
        if all_in:
            self.status[i] = ALL_IN
            self._active -= 1
        current = self._current
        capped = False
        if to > current:
            if self._is_full(to, current, bring_in):
                self._bets_made += 1
                self._full_level = to
                self._epoch += 1
                capped = self._fixed and not self._uncapped and self._bets_made == self._cap
            self._current = to
            if not bring_in:
                self._last_aggressor = i
        if kind is not BRING_IN and added:
            self._voluntary |= 1 << i
        self._bring_in_pending = False
        self._acted[i] = self._epoch
        self.events.append(Acted(i, kind, to, added, all_in))
        if capped:
            self.events.append(CapReached(self._street))  # BET-2: after the bet that reached it
        self._advance(i)

    def _is_full(self, to: int, current: int, bring_in: bool) -> bool:
        """Whether a wager to ``to`` is a full bet or raise: it reopens betting and counts to the cap."""
        if bring_in:
            return to >= self._small_unit  # a bring-in of a full small bet is the round's bet
        if self._fixed:
            increment = to - self._full_level
            unit = self._unit
            if self._open_pair and not self._big_made and increment > self._small_unit:
                # STUD-5: more than a small bet is a big one (a short all-in: at least half of it,
                # BET-5); once a big bet or raise is made, every later raise of the round is big.
                if 2 * increment >= self._big_unit:
                    self._big_made = True
                    self._unit = self._big_unit
                return True
            return 2 * increment >= unit  # BET-5: at least half a bet counts as a full one
        if current == 0:
            full = to >= self._big_blind
            if full:
                self._last_inc = to
            return full
        increment = to - current
        if increment >= self._last_inc:
            self._last_inc = increment
            return True
        return False

    def _fold(self, i: int) -> None:
        self.status[i] = FOLDED
        self._active -= 1
        self._live -= 1
        self._acted[i] = self._epoch
        if self._heads_up_uncapped and self._live <= 2 and self._bets_made < self._cap:
            self._uncapped = True  # BET-3: two live hands left before the cap was reached
        self.events.append(Acted(i, FOLD, self.bets[i], 0, False))
        if self._live == 1:
            self._end_round()
        else:
            self._advance(i)

    def _timeout(self, i: int) -> None:
        """CLOCK-2: check if free; else all-in for what was put in voluntarily; else fold."""
        if self.phase == DRAWING:
            self.events.append(TimedOut(i, TimeoutOutcome.STAND_PAT))
            self._draw(i, ())
        elif self._bring_in_pending:
            self.events.append(TimedOut(i, TimeoutOutcome.BRING_IN))  # a forced bet is posted for them
            self._wager(i, BRING_IN, min(self._bring_in, self.stacks[i]), bring_in=True)
        elif self.bets[i] == self._current:
            self.events.append(TimedOut(i, TimeoutOutcome.CHECK))
            self._acted[i] = self._epoch
            self.events.append(Acted(i, CHECK, self.bets[i], 0, False))
            self._advance(i)
        elif self._voluntary >> i & 1:
            self.events.append(TimedOut(i, TimeoutOutcome.ALL_IN))
            self.status[i] = ALL_IN  # stays in, capped at what is already in (pots layer on it)
            self._active -= 1
            self._acted[i] = self._epoch
            self._advance(i)
        else:
            self.events.append(TimedOut(i, TimeoutOutcome.FOLD))
            self._fold(i)

    def _cannot(self, i: int, what: str) -> str:
        if self._bring_in_pending:
            return f"player {i} must bring in or complete (STUD-3), not {what}"
        owed = self._current - self.bets[i]
        if owed:
            return f"player {i} cannot {what}: {owed} to call"
        return f"player {i} cannot {what}: nothing to call"

    # ----------------------------------------------------------------- the draw

    def _begin_draw(self) -> None:
        self.phase = DRAWING
        self._draw_queue = [i for i in self._order if self.status[i] != FOLDED]
        if len(self.deck):
            self.deck.burn()
        self.actor = self._draw_queue.pop(0)

    def _draw(self, i: int, cards: object) -> None:
        hand = self.down[i]
        if not isinstance(cards, tuple | list):
            raise IllegalAction(f"player {i} must discard a sequence of cards, not {cards!r}")
        discard = tuple(cards)
        # ``type(c) is int``: 28.0 == 28 would pass ``in`` and put a float into the deck.
        if (
            len(discard) > 5
            or len(set(discard)) != len(discard)
            or any(type(c) is not int or c not in hand for c in discard)
        ):
            shown = " ".join(card_str(c) if type(c) is int and 0 <= c < 52 else repr(c) for c in discard)
            raise IllegalAction(
                f"player {i} can only discard up to 5 distinct cards of their own, not [{shown}]"
            )
        need = len(discard)
        deck = self.deck
        first = min(need, len(deck))
        drawn = deck.deal((i,), first)[0] if first else []
        if len(drawn) < need:
            # DRAW-4: earlier players' discards and the burn make a new stub; never one's own discards.
            self.events.append(Reshuffled(self._street, deck.recycle(discards=True)))
            drawn += deck.deal((i,), need - len(drawn))[0]
        self.down[i] = (*[c for c in hand if c not in discard], *drawn)
        deck.discards.extend(discard)
        self.events.append(Drew(i, discard, tuple(drawn)))
        if self._draw_queue:
            self.actor = self._draw_queue.pop(0)
        else:
            self.actor = -1
            self._begin_betting()

    # ----------------------------------------------------------------- showdown and awards

    def _award_uncontested(self) -> None:
        """SHOW-3: the last live hand takes everything without showing."""
        winner = next(i for i in range(self.n) if self.status[i] != FOLDED)
        total = self.pot_total()
        self.stacks[winner] += total
        self.committed = [0] * self.n
        self.dead = 0
        self.events.append(PotAwarded(0, winner, total, "whole"))
        self._finish(showdown=False)

    def _showdown(self) -> None:
        """SHOW-1/2, STUD-8, SHOW-5: read every live hand, show in order, award each pot."""
        n = self.n
        status = self.status
        live = [s != FOLDED for s in status]
        pots = self.pots()
        high = [-1] * n
        low = [NO_LOW] * n
        low_eval = self._low
        for i in range(n):
            if live[i]:
                cards = self.cards_of(i)
                high[i] = self._high(cards)
                if low_eval is not None:
                    low[i] = low_eval(cards)
        self._reveal(pots, high, low)
        order = self._order
        for index, pot in enumerate(pots):
            contenders = [i for i in order if i in pot.eligible]
            best = max([high[i] for i in contenders])  # lists, not generators: compiled inline
            high_winners = [i for i in contenders if high[i] == best]
            best_low = max([low[i] for i in contenders])
            if best_low > NO_LOW:
                low_winners = [i for i in contenders if low[i] == best_low]
                high_share = pot.amount - pot.amount // 2  # STUD-8: the odd chip goes high
                self._split(index, high_share, high_winners, "high")
                self._split(index, pot.amount - high_share, low_winners, "low")
            else:
                self._split(index, pot.amount, high_winners, "whole")
        self.committed = [0] * n
        self.dead = 0
        self._finish(showdown=True)

    def _split(self, pot: int, amount: int, winners: list[int], share: str) -> None:
        """Divide ``amount`` among ``winners`` (in odd-chip order): odd chips one each (SHOW-5)."""
        each, odd = divmod(amount, len(winners))
        for k, i in enumerate(winners):
            won = each + (1 if k < odd else 0)
            self.stacks[i] += won
            self.events.append(PotAwarded(pot, i, won, share))

    def _reveal(self, pots: tuple[Pot, ...], high: list[int], low: list[int]) -> None:
        """SHOW-2: show from the last aggressor (or the round's first actor); muck hands beaten."""
        live = [i for i in self._order if self.status[i] != FOLDED]
        start = self._last_aggressor if self._last_aggressor >= 0 else self._first
        if start in live:
            k = live.index(start)
            live = live[k:] + live[:k]
        best_high = [-1] * len(pots)
        best_low = [NO_LOW] * len(pots)
        for i in live:
            mine = [p for p, pot in enumerate(pots) if i in pot.eligible]
            shows = any([
                high[i] >= best_high[p] or (low[i] > NO_LOW and low[i] >= best_low[p]) for p in mine
            ])
            if shows:
                for p in mine:
                    best_high[p] = max(best_high[p], high[i])
                    best_low[p] = max(best_low[p], low[i])
                self.events.append(HandShown(i, tuple(self.cards_of(i)), high[i], low[i]))
            else:
                self.events.append(HandMucked(i))

    def _finish(self, *, showdown: bool) -> None:
        self.phase = OVER
        self.actor = -1
        self.events.append(HandEnded(tuple(self.stacks), showdown))
