"""The regular: a player whose tournaments last, thin out and end as real ones do.

A load test's bots exist to hit every rule; a forecast's players must play like the field it
forecasts, or the durations, the tables per minute and the plan built on them are artefacts (a
bot that calls every pair stacks off in the first hand of a deep no-limit sit-and-go). The
regular plays by the published shape of tournament play (docs/calibration.md):

* hands are judged by their percentile among random holdings of the game
  (:mod:`.percentiles`), so one range means the same in every game;
* the first player in opens a share of hands that narrows with the players still to beat, each
  raise narrows the range that continues (3-bets, 4-bets), and a price is paid only with the
  equity it needs against the range that set it, plus a premium for the share of the stack at
  risk: deep stacks rarely go all in;
* in pot and no limit, below :data:`PUSH_FOLD_BB` big blinds the first round is push or fold by
  the heads-up Nash charts, narrowed for the players behind;
* later rounds bet the better part of their hands for value, bluff now and then heads-up, and
  call by the same equity rule.

Pure and deterministic for a given ``random.Random``, like every strategy.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final

from tablestorm.services.engine.evaluation import BOARD, HIGH_CARD, NO_HAND, Ranking, category_of
from tablestorm.services.engine.variants import VARIANTS
from tablestorm.sim.bots.percentiles import percentile
from tablestorm.sim.bots.strategies import Action, Legal, View, draw_discards

__all__ = ["BIG_BET", "FIXED_LIMIT", "PUSH_FOLD_BB", "Recreational", "Regular", "RegularStyle"]

PUSH_FOLD_BB: Final = 12.0
"""Stacks up to this many big blinds play the first round push or fold (S7, S8, D11)."""
_SHOVE_BB: Final = (2.0, 3.0, 5.0, 8.0, 10.0, 15.0, 20.0)
_SHOVE_SHARE: Final = (0.897, 0.777, 0.715, 0.619, 0.584, 0.457, 0.402)
"""Heads-up small blind's Nash shoving share by effective stack in big blinds (S7 as corrected in
docs/calibration.md: hold'em, applied by percentile)."""
_CALL_BB: Final = (2.0, 3.0, 5.0, 8.0, 10.0, 15.0, 20.0, 40.0)
_CALL_SHARE: Final = (1.0, 0.921, 0.616, 0.444, 0.366, 0.276, 0.209, 0.10)
"""Heads-up big blind's Nash calling share given a shove, by the stack in big blinds (S7 as
corrected; 40 extends the curve)."""


@dataclass(frozen=True, slots=True)
class RegularStyle:
    """The regular's knobs: shares of hands and equity margins (docs/calibration.md gives each
    its source and the band it was fitted to)."""

    open_share: float = 0.5
    """Share of hands the last player to act before the big blind opens with (heads-up)."""
    limp_factor: float = 2.0
    """Facing only the forced bets, this many times the opening share calls instead (stud's
    bring-in, the small blind's completion, and any seat's call of the big blind if ``limps``)."""
    limps: bool = False
    """Whether any seat calls the big blind first in (a passive player's open limp)."""
    spread: float = 0.7
    """A share for ``k`` opponents is the heads-up share to the power ``k ** spread``."""
    reraise_shares: tuple[float, ...] = (0.055, 0.022, 0.009)
    """Share of hands that raise again after 1, 2 and 3 bets (3-bet 4-8 %, S10); none after 4."""
    bet_share: float = 0.4
    """Share of hands that bet a later round first, heads-up."""
    bluff: float = 0.08
    """Chance of betting a later round with any hand, heads-up, when checked to."""
    premium: float = 0.30
    """Extra equity a call needs per share of the stack it puts at risk (pot and no limit)."""
    open_bb: float = 2.5
    """No-limit open to this many big blinds when deep (2.5 at 80+ BB, 2 at 30 and less, S9)."""
    suspicion: float = 1.0
    """How much wider than it is a caller takes the bettor's range to be (> 1: calls lighter, as
    players who suspect a bluff do; what makes second-best hands pay off and stacks spread)."""


BIG_BET: Final = RegularStyle(suspicion=2.0)
"""Pot and no limit: tight first-in ranges, 3-bets of 4-8 %."""
FIXED_LIMIT: Final = RegularStyle(open_share=0.6, bet_share=0.55, reraise_shares=(0.12, 0.05, 0.02),
                                  suspicion=2.0)
"""Fixed limit: the price of a bet is small beside the pot, so more hands open, bet and raise
(the fitted average stack of the last 20-35 % of a stud field: 12-16 big bets, T7)."""
PASSIVE_BIG_BET: Final = RegularStyle(open_share=0.3, limp_factor=5.0, limps=True,
                                      reraise_shares=(0.03, 0.012, 0.006), bet_share=0.3, bluff=0.04,
                                      premium=0.15, suspicion=4.0)
