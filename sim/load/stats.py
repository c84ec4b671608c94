"""Measurements of a load run: latency histograms and the counters a fleet ships to the driver.

Everything here is plain data with exact, order-independent merges, so a run measured by a thousand
bots in a hundred fleets on twenty hosts adds up to exactly the numbers one process would have
counted: fleets record into a :class:`RunStats`, ship ``to_dict()`` (JSON-safe), and the driver
merges what they ship. No samples are stored anywhere; memory depends on the run's length and the
spread of its latencies, never on its number of actions.

Latency buckets (:class:`LatencyHistogram`) are HDR-style: each power of two from 2**-20 s (0.95 µs)
to 2**6 s (64 s) is cut into 32 equal sub-buckets, 26 x 32 = 832 buckets in all. A bucket is
reported by its midpoint, which is within 1/64 (1.5625 %) of every value in it. Values below
0.95 µs or at or above 64 s are counted in the first or last bucket; the exact minimum and maximum
are kept beside the buckets, and percentiles are clamped to them.

Every second and every game keeps an action's latency in one of three histograms
(:class:`Timings`): ``latency``, the actions the server applied (their number is the actions'
count); ``unapplied``, the actions it did not (refused as too late, or lost with a stream), timed to
the moment their fate became known; and ``omitted``, the samples a bot blocked on an action did not
get to take (coordinated omission), filled in as HdrHistogram's ``recordValueWithExpectedInterval``
does. The first two are what was measured ("uncorrected"), all three the corrected latency; the
why and the expected interval are in docs/scenarios.md (Latency under a stall). Beside them, the
two latencies the other seats feel, from the server's timestamp on an action's event:
``next_prompt`` (to the next seat's YourTurn) and ``broadcast`` (to each other seat's receipt).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final

__all__ = [
    "BUCKETS",
    "LAYOUT",
    "LOWEST_S",
    "PROTOCOL_VIOLATION",
    "RELATIVE_ERROR",
    "SUB_BUCKETS",
    "TIMEOUT_OUTCOMES",
    "TOP_S",
    "UNKNOWN_GAME",
    "GameStats",
    "LatencyHistogram",
    "RunStats",
    "SecondStats",
    "Timings",
    "bucket_bounds",
    "bucket_index",
    "bucket_value",
]

_SUB_BITS: Final = 5
SUB_BUCKETS: Final = 1 << _SUB_BITS
"""Sub-buckets per power of two; sets the precision (see :data:`RELATIVE_ERROR`)."""
_LOW_EXP: Final = -20
_HIGH_EXP: Final = 6
LOWEST_S: Final = math.ldexp(1.0, _LOW_EXP)
"""Lower edge of the first bucket: 2**-20 s, about 0.95 µs."""
TOP_S: Final = math.ldexp(1.0, _HIGH_EXP)
"""Upper edge of the last bucket: 64 s."""
BUCKETS: Final = (_HIGH_EXP - _LOW_EXP) * SUB_BUCKETS
RELATIVE_ERROR: Final = 1.0 / (2 * SUB_BUCKETS)
"""Largest relative distance between a value in [LOWEST_S, TOP_S) and its bucket's midpoint."""
LAYOUT: Final = f"log2/{SUB_BUCKETS}:{_LOW_EXP}..{_HIGH_EXP}"
"""Names the bucket layout in ``to_dict`` so histograms of different layouts never merge."""

# frexp(v) = (m, e) with v = m * 2**e, 0.5 <= m < 1; the octave [2**(e-1), 2**e) holds v, and
# int(m * 2 * SUB_BUCKETS) - SUB_BUCKETS is its linear sub-bucket, so its bucket index is
# (e - _LOW_EXP - 1) * SUB_BUCKETS + int(m * 2 * SUB_BUCKETS) - SUB_BUCKETS. Folding the constants:
_INDEX_OFFSET: Final = -(_LOW_EXP + 2) * SUB_BUCKETS
_TWICE_SUB: Final = 2 * SUB_BUCKETS
_frexp = math.frexp
_SLACK: Final = 8
"""Spare buckets added on each side when a histogram's span grows (a quarter of an octave)."""

PROTOCOL_VIOLATION: Final = "protocol_violation"
"""The error kind for a server reply that breaks the rules or the API; counted with the other errors."""

