"""Coverage-guided fuzzing of the PHH reader and replay with atheris (libFuzzer).

Run it as long as you like::

    .venv/bin/python tests/fuzz_phh_atheris.py -runs=1000000 -max_len=20000 -timeout=60

(``tests/test_phh_fuzz.py`` runs it briefly under ``slow``). The input's bytes drive the mutations of
``tests/support/phh_fuzz.py`` on a seed history, or are read as text outright; any exception but a
``PhhError`` is a crash, which libFuzzer reports with the input that caused it. The engine's compiled
modules are not instrumented: coverage guides the fuzzer through the PHH package and the
interpreted engine.
"""

from __future__ import annotations

import sys

import atheris  # type: ignore[import-untyped]

with atheris.instrument_imports():
    from support.phh_fuzz import MAX_TEXT, check, mutate, seed_histories


def one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)

    def choose(n: int) -> int:
        return int(provider.ConsumeIntInRange(0, n - 1))

    seeds = seed_histories()
    if provider.ConsumeBool():
        text = mutate(seeds[choose(len(seeds))], choose)
    else:
        text = str(provider.ConsumeUnicodeNoSurrogates(MAX_TEXT))
    check(text)


if __name__ == "__main__":
    seed_histories()  # built once, before the fuzzing starts
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