"""A recreational player in pot and no limit: limps and calls wide, raises seldom (VPIP 35-45 %)."""
PASSIVE_FIXED_LIMIT: Final = RegularStyle(open_share=0.4, limp_factor=5.0, limps=True,
                                          reraise_shares=(0.05, 0.02, 0.01), bet_share=0.35, bluff=0.04,
                                          suspicion=4.0)
"""A recreational player in fixed limit."""


def _interpolate(x: float, xs: tuple[float, ...], ys: tuple[float, ...]) -> float:
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    i = bisect_left(xs, x)
    share = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
    return ys[i - 1] + share * (ys[i] - ys[i - 1])


def _narrow(share: float, opponents: int, spread: float) -> float:
    """A heads-up share, for ``opponents`` players who may each hold better."""
    return float(share ** (max(1, opponents) ** spread))


@dataclass(frozen=True, slots=True)
class Regular:
    """Plays like a competent online regular (see the module's note): its knobs, a style per
    betting structure."""

    fixed_limit: RegularStyle = FIXED_LIMIT
    big_bet: RegularStyle = BIG_BET
    name = "regular"
    needs_board = True
    stream_drops = None

    def _style(self, view: View) -> RegularStyle:
        return self.fixed_limit if view.fixed_limit else self.big_bet

    def decide(self, view: View, rng: random.Random) -> Action | None:
        draw = view.option("draw")
        if draw is not None:
            return Action("draw", discard=draw_discards(view, draw))
        p = _discounted(view, percentile(view))
        first_round = view.street == 0
        if not view.fixed_limit and view.big_blind > 0 and first_round:
            depth = (view.stack + view.bet) / view.big_blind
            if depth <= PUSH_FOLD_BB:
                return self._push_or_fold(view, p, depth)
        if view.raises == 0:
            return self._first_in(view, p, first_round, rng)
        return self._facing(view, p, first_round)

    # ----------------------------------------------------------------- rounds nobody raised

    def _first_in(self, view: View, p: float, first_round: bool, rng: random.Random) -> Action:
        style = self._style(view)
        k = view.opponents
        share = style.open_share if first_round else style.bet_share
        option = view.aggression()
        value = p >= 1.0 - _narrow(share, k, style.spread)
        if option is not None and (value or (not first_round and k == 1 and rng.random() < style.bluff)):
            return Action(option.kind, self._size(view, option, first_round))
        if view.option("check") is not None:
            return Action("check")
        bring_in = view.option("bring_in")
        if bring_in is not None:
            return Action("bring_in", bring_in.min)
        # Only the forced bets to call: a stud hand calls the bring-in, the small blind completes
        # (a passive player limps from any seat), with a range wider than the one that raises.
        limp = view.variant.is_stud or view.to_call <= view.big_blind // 2 or style.limps
        limp_share = min(1.0, style.limp_factor * _narrow(share, k, style.spread))
        if limp and first_round and view.option("call") is not None and p >= 1.0 - limp_share:
            return Action("call")
        return _fold(view)

    # ----------------------------------------------------------------- facing a bet

    def _facing(self, view: View, p: float, first_round: bool) -> Action:
        style = self._style(view)
        k = view.opponents
        raises = max(1, view.raises)
        option = view.aggression()
        # No raise beyond the usual cap of four bets, even heads-up where the rules lift it (BET-2).
        again = style.reraise_shares[raises - 1] if raises <= len(style.reraise_shares) else 0.0
        if option is not None and p >= 1.0 - _narrow(again, k, style.spread):
            return Action(option.kind, self._size(view, option, first_round))
        # The range that bet: the opening (or first-bet) range, narrowed by each raise after it.
        opened = _narrow(style.open_share if first_round else style.bet_share, k, style.spread)
        ranges = (opened, *style.reraise_shares)
        behind = min(1.0, style.suspicion * ranges[min(raises, len(ranges)) - 1])
        if view.option("call") is not None and _equity(view, p, behind) >= self._price(view):
            return Action("call")
        if view.option("check") is not None:
            return Action("check")
        return _fold(view)

    def _price(self, view: View) -> float:
        """The equity a call needs: the pot odds, plus (pot and no limit) the premium for the
        share of the stack the call puts at risk."""
        call = view.to_call
        odds = call / (view.pot + call) if call else 0.0
        if view.fixed_limit or view.stack <= 0:
            return odds
        at_risk = min(1.0, call / (view.stack + 1e-9))
        return odds + self._style(view).premium * at_risk

    # ----------------------------------------------------------------- short stacks

    def _push_or_fold(self, view: View, p: float, depth: float) -> Action:
        spread = self._style(view).spread
        option = view.aggression()
        if view.raises == 0:
            share = _narrow(_interpolate(depth, _SHOVE_BB, _SHOVE_SHARE), view.opponents, spread)
            if option is not None and p >= 1.0 - share:
                return Action(option.kind, option.max)
            if view.option("check") is not None:
                return Action("check")
            return _fold(view)
        facing_bb = (view.to_call + view.bet) / view.big_blind  # the shove, as the chart counts it
        share = _narrow(_interpolate(facing_bb, _CALL_BB, _CALL_SHARE), view.opponents, spread)
        if p >= 1.0 - share:
            if option is not None and view.to_call < view.stack // 2:
                return Action(option.kind, option.max)  # a raise short of all in: re-shove
            if view.option("call") is not None:
                return Action("call")
        if view.option("check") is not None:
            return Action("check")
        return _fold(view)

    # ----------------------------------------------------------------- sizes

    def _size(self, view: View, option: Legal, first_round: bool) -> int:
        """Fixed limit: the bet. Pot and no limit: an open of 2-2.5 big blinds, a raise to three
        times the bet faced, a later-round bet of two thirds of the pot; all in once that would
        commit 40 % of the stack or more."""
        if view.fixed_limit or option.min == option.max:
            return option.max
        facing = view.bet + view.to_call
        if first_round and view.raises == 0:
            depth = (view.stack + view.bet) / max(1, view.big_blind)
            target = int(view.big_blind * (self._style(view).open_bb if depth >= 40 else 2.0 if depth <= 30 else 2.25))
        elif view.raises > 0 or view.to_call > 0:
            target = 3 * facing
        else:
            target = view.bet + (2 * view.pot) // 3
        if target - view.bet >= 0.4 * (view.stack + view.bet):
            return option.max
        return max(option.min, min(option.max, target))


