"""What checking a seat token costs: ``SeatTokens.authorize`` (the handle looked up, the secret
compared in constant time) against the plain lookup of the whole token in a dict that the table
service did before (``dict.get(token)`` and the seat check), measured in the same run.

Both authorize the same seeded mix of calls over ``--seats`` live tokens: mostly the right
token, some another seat's and some forged. Runs interleave the two (run 1 of each, then run 2...)
so a busy machine slows both alike; each run is timed in process CPU time and the figure is the
median over the runs. A seat call costs tens of microseconds of gRPC besides; the ratio says what
the constant-time check adds to the check itself.

Usage: ``python benchmarks/seat_tokens.py [--seats 5000] [--calls 200000] [--runs 7]``; the last
line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

import grpc

from tablestorm.services.rpc.errors import ServiceError
from tablestorm.services.table.auth import SeatKey, SeatTokens

Check = Callable[[str, str, int], object]


def plain_lookup(tokens: dict[str, SeatKey]) -> Check:
    """The baseline: the token is the dict's key (the lookup's time depends on the guess)."""

    def authorize(token: str, table_id: str, seat: int) -> object:
        key = tokens.get(token)
        if key is None or key.table_id != table_id or key.seat != seat:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "unknown or expired seat token")
        return key

    return authorize


def timed(check: Check, calls: list[tuple[str, str, int]]) -> float:
    """CPU seconds to make every call (refusals included)."""
    started = time.process_time()
    for token, table_id, seat in calls:
        try:  # noqa: SIM105 (contextlib.suppress would add its own cost to every call measured)
            check(token, table_id, seat)
        except ServiceError:
            pass
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=5000)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tokens = SeatTokens()
    keys = [SeatKey(f"t{k // 8}", k % 8 + 1, 1) for k in range(args.seats)]
    issued = [tokens.issue(key) for key in keys]
    baseline = plain_lookup(dict(zip(issued, keys, strict=True)))
    calls = []
    for _ in range(args.calls):
        k = rng.randrange(args.seats)
        token, key = issued[k], keys[k]
        roll = rng.random()
        if roll < 0.05:
            token = token[:-4] + "abcd"  # forged secret
        elif roll < 0.10:
            key = keys[(k + 1) % args.seats]  # another seat's call
        calls.append((token, key.table_id, key.seat))
    times: dict[str, list[float]] = {"handle_and_constant_time": [], "plain_lookup": []}
    for _ in range(args.runs):
        times["handle_and_constant_time"].append(timed(tokens.authorize, calls))
        times["plain_lookup"].append(timed(baseline, calls))
    per_call_us = {name: statistics.median(runs) / args.calls * 1e6 for name, runs in times.items()}
    ratio = per_call_us["handle_and_constant_time"] / per_call_us["plain_lookup"]
    for name, value in per_call_us.items():
        print(f"{name:>26}: {value:.3f} us per check (median of {args.runs} runs)")
    print(f"{'ratio':>26}: {ratio:.2f}x the plain lookup")
    print(json.dumps({"seats": args.seats, "calls": args.calls, "runs": args.runs,
                      "per_call_us": {k: round(v, 4) for k, v in per_call_us.items()}, "ratio": round(ratio, 3)}))


if __name__ == "__main__":
    main()
