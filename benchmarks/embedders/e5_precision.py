"""e5-openvino in bf16 against f32 on one CPU: do the two precisions find the same passages?

Embeds every paragraph (over 60 characters) of the bundled content and of examples/bike-care
in both precisions, and the sample's retrieval test questions and all of bike-care's as queries, then reports: passages/s of
each, how far a passage's vector moves between its batch and being embedded alone (the first
64), the cosine between the two precisions' vectors, and how often dense search over those
paragraphs ranks the same top 1 and the same top 5. On a CPU without bf16 both runs are f32
(OpenVINO ignores the hint), so the agreement is exact: run it where bf16 is reported.

    .venv/bin/python benchmarks/embedders/e5_precision.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from measure import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONTENT = (ROOT / "content", ROOT / "examples" / "bike-care" / "content")


def paragraphs() -> list[str]:
    """The body paragraphs of every unit, frontmatter left out (a rough split is enough here)."""
    found = []
    for content in CONTENT:
        for path in sorted(content.rglob("*.md")):
            body = path.read_text(encoding="utf-8").split("---", 2)[-1]
            found += [p.strip()[:1500] for p in body.split("\n\n") if len(p.strip()) > 60]
    return found


def test_questions() -> list[str]:
    found = []
    for pattern in ("content/eval/questions*_test.yaml", "examples/bike-care/content/eval/*.yaml"):
        for path in sorted(ROOT.glob(pattern)):
            found += [item["question"] for item in yaml.safe_load(path.read_text(encoding="utf-8")) or []
                      if isinstance(item, dict) and item.get("question")]
    return found


def main() -> None:
    from unitrag.providers.embedders.openvino_e5 import OpenVinoE5Embedder

    texts, questions = paragraphs(), test_questions()
    print(f"{machine()}\n{len(texts)} passages, {len(questions)} questions")
    vectors = {}
    for precision in ("bf16", "f32"):
        embedder = OpenVinoE5Embedder(precision=precision)
        embedder.embed(["warm up"])
        start = time.perf_counter()
        passages = embedder.embed(texts)
        rate = len(texts) / (time.perf_counter() - start)
        alone = np.vstack([embedder.embed([t]) for t in texts[:64]])
        drift = 1 - (alone * passages[:64]).sum(axis=1)
        print(f"{precision} (engine: {embedder.engine.precision}): {rate:.1f} passages/s; "
              f"batch against alone: 1 - cosine at most {drift.max():.1e}, "
              f"largest component difference {np.abs(alone - passages[:64]).max():.1e}")
        vectors[precision] = (passages, embedder.embed(questions, query=True))
    (pb, qb), (pf, qf) = vectors["bf16"], vectors["f32"]
    for name, a, b in (("passages", pb, pf), ("queries", qb, qf)):
        cosine = (a * b).sum(axis=1)
        print(f"bf16 against f32, {name}: cosine mean {cosine.mean():.6f}, min {cosine.min():.6f}")
    top_b = np.argsort(-(qb @ pb.T), axis=1)[:, :5]
    top_f = np.argsort(-(qf @ pf.T), axis=1)[:, :5]
    same_top1 = float((top_b[:, 0] == top_f[:, 0]).mean())
    overlap = float(np.mean([len(set(b) & set(f)) / 5 for b, f in zip(top_b, top_f)]))
    print(f"dense search: same top 1 for {same_top1:.3f} of questions, top-5 overlap {overlap:.3f}")


if __name__ == "__main__":
    main()
