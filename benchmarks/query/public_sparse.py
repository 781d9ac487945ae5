"""What the public view of the BM25 index costs at open (``SparseIndex.seen_by``), against building the index itself.

A knowledge base holding restricted chunks scores an anonymous caller with idf, length norms and term counts of the
public chunks alone; the view is made once, at open. A synthetic index (Zipf-distributed terms, as words are) of
``--rows`` chunks with ``--per-row`` postings each, ``--restricted`` of its rows restricted: the view's time (best and
each of ``--rounds``), the index's own build time in the same run as the baseline, and the view's peak of
temporaries (tracemalloc). Say the load average with the figures.

Usage::

    .venv/bin/python benchmarks/query/public_sparse.py [--rows 100000] [--per-row 50] [--restricted 0.1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--per-row", type=int, default=50)
    parser.add_argument("--terms", type=int, default=60_000)
    parser.add_argument("--restricted", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from unitrag.rag.store.sparse import SparseIndex

    rng = np.random.default_rng(0)
    rows = np.repeat(np.arange(args.rows), args.per_row)
    terms = rng.zipf(1.3, len(rows)) % args.terms
    order = np.lexsort((rows, terms))
    started = time.perf_counter()
    index = SparseIndex.from_postings([f"t{i}" for i in range(args.terms)], terms[order], rows[order],
                                      np.ones(len(rows), np.int64), np.full(args.rows, args.per_row))
    built = time.perf_counter() - started
    del rows, terms, order
    keep = rng.random(args.rows) >= args.restricted
    times = []
    tracemalloc.start()
    for _ in range(args.rounds):
        started = time.perf_counter()
        index.seen_by(keep)
        times.append(time.perf_counter() - started)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    print(f"{args.rows:,} chunks, {args.rows * args.per_row:,} postings, {args.restricted:.0%} restricted; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"index build (baseline): {built:.3f} s")
    print(f"seen_by: best {min(times):.3f} s ({', '.join(f'{t:.3f}' for t in times)}), "
          f"{min(times) / built:.2f}x the build; peak {peak:.0f} MB of temporaries")


if __name__ == "__main__":
    main()
