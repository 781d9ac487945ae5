"""What the answerability exemplars cost: embedding the units' questions at build, scoring one at query time.

Usage (from the repository root, after ``unitrag build``)::

    .venv/bin/python benchmarks/quality/exemplar_cost.py [dist/kb.duckdb] [--repeats 3]

Build: the units' ``questions`` embedded as queries, against the sample's chunks embedded as
passages, with the same embedder in the same run (the ratio is what holds on a busy machine).
Open: ``Exemplars.read`` (on an open artifact connection, as ``ChunkStore.load`` reads them) against the
whole ``ChunkStore.load`` (which includes it), best of ``--repeats``. Query: ``Exemplars.score`` (one product with the exemplar matrix) against the dense
search over the chunks, per question vector, for the first 60 dev questions.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb
import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "common"))  # the shared helpers

from measure import Timer, elapsed_ms, machine, p50_p95, ratio  # noqa: E402
from unitrag.artifact.reader import open_artifact  # noqa: E402
from unitrag.config import Config  # noqa: E402
from unitrag.content.registry import load_questions  # noqa: E402
from unitrag.content.validate import validate_content  # noqa: E402
from unitrag.rag.store.exemplars import Exemplars
from unitrag.rag.knowledge_base import KnowledgeBase  # noqa: E402
from unitrag.rag.store.artifact_store import ChunkStore
from unitrag.rag.types import SearchFilter  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", nargs="?", default="dist/kb.duckdb")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    embedder = kb.encoder.embedder
    content = validate_content(REPO / "content", 200_000)
    questions = [q for lu in content.units for q in lu.unit.question_texts]
    with duckdb.connect(args.kb, read_only=True) as con:
        passages = [row[0] for row in con.execute("SELECT text_for_embedding FROM chunks ORDER BY chunk_id").fetchall()]
    embedder.embed_queries(questions[:8])  # load and warm the model
    best_q, best_p = float("inf"), float("inf")
    for _ in range(args.repeats):
        with Timer() as t:
            embedder.embed_queries(questions)
        best_q = min(best_q, t.s)
        with Timer() as t:
            embedder.embed_passages(passages)
        best_p = min(best_p, t.s)
    print(f"build: {len(questions)} unit questions embedded in {best_q:.2f} s; {len(passages)} chunks in {best_p:.2f} s "
          f"(questions / chunks: {ratio(best_q, best_p)}; best of {args.repeats})")
    artifact = Path(args.kb)
    with open_artifact(artifact) as con:
        load_exemplars = min(elapsed_ms(lambda: Exemplars.read(con)) for _ in range(args.repeats))
    load_store = min(elapsed_ms(lambda: ChunkStore.load(artifact)) for _ in range(args.repeats))
    print(f"open: exemplars read in {load_exemplars:.1f} ms of the chunk store's {load_store:.1f} ms "
          f"({load_exemplars / load_store:.0%} of it)")
    labelled = load_questions([REPO / "content/eval/questions.yaml"], [])
    vectors = [kb.encoder.encode(lq.question.question) for lq in labelled[:60]]
    exemplars = kb.retriever.exemplars
    where = SearchFilter(clinician=False)
    score = [elapsed_ms(lambda v=v: exemplars.score(v)) for v in vectors for _ in range(5)]
    dense = [elapsed_ms(lambda v=v: kb.store.dense_search(np.asarray(v), 20, where)) for v in vectors for _ in range(5)]
    s, d = p50_p95(score), p50_p95(dense)
    print(f"query: exemplar score p50 {s['p50']:.3f} ms (p95 {s['p95']:.3f}) over {len(exemplars.texts)} exemplars; "
          f"dense search p50 {d['p50']:.3f} ms over {len(kb.store)} chunks (score / dense: {ratio(s['p50'], d['p50'])})")


if __name__ == "__main__":
    main()