@dataclass(frozen=True)
class Recreational(Regular):
    """The same reasoning with a recreational player's habits: loose and passive."""

    fixed_limit: RegularStyle = PASSIVE_FIXED_LIMIT
    big_bet: RegularStyle = PASSIVE_BIG_BET
    name = "recreational"


def _equity(view: View, p: float, behind: float) -> float:
    """Equity against a bettor holding the best ``behind`` share of hands, and against the other
    players still in: ahead of that range by where ``p`` falls in it, with the share of pots a
    hand behind still wins while cards are to come."""
    ahead = min(1.0, max(0.0, (p - (1.0 - behind)) / behind))
    outdraw = _outdraw(view)
    equity = ahead * (1.0 - outdraw) + (1.0 - ahead) * outdraw * p
    return float(equity * p ** (0.5 * max(0, view.opponents - 1)))


def _outdraw(view: View) -> float:
    """The share of pots a hand that is behind still wins: by the cards still to come."""
    if not view.variant.is_stud:
        return 0.25 if view.street == 0 else 0.03
    own = len(view.down) + len(view.up) + len(view.community)
    total, later = _stud_cards(view.game)
    return 0.03 + 0.29 * (total - own) / later


@cache
def _stud_cards(game: str) -> tuple[int, int]:
    """A stud game's cards a player is dealt in all, and after the first street (at least 1)."""
    streets = VARIANTS[game].streets
    total = sum(street.down + street.up for street in streets)
    return total, max(1, total - streets[0].down - streets[0].up)


def _discounted(view: View, p: float) -> float:
    """Less when an opponent's up cards alone already beat the seat's own made category (stud)."""
    shown = NO_HAND
    for board in view.others_up:  # a loop, not max() over a generator: this runs at every decision
        if 0 < len(board) <= 4:
            category = _board_category(board)
            if category > shown:
                shown = category
    own = (*view.down, *view.up, *view.community)
    # Any card held makes a high card, so mostly nothing shown (no pair) can beat it: no need to rate own.
    if shown > (HIGH_CARD if own else NO_HAND) and shown > _category(tuple(sorted(own)), view.high_ranking):
        return p * 0.7
    return p


@lru_cache(maxsize=1 << 14)
def _category(own: tuple[int, ...], ranking: Ranking) -> int:
    if len(own) >= 5:
        return category_of(ranking.evaluate(own[:7]), ranking)
    return category_of(BOARD.evaluate(own), BOARD)


@lru_cache(maxsize=1 << 14)
def _board_category(board: tuple[int, ...]) -> int:
    return category_of(BOARD.evaluate(board), BOARD)


def _fold(view: View) -> Action:
    if view.option("fold") is not None:
        return Action("fold")
    first = view.legal[0]
    return Action(first.kind, first.min)