TIMEOUT_OUTCOMES: Final = ("check", "all_in", "fold", "bring_in", "stand_pat")
"""What the action clock (CLOCK-2, docs/rules.md) did for a player who let it run out."""


def bucket_index(seconds: float) -> int:
    """The bucket that counts ``seconds``; out-of-range values go to the first or last bucket.

    Raises ValueError for negative, NaN or infinite values: a latency is a duration on a monotonic
    clock, so any of those is a bug in the caller that must not vanish into an edge bucket.
    """
    if LOWEST_S <= seconds < TOP_S:
        m, e = _frexp(seconds)
        return e * SUB_BUCKETS + int(m * _TWICE_SUB) + _INDEX_OFFSET
    if 0.0 <= seconds < LOWEST_S:
        return 0
    if TOP_S <= seconds < math.inf:
        return BUCKETS - 1
    raise ValueError(f"latency must be a finite number of seconds >= 0, got {seconds!r}")


def bucket_bounds(index: int) -> tuple[float, float]:
    """The half-open range [lower, upper) of seconds that bucket ``index`` counts (exact floats)."""
    octave, sub = divmod(index, SUB_BUCKETS)
    scale = octave + _LOW_EXP - _SUB_BITS
    return math.ldexp(SUB_BUCKETS + sub, scale), math.ldexp(SUB_BUCKETS + sub + 1, scale)


def bucket_value(index: int) -> float:
    """The value reported for bucket ``index``: its midpoint, within RELATIVE_ERROR of its members."""
    octave, sub = divmod(index, SUB_BUCKETS)
    return math.ldexp(2 * (SUB_BUCKETS + sub) + 1, octave + _LOW_EXP - _SUB_BITS - 1)


def _rank(q: float, count: int) -> int:
    """1-based nearest rank of the q-th percentile among ``count`` samples: ceil(q/100 * count).

    Rounded to 9 places first so that e.g. q=29, count=100 gives 29 and not 30 from 28.999...97.
    """
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within [0, 100], got {q!r}")
    return max(1, math.ceil(round(q * count / 100.0, 9)))


