"""e5-openvino's two graphs, int4 blocks (the default) against dequantised float32, batch by batch in one process.

Both engines are loaded (f32 compute, the model cache of ``UNITRAG_MODEL_CACHE``), then every
batch of ``--batch-size`` SciFact abstracts is embedded by each in turn, the order swapped
every other batch, so the load of a shared machine falls on both alike. Reports the median
and quartiles of the per-batch time ratio (float / int4: above 1 means int4 is faster) and
the smallest cosine between the two graphs' vectors.

    .venv/bin/python benchmarks/embedders/e5_weight_formats.py --limit 64 --rounds 4
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from measure import machine  # noqa: E402
from scifact_corpus import read_scifact  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    from unitrag.providers.embedders.openvino_e5 import OpenVinoE5Embedder

    texts = [f"{d['title']} {d['text']}".strip() for d in read_scifact(limit=args.limit)]
    engines = {}
    for fmt in ("f32", "q4"):
        os.environ["UNITRAG_E5_WEIGHTS"] = fmt
        engines[fmt] = OpenVinoE5Embedder(precision="f32")
        engines[fmt].embed_queries(["warm up"])
    ratios, cosines = [], []
    for round_ in range(args.rounds):
        for at in range(0, len(texts), args.batch_size):
            batch, took, vectors = texts[at:at + args.batch_size], {}, {}
            order = ("f32", "q4") if (at // args.batch_size + round_) % 2 == 0 else ("q4", "f32")
            for fmt in order:
                start = time.perf_counter()
                vectors[fmt] = engines[fmt].embed_passages(batch)
                took[fmt] = time.perf_counter() - start
            ratios.append(took["f32"] / took["q4"])
            cosines.append(float((vectors["f32"] * vectors["q4"]).sum(axis=1).min()))
    q1, median, q3 = np.percentile(ratios, [25, 50, 75])
    print(f"{len(texts)} SciFact documents, batches of {args.batch_size}, {args.rounds} rounds; {machine()}")
    print(f"per-batch time, dequantised / int4: median {median:.2f} (IQR {q1:.2f}-{q3:.2f}, n={len(ratios)}); "
          f"smallest cosine between the graphs {min(cosines):.8f}")


if __name__ == "__main__":
    main()
