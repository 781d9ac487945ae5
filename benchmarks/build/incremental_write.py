"""A one-chunk edit on a large artifact: incremental write (copy + delta) against a full rewrite, same run.

    .venv/bin/python benchmarks/build/incremental_write.py /tmp/kb-100k.duckdb --repeat 3
    PYTHONPATH=/tmp/prev .venv/bin/python benchmarks/build/incremental_write.py /tmp/kb-prev.duckdb --skip-full  # another checkout's code

The artifact (e.g. ``benchmarks/common/synthetic_kb.py``'s, written by this checkout so it holds the
stored BM25 index) is copied to a work file first; each repeat edits one chunk's text there,
once through ``write_delta`` and once through ``write_artifact`` with every row (what the build
did before). Times are wall seconds of the write alone (the rows are prepared before).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

import numpy as np

from unitrag.artifact.incremental import write_delta
from unitrag.artifact.reader import open_artifact, read_manifest, read_vectors
from unitrag.artifact.writer import write_artifact
from unitrag.content.text.tokenize import indexed_text, sparse_terms

REGISTRIES = ("units", "citations", "topics", "guard_rules", "prompts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("artifact", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path("/tmp/unitrag-incremental-bench"))
    parser.add_argument("--skip-full", action="store_true", help="time the delta only (a full rewrite takes ~40 s at 100k)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    inc, ref = args.work / "inc.duckdb", args.work / "full.duckdb"
    shutil.copyfile(args.artifact, inc)
    with open_artifact(inc) as con:
        manifest = read_manifest(con)
        table = con.execute("SELECT * EXCLUDE (chunk_no, sparse_length, embedding) FROM chunks ORDER BY chunk_id").to_arrow_table()
        tables = {name: con.execute(f"SELECT * FROM {name}").to_arrow_table().to_pylist() for name in REGISTRIES}
        _, vectors = read_vectors(con)
    dim = int(manifest["embedder"]["dim"])
    vectors = vectors.copy()  # edited below
    rows = table.to_pylist()
    print(f"{len(rows):,} chunks, {args.artifact.stat().st_size / 2**20:.0f} MiB", flush=True)
    delta_s, full_s = [], []
    for n in range(args.repeat):
        i = (n * 7919) % len(rows)
        row = dict(rows[i])
        row["text_for_prompt"] = row["text_for_prompt"] + f" Edited {n}."
        row["sparse_terms"] = sparse_terms(indexed_text(row["title"], row["text_for_prompt"]))
        rows[i] = row
        vector = np.random.default_rng(n).standard_normal((1, dim)).astype(np.float32)
        vector /= np.linalg.norm(vector)
        vectors[i] = vector[0]
        started = time.perf_counter()
        write_delta(inc, dim=dim, manifest=manifest, tables={}, upserts=[row], embeddings=vector, deletes=[])
        delta_s.append(time.perf_counter() - started)
        if not args.skip_full:
            started = time.perf_counter()
            write_artifact(ref, dim=dim, manifest=manifest, tables=tables, chunk_rows=rows, embeddings=vectors)
            full_s.append(time.perf_counter() - started)
        print(f"edit {n + 1}: delta {delta_s[-1]:.2f} s" + (f", full rewrite {full_s[-1]:.2f} s" if full_s else ""), flush=True)
    d = statistics.median(delta_s)
    f = statistics.median(full_s) if full_s else float("nan")
    print(f"median: delta {d:.2f} s, full rewrite {f:.2f} s ({f / d:.1f}× the delta)")


if __name__ == "__main__":
    main()