class LatencyHistogram:
    """Counts of latencies in fixed logarithmic buckets (see the module docstring for the layout).

    The counts are an ``array('Q')`` spanning only the bucket indexes in use, from ``_offset`` on:
    a histogram of one second of a run usually touches a couple of hundred of the 832 buckets, and
    :class:`RunStats` keeps one histogram per second of the run, so the span rather than the whole
    layout is what memory pays for (8 bytes a bucket). The sum is kept in integer nanoseconds so
    that merging is exact and associative, like the counts.
    """

    __slots__ = ("_counts", "_offset", "count", "max", "min", "sum_ns")

    def __init__(self) -> None:
        self._counts = array("Q")
        self._offset = 0
        self.count = 0
        """Number of recorded latencies."""
        self.sum_ns = 0
        """Sum of the recorded latencies, each rounded to the nanosecond."""
        self.min: float | None = None
        """Exact smallest recorded latency in seconds, None while empty."""
        self.max: float | None = None
        """Exact largest recorded latency in seconds, None while empty."""

    def _cover(self, first: int, stop: int) -> None:
        """Widen the span to hold bucket indexes first <= i < stop, with slack to grow less often."""
        old_first, old_stop = self._offset, self._offset + len(self._counts)
        if not self._counts:
            old_first, old_stop = first, stop
        if first >= old_first and stop <= old_stop and self._counts:
            return
        new_first = max(0, min(first, old_first) - _SLACK)
        new_stop = min(BUCKETS, max(stop, old_stop) + _SLACK)
        counts = array("Q", bytes(8 * (new_stop - new_first)))
        start = self._offset - new_first
        counts[start : start + len(self._counts)] = self._counts
        self._counts, self._offset = counts, new_first

    def record(self, seconds: float) -> None:
        """Count one latency of ``seconds`` (see :func:`bucket_index` for what is rejected)."""
        index = bucket_index(seconds)
        position = index - self._offset
        if not 0 <= position < len(self._counts):
            self._cover(index, index + 1)
            position = index - self._offset
        self._counts[position] += 1
        self.count += 1
        self.sum_ns += round(seconds * 1e9)
        if self.min is None or self.max is None:
            self.min = self.max = seconds
        elif seconds < self.min:
            self.min = seconds
        elif seconds > self.max:
            self.max = seconds

    def record_omitted(self, seconds: float, expected_interval_s: float) -> None:
        """Count the samples a latency of ``seconds`` kept from being taken, one action expected every
        ``expected_interval_s``: ``seconds - k * interval`` for k = 1, 2, ... while at least the
        interval (HdrHistogram's ``recordValueWithExpectedInterval`` less its own sample; their
        number is counted on the ratio rounded to 9 places, so that float noise never drops one).
        Nothing for an interval of 0 or less: without an expected pace, no sample is known missing."""
        if expected_interval_s <= 0.0:
            return
        for k in range(1, math.floor(round(seconds / expected_interval_s, 9))):
            self.record(seconds - k * expected_interval_s)

    def merge(self, other: LatencyHistogram) -> None:
        """Add ``other``'s counts to this one; the result equals having recorded both sets of samples."""
        if other.count:
            self._cover(other._offset, other._offset + len(other._counts))
            counts, shift = self._counts, other._offset - self._offset
            for position, n in enumerate(other._counts):
                if n:
                    counts[position + shift] += n
        self.count += other.count
        self.sum_ns += other.sum_ns
        if other.min is not None and (self.min is None or other.min < self.min):
            self.min = other.min
        if other.max is not None and (self.max is None or other.max > self.max):
            self.max = other.max

    def _nonzero(self) -> Iterator[tuple[int, int]]:
        """(bucket index, count) of each non-empty bucket in increasing order."""
        offset = self._offset
        return ((offset + position, n) for position, n in enumerate(self._counts) if n)

    @property
    def mean(self) -> float | None:
        """Mean latency in seconds (to the nanosecond), None while empty."""
        return self.sum_ns / self.count / 1e9 if self.count else None

    def percentile(self, q: float) -> float | None:
        """The q-th percentile (0 <= q <= 100) in seconds, None while empty.

        The exact value is the nearest-rank percentile of the samples: the ceil(q/100 * count)-th
        smallest (q/100 * count rounded to 9 places first, so that float noise never moves a rank).
        The result is the midpoint of the bucket that holds that sample, clamped to [min, max], hence
        within RELATIVE_ERROR (1/64) of it for samples in [LOWEST_S, TOP_S); the ranks of the
        smallest and the largest sample return ``min`` and ``max`` exactly.
        """
        rank = _rank(q, self.count)
        if self.min is None or self.max is None:
            return None
        if rank == 1:
            return self.min
        if rank == self.count:
            return self.max
        seen = 0
        for index, n in self._nonzero():
            seen += n
            if seen >= rank:
                return min(max(bucket_value(index), self.min), self.max)
        raise AssertionError("bucket counts do not add up to count")  # pragma: no cover

    def buckets(self) -> Iterator[tuple[float, float, int]]:
        """(lower_s, upper_s, count) of each non-empty bucket in increasing order, for charts."""
        for index, n in self._nonzero():
            lower, upper = bucket_bounds(index)
            yield lower, upper, n

    def cumulative_buckets(self, bounds: Iterable[float]) -> list[tuple[float, int]]:
        """Prometheus-style ``le`` buckets: (bound, number of latencies <= bound) for each bound in
        increasing order, then (inf, count).

        A histogram bucket counts as below a bound when its reported value (midpoint) is, so the
        counts agree with :meth:`percentile` and are off only for latencies within RELATIVE_ERROR
        of a bound.
        """
        nonzero = list(self._nonzero())
        result: list[tuple[float, int]] = []
        seen = 0
        position = 0
        for bound in sorted(bounds):
            while position < len(nonzero) and bucket_value(nonzero[position][0]) <= bound:
                seen += nonzero[position][1]
                position += 1
            result.append((bound, seen))
        result.append((math.inf, self.count))
        return result

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form naming only the non-empty buckets, as [index, count] pairs."""
        return {
            "layout": LAYOUT,
            "count": self.count,
            "sum_ns": self.sum_ns,
            "min": self.min,
            "max": self.max,
            "buckets": [[index, n] for index, n in self._nonzero()],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LatencyHistogram:
        """Inverse of :meth:`to_dict`; raises ValueError for another layout or inconsistent counts."""
        if data.get("layout") != LAYOUT:
            raise ValueError(f"histogram layout {data.get('layout')!r} is not {LAYOUT!r}")
        pairs = [tuple(pair) for pair in data["buckets"]]
        hist = cls()
        for index, n in pairs:
            if not (isinstance(index, int) and 0 <= index < BUCKETS and isinstance(n, int) and n > 0):
                raise ValueError(f"bad histogram bucket {[index, n]!r}")
        if pairs:
            hist._cover(min(index for index, _ in pairs), max(index for index, _ in pairs) + 1)
            for index, n in pairs:
                hist._counts[index - hist._offset] += n
        hist.count = int(data["count"])
        hist.sum_ns = int(data["sum_ns"])
        hist.min = None if data["min"] is None else float(data["min"])
        hist.max = None if data["max"] is None else float(data["max"])
        if sum(n for _, n in pairs) != hist.count or (hist.count > 0) != (hist.min is not None):
            raise ValueError("histogram buckets do not add up to its count")
        return hist

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LatencyHistogram):
            return NotImplemented
        return (self.count, self.sum_ns, self.min, self.max) == (
            other.count, other.sum_ns, other.min, other.max,
        ) and list(self._nonzero()) == list(other._nonzero())

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"LatencyHistogram(count={self.count}, min={self.min}, max={self.max})"


def _add_counts(into: dict[str, int], other: Mapping[str, int]) -> None:
    for key, n in other.items():
        into[key] = into.get(key, 0) + n


def _merged(*parts: LatencyHistogram) -> LatencyHistogram:
    merged = LatencyHistogram()
    for part in parts:
        merged.merge(part)
    return merged


_EXTRA_TIMINGS: Final = ("unapplied", "omitted", "next_prompt", "broadcast")
"""The histograms of :class:`Timings` besides ``latency``, shipped only when not empty."""


class Timings:
    """The latencies a second or a game keeps (see the module docstring): an action's in three
    histograms, ``latency`` (applied actions), ``unapplied`` and ``omitted``; and what the other
    seats feel of it, ``next_prompt`` and ``broadcast``."""

    __slots__ = ("broadcast", "latency", "next_prompt", "omitted", "unapplied")

    def __init__(self) -> None:
        self.latency = LatencyHistogram()
        """Every applied action, from its intended send time to its result (one per action)."""
        self.unapplied = LatencyHistogram()
        """Every action sent and not applied (too late, or lost with its stream), to its fate."""
        self.omitted = LatencyHistogram()
        """The samples a bot blocked on an action missed (coordinated omission's correction)."""
        self.next_prompt = LatencyHistogram()
        """From an action applied (its event's server time) to the next seat's YourTurn arriving."""
        self.broadcast = LatencyHistogram()
        """From an action applied (its event's server time) to another seat receiving it, per seat."""

    def measured(self) -> LatencyHistogram:
        """Every action timed, applied or not: the uncorrected latency (a new histogram)."""
        return _merged(self.latency, self.unapplied)

    def corrected(self) -> LatencyHistogram:
        """The measured latency with the omitted samples filled in (a new histogram): what a
        player would have seen had the bots kept their pace, and what thresholds check."""
        return _merged(self.latency, self.unapplied, self.omitted)

    def _merge_timings(self, other: Timings) -> None:
        self.latency.merge(other.latency)
        for name in _EXTRA_TIMINGS:
            getattr(self, name).merge(getattr(other, name))

    def _timings_dict(self) -> dict[str, Any]:
        """``latency`` always, the others when not empty."""
        data: dict[str, Any] = {"latency": self.latency.to_dict()}
        for name in _EXTRA_TIMINGS:
            hist = getattr(self, name)
            if hist.count:
                data[name] = hist.to_dict()
        return data

    def _timings_from(self, data: Mapping[str, Any]) -> None:
        self.latency = LatencyHistogram.from_dict(data["latency"])
        for name in _EXTRA_TIMINGS:
            if name in data:
                setattr(self, name, LatencyHistogram.from_dict(data[name]))

    def _same_timings(self, other: Timings) -> bool:
        return all(getattr(self, name) == getattr(other, name) for name in ("latency", *_EXTRA_TIMINGS))


class SecondStats(Timings):
    """What happened in one second of the run: finished hands, errors by kind, action latencies.

    The number of actions is ``latency.count``: every applied action has exactly one latency. ``errors``
    counts every error; ``chaos_errors`` those of them the run's chaos caused (see
    :mod:`tablestorm.sim.bots.client.attribution`), so the unexpected ones are the difference.
    """

    __slots__ = ("chaos_errors", "errors", "hands")

    def __init__(self) -> None:
        super().__init__()
        self.hands = 0
        self.errors: dict[str, int] = {}
        self.chaos_errors: dict[str, int] = {}

    @property
    def actions(self) -> int:
        """Actions answered in this second."""
        return self.latency.count

    @property
    def errors_total(self) -> int:
        """Errors of all kinds in this second."""
        return sum(self.errors.values())

    @property
    def unexpected_errors(self) -> dict[str, int]:
        """The errors of this second that the run's chaos did not cause, by kind."""
        chaos = self.chaos_errors
        return {kind: n - chaos.get(kind, 0) for kind, n in self.errors.items() if n > chaos.get(kind, 0)}

    def merge(self, other: SecondStats) -> None:
        """Add ``other`` (the same second seen by another fleet, or a later part of it)."""
        self.hands += other.hands
        _add_counts(self.errors, other.errors)
        _add_counts(self.chaos_errors, other.chaos_errors)
        self._merge_timings(other)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; zero counters are left out."""
        data = self._timings_dict()
        if self.hands:
            data["hands"] = self.hands
        if self.errors:
            data["errors"] = dict(self.errors)
        if self.chaos_errors:
            data["chaos_errors"] = dict(self.chaos_errors)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SecondStats:
        """Inverse of :meth:`to_dict`; raises ValueError when chaos errors are not among the errors."""
        second = cls()
        second.hands = int(data.get("hands", 0))
        second.errors = {str(k): int(v) for k, v in data.get("errors", {}).items()}
        second.chaos_errors = {str(k): int(v) for k, v in data.get("chaos_errors", {}).items()}
        if any(n > second.errors.get(kind, 0) for kind, n in second.chaos_errors.items()):
            raise ValueError("chaos errors must be among the errors of their second")
        second._timings_from(data)
        return second

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SecondStats):
            return NotImplemented
        mine = (self.hands, self.errors, self.chaos_errors)
        return mine == (other.hands, other.errors, other.chaos_errors) and self._same_timings(other)

    __hash__ = None  # type: ignore[assignment]  # mutable


class GameStats(Timings):
    """One game's part of a run: hands finished and voided, actions with their round trips, CLOCK-2
    timeouts by outcome, side pots and raise caps.

    The bots know their table's game, so each of these is counted in exactly one game, and this is
    the only place :class:`RunStats` keeps them: summed over the games they are the run's totals,
    which therefore cannot disagree with the per-game breakdown. Merges are exact, as everywhere here.
    """

    __slots__ = ("hands", "hands_voided", "raise_caps", "side_pots", "timeouts_by_outcome")

    def __init__(self) -> None:
        super().__init__()
        self.hands = 0
        """Hands played to the end."""
        self.hands_voided = 0
        """Hands voided with a refund instead of finishing (a lost host, a drain)."""
        self.side_pots = 0
        """Side pots formed (BET-7)."""
        self.raise_caps = 0
        """Betting rounds that reached the raise cap (BET-2)."""
        self.timeouts_by_outcome: dict[str, int] = dict.fromkeys(TIMEOUT_OUTCOMES, 0)

    @property
    def actions(self) -> int:
        """Actions answered."""
        return self.latency.count

    @property
    def timeouts(self) -> int:
        """Action-clock timeouts, all outcomes."""
        return sum(self.timeouts_by_outcome.values())

    def merge(self, other: GameStats) -> None:
        """Add ``other`` (the same game seen by another fleet, or later)."""
        self.hands += other.hands
        self.hands_voided += other.hands_voided
        self._merge_timings(other)
        self.side_pots += other.side_pots
        self.raise_caps += other.raise_caps
        _add_counts(self.timeouts_by_outcome, other.timeouts_by_outcome)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; zero counters are left out."""
        data = self._timings_dict()
        counters = {
            "hands": self.hands,
            "hands_voided": self.hands_voided,
            "side_pots": self.side_pots,
            "raise_caps": self.raise_caps,
        }
        data.update((name, n) for name, n in counters.items() if n)
        timeouts = {outcome: n for outcome, n in self.timeouts_by_outcome.items() if n}
        if timeouts:
            data["timeouts_by_outcome"] = timeouts
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameStats:
        """Inverse of :meth:`to_dict`; raises ValueError on malformed input."""
        game = cls()
        game._timings_from(data)
        game.hands = int(data.get("hands", 0))
        game.hands_voided = int(data.get("hands_voided", 0))
        game.side_pots = int(data.get("side_pots", 0))
        game.raise_caps = int(data.get("raise_caps", 0))
        for outcome, n in data.get("timeouts_by_outcome", {}).items():
            if outcome not in game.timeouts_by_outcome:
                raise ValueError(f"unknown timeout outcome {outcome!r}")
            game.timeouts_by_outcome[outcome] = int(n)
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameStats):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable


