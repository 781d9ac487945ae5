"""What the sparse (BM25) index costs at start-up at ``--rows`` chunks: tokenising at open against stored terms."""

from __future__ import annotations

import argparse
import time

from scifact_data import REPO, SciFact


def startup(args: argparse.Namespace, data: SciFact) -> dict[str, object]:
    """What the sparse index costs at ``--rows`` chunks (SciFact abstracts repeated), with and without stored terms."""
    from unitrag.content.tokenize import indexed_text, sparse_terms
    from unitrag.rag.sparse import SparseIndex

    texts = [indexed_text(t, x) for t, x in zip(data.titles, data.texts)]
    started = time.perf_counter()
    terms = [sparse_terms(t) for t in texts]
    tokenise_s = time.perf_counter() - started
    repeat = -(-args.rows // len(terms))
    stored = [f"{t} r{i}" for i, t in enumerate(terms * repeat)][: args.rows]  # a unique term per row: vocabulary grows too
    started = time.perf_counter()
    index = SparseIndex.from_joined(stored)
    build_s = time.perf_counter() - started
    questions = [data.queries[q] for q in list(data.qrels.get("test", {}))[:200]]
    started = time.perf_counter()
    for question in questions:
        index.search(question, 20)
    search_ms = (time.perf_counter() - started) * 1000 / max(len(questions), 1)
    zh_files = sorted((REPO / "content").rglob("zh-*.md"))
    zh = "".join(p.read_text(encoding="utf-8") for p in zh_files) * 5
    sparse_terms("维生素D缺乏")  # load jieba's dictionary first: a one-off second, not per chunk
    started = time.perf_counter()
    sparse_terms(zh)
    zh_chars_s = len(zh) / max(time.perf_counter() - started, 1e-9)
    result = {
        "rows": args.rows, "tokenise_english_s_per_100k": tokenise_s * 100_000 / len(terms),
        "tokenise_chinese_s_per_100k_x_400_chars": 100_000 * 400 / zh_chars_s,
        "build_from_stored_terms_s": build_s, "postings": int(index.rows.size), "index_mb": (index.rows.nbytes + index.tf.nbytes) / 1e6,
        "search_ms": search_ms,
    }
    print(f"tokenising at open: ~{result['tokenise_english_s_per_100k']:.0f} s per 100k SciFact abstracts "
          f"(measured on {len(terms)}), ~{result['tokenise_chinese_s_per_100k_x_400_chars']:.0f} s per 100k Chinese chunks of 400 characters")
    print(f"from stored sparse_terms: {build_s:.1f} s for {args.rows} rows ({index.rows.size} postings, {result['index_mb']:.0f} MB); "
          f"search {search_ms:.1f} ms/query")
    return result
