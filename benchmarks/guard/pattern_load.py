"""Do the guard's patterns still match on a busy machine? A red flag must not go unmatched because the server was busy.

Each author-written pattern is matched with a time limit (``content.guard_rules``), so that a pattern that backtracks
without end cannot hold a worker. A limit on the wall clock also cut off ordinary patterns whose thread the machine
had given to others: an HTTP audit saw ``\\bsuicid\\w*`` count as no match under 20-50 parallel requests. This runs a
sample red-flag pattern on a matching question N times while T threads burn the CPU (half in ``regex`` searches that
release the interpreter lock, half in Python), and prints how many searches counted as no match.

Usage: ``.venv/bin/python benchmarks/guard/pattern_load.py --threads 16 32`` (a figure names its CPU and load).
"""

from __future__ import annotations

import argparse
import os
import threading
import time

import regex

from unitrag.content.guard_rules import compile_pattern, search


def misses(threads: int, rounds: int) -> tuple[int, float]:
    pattern = compile_pattern(r"\bsuicid\w*")
    runaway = regex.compile(r"^(\w+\s?)+$")
    stop = threading.Event()

    def in_regex() -> None:
        while not stop.is_set():
            try:
                runaway.search("a" * 30 + "!", timeout=0.3)
            except TimeoutError:
                pass

    def in_python() -> None:
        while not stop.is_set():
            sum(i * i for i in range(20000))

    burners = [threading.Thread(target=in_regex if i % 2 else in_python, daemon=True) for i in range(threads)]
    for burner in burners:
        burner.start()
    started, missed = time.perf_counter(), 0
    for _ in range(rounds):
        missed += not search(pattern, "i think about suicide")
    elapsed = time.perf_counter() - started
    stop.set()
    for burner in burners:
        burner.join()
    return missed, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs")
    for threads in args.threads:
        missed, elapsed = misses(threads, args.rounds)
        print(f"{threads:3} busy threads: {missed} of {args.rounds} searches counted as no match ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