UNKNOWN_GAME: Final = ""
"""The game of a count whose caller does not say which (a test of other counters): a load run's
bots always know their table's game, so a run's breakdown never shows it."""

_RUN_FIELDS: Final = ("series", "games", "actions_by_bot", "actions_by_kind")
"""The fields of RunStats that hold counts (all but the cache of the current second)."""


class RunStats:
    """Counters of a load run, or of the part of it one fleet or host saw.

    Times (``now``) are seconds since the run started on a clock all fleets share (the driver sends
    the start; e.g. ``time.time() - start``); they key a per-second series, which is the only record
    of hands, actions, errors and latency over time: the run totals are sums over it, so the totals
    and history.csv cannot disagree. Each hand, action, timeout and voided hand is also counted in
    its table's game (:class:`GameStats`, in ``games``), which alone holds the counters without a
    time (timeouts, side pots, raise caps, voided hands): their totals are sums over the games.
    Actions by bot and by action kind are totals only.

    A fleet calls :meth:`action` for every action in its hot loop; it costs two bucket computations
    (the second's histogram and the game's) and a handful of dict and attribute updates: 1.6 to 1.8
    times the counting without the per-game breakdown, a few µs against the few hundred µs of CPU a
    fleet spends per action (``benchmarks/run_stats.py``, ``benchmarks/fleet_cost.py``). To ship, a
    fleet sends ``take().to_dict()`` every second or so, which stays small however long the run is,
    and the driver merges each :meth:`from_dict` into its own RunStats.
    """

    __slots__ = ("_current", "_current_second", "actions_by_bot", "actions_by_kind", "games", "series")

    def __init__(self) -> None:
        self.series: dict[int, SecondStats] = {}
        """Whole seconds since the run started -> what happened in that second."""
        self.games: dict[str, GameStats] = {}
        """Game code ("7stud") -> what its tables did over the run."""
        self.actions_by_bot: dict[str, int] = {}
        self.actions_by_kind: dict[str, int] = {}
        self._current_second = -1
        self._current = SecondStats()

    def _second(self, now: float) -> SecondStats:
        """The series entry for ``now``; times before the start (clock skew) count in second 0."""
        second = int(now) if now > 0.0 else 0
        if second != self._current_second:
            current = self.series.get(second)
            if current is None:
                current = self.series[second] = SecondStats()
            self._current = current
            self._current_second = second
        return self._current

    def game(self, game: str) -> GameStats:
        """The counters of ``game`` (made on first use)."""
        stats = self.games.get(game)
        if stats is None:
            stats = self.games[game] = GameStats()
        return stats

    def action(
        self, latency_s: float, kind: str, bot_kind: str, now: float, game: str = UNKNOWN_GAME,
        expected_interval_s: float = 0.0,
    ) -> None:
        """Count one applied action: its latency, its kind (e.g. "raise"), the bot's kind and the game.

        ``expected_interval_s`` is the pace the bot's table would have kept had it not been blocked
        (the bot's mean think time): a latency of two intervals or more fills in the samples it kept
        from being taken (:meth:`LatencyHistogram.record_omitted`)."""
        self._time("latency", latency_s, now, game, expected_interval_s)
        by_kind = self.actions_by_kind
        by_kind[kind] = by_kind.get(kind, 0) + 1
        by_bot = self.actions_by_bot
        by_bot[bot_kind] = by_bot.get(bot_kind, 0) + 1

    def unapplied(
        self, latency_s: float, now: float, game: str = UNKNOWN_GAME, expected_interval_s: float = 0.0
    ) -> None:
        """Count the latency of one action sent and not applied (refused as too late, lost with its
        stream), to when its fate became known; corrected as :meth:`action` does. It is not an action."""
        self._time("unapplied", latency_s, now, game, expected_interval_s)

    def prompted(self, latency_s: float, now: float, game: str = UNKNOWN_GAME) -> None:
        """Count one next-prompt latency (see :attr:`Timings.next_prompt` and :meth:`_one_way`)."""
        self._one_way("next_prompt", latency_s, now, game)

    def delivered(self, latency_s: float, now: float, game: str = UNKNOWN_GAME) -> None:
        """Count one broadcast latency (see :attr:`Timings.broadcast` and :meth:`_one_way`)."""
        self._one_way("broadcast", latency_s, now, game)

    def _one_way(self, name: str, latency_s: float, now: float, game: str) -> None:
        """Count a latency measured across two clocks into histogram ``name`` of its second and game:
        one that comes out below 0 (the clocks' skew) is counted as 0."""
        self._time(name, max(latency_s, 0.0), now, game, 0.0)

    def _time(self, name: str, latency_s: float, now: float, game: str, expected_interval_s: float) -> None:
        """Count a latency into :class:`Timings` histogram ``name`` of its second and of its game,
        with the samples it kept from being taken at ``expected_interval_s`` (0: none known)."""
        for timings in (self._second(now), self.game(game)):
            getattr(timings, name).record(latency_s)
            if latency_s >= 2.0 * expected_interval_s > 0.0:
                timings.omitted.record_omitted(latency_s, expected_interval_s)

    def hand(self, now: float, *, side_pots: int = 0, raise_caps: int = 0, game: str = UNKNOWN_GAME) -> None:
        """Count one finished hand with the side pots it formed and the rounds that hit the raise cap."""
        self._second(now).hands += 1
        counts = self.game(game)
        counts.hands += 1
        counts.side_pots += side_pots
        counts.raise_caps += raise_caps

    def hand_voided(self, game: str = UNKNOWN_GAME) -> None:
        """Count one hand the table voided; it is not among the finished hands."""
        self.game(game).hands_voided += 1

    def error(self, kind: str, now: float, *, chaos: bool = False) -> None:
        """Count one error: a gRPC status name ("UNAVAILABLE") or PROTOCOL_VIOLATION, say; ``chaos``:
        the run's chaos caused it (it is counted among the errors all the same)."""
        second = self._second(now)
        errors = second.errors
        errors[kind] = errors.get(kind, 0) + 1
        if chaos:
            second.chaos_errors[kind] = second.chaos_errors.get(kind, 0) + 1

    def timeout(self, outcome: str, game: str = UNKNOWN_GAME) -> None:
        """Count one action-clock timeout by what CLOCK-2 did (one of TIMEOUT_OUTCOMES)."""
        if outcome not in TIMEOUT_OUTCOMES:
            raise ValueError(f"unknown timeout outcome {outcome!r}; known: {', '.join(TIMEOUT_OUTCOMES)}")
        self.game(game).timeouts_by_outcome[outcome] += 1

    @property
    def hands(self) -> int:
        """Finished hands over the run."""
        return sum(second.hands for second in self.series.values())

    @property
    def actions(self) -> int:
        """Answered actions over the run."""
        return sum(second.latency.count for second in self.series.values())

    def _errors_over_run(self, part: Callable[[SecondStats], Mapping[str, int]]) -> dict[str, int]:
        total: dict[str, int] = {}
        for second in self.series.values():
            _add_counts(total, part(second))
        return total

    @property
    def errors(self) -> dict[str, int]:
        """Errors over the run by kind."""
        return self._errors_over_run(lambda second: second.errors)

    @property
    def chaos_errors(self) -> dict[str, int]:
        """Errors over the run that its chaos caused, by kind (a part of :attr:`errors`)."""
        return self._errors_over_run(lambda second: second.chaos_errors)

    @property
    def unexpected_errors(self) -> dict[str, int]:
        """Errors over the run that its chaos did not cause, by kind."""
        return self._errors_over_run(lambda second: second.unexpected_errors)

    @property
    def protocol_violations(self) -> int:
        """Errors of kind PROTOCOL_VIOLATION over the run."""
        return sum(second.errors.get(PROTOCOL_VIOLATION, 0) for second in self.series.values())

    @property
    def timeouts_by_outcome(self) -> dict[str, int]:
        """Action-clock timeouts over the run by what CLOCK-2 did, every outcome listed."""
        total = dict.fromkeys(TIMEOUT_OUTCOMES, 0)
        for game in self.games.values():
            _add_counts(total, game.timeouts_by_outcome)
        return total

    @property
    def timeouts(self) -> int:
        """Action-clock timeouts over the run, all outcomes."""
        return sum(game.timeouts for game in self.games.values())

    @property
    def side_pots(self) -> int:
        """Side pots formed (BET-7), over all finished hands."""
        return sum(game.side_pots for game in self.games.values())

    @property
    def raise_caps(self) -> int:
        """Betting rounds in which the raise cap was reached (BET-2)."""
        return sum(game.raise_caps for game in self.games.values())

    @property
    def hands_voided(self) -> int:
        """Hands the tables voided (a lost host, a drain) instead of finishing."""
        return sum(game.hands_voided for game in self.games.values())

    def latency(self, *, corrected: bool = True) -> LatencyHistogram:
        """Latencies of all actions of the run, corrected (the default) or as measured (a new
        histogram merged from the series: see :class:`Timings`)."""
        run = self.over_run()
        return run.corrected() if corrected else run.measured()

    def over_run(self) -> SecondStats:
        """Every second of the run merged into one (a new SecondStats)."""
        merged = SecondStats()
        for second in self.series.values():
            merged.merge(second)
        return merged

    def window(self, start: int, stop: int) -> SecondStats:
        """Seconds start <= s < stop merged into one (new) SecondStats."""
        merged = SecondStats()
        if stop - start <= len(self.series):
            seconds: Iterable[int] = range(start, stop)
        else:
            seconds = (s for s in self.series if start <= s < stop)
        for s in seconds:
            second = self.series.get(s)
            if second is not None:
                merged.merge(second)
        return merged

    def merge(self, other: RunStats) -> None:
        """Add everything ``other`` counted; merging is exact, so the order of merges never matters."""
        for s, second in other.series.items():
            mine = self.series.get(s)
            if mine is None:
                mine = self.series[s] = SecondStats()
            mine.merge(second)
        for name, game in other.games.items():
            self.game(name).merge(game)
        _add_counts(self.actions_by_bot, other.actions_by_bot)
        _add_counts(self.actions_by_kind, other.actions_by_kind)

    def merge_faults(self, other: RunStats) -> None:
        """Add only ``other``'s errors (in their seconds, chaos's and unexpected) and voided hands
        (by game): the wind-down's faults count with the load's, its hands and actions do not."""
        for s, second in other.series.items():
            if second.errors:
                mine = self.series.get(s)
                if mine is None:
                    mine = self.series[s] = SecondStats()
                _add_counts(mine.errors, second.errors)
                _add_counts(mine.chaos_errors, second.chaos_errors)
        for name, game in other.games.items():
            if game.hands_voided:
                self.game(name).hands_voided += game.hands_voided

    def take(self) -> RunStats:
        """Everything counted since the previous take, as a new RunStats; this one starts afresh.

        A fleet ships ``take().to_dict()`` so that each message holds only the last few seconds.
        """
        taken = RunStats()
        for name in _RUN_FIELDS:
            mine = getattr(self, name)
            setattr(self, name, getattr(taken, name))
            setattr(taken, name, mine)
        self._current_second = -1  # the cached entry now belongs to ``taken``
        return taken

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form: the series as [second, {...}] pairs in time order, empty parts left out."""
        data: dict[str, Any] = {
            "series": [[s, self.series[s].to_dict()] for s in sorted(self.series)],
        }
        if self.games:
            data["games"] = {name: game.to_dict() for name, game in sorted(self.games.items())}
        for name, mapping in (("actions_by_bot", self.actions_by_bot), ("actions_by_kind", self.actions_by_kind)):
            if mapping:
                data[name] = dict(mapping)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunStats:
        """Inverse of :meth:`to_dict`; raises ValueError on malformed input."""
        stats = cls()
        for s, second in data["series"]:
            if not isinstance(s, int) or s < 0 or s in stats.series:
                raise ValueError(f"bad or repeated second {s!r} in the series")
            stats.series[s] = SecondStats.from_dict(second)
        stats.games = {str(name): GameStats.from_dict(game) for name, game in data.get("games", {}).items()}
        stats.actions_by_bot = {str(k): int(v) for k, v in data.get("actions_by_bot", {}).items()}
        stats.actions_by_kind = {str(k): int(v) for k, v in data.get("actions_by_kind", {}).items()}
        return stats

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunStats):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable
