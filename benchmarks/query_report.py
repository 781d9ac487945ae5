"""The Markdown that ``query_latency.py`` prints from its results: stage tables and the ratios that matter."""

from __future__ import annotations

import statistics
from typing import Any

from measure import fmt_ms, ratio
from query_stages import STAGES


def stage_table(columns: dict[str, dict[str, dict[str, float]]], total: int | None = None) -> str:
    """One row per stage, p50 and p95 per column; with ``total``, a stage seen in fewer samples says its n."""
    names = list(columns)
    rows = [s for s in STAGES + ["outside stages", "wall"] if any(s in c for c in columns.values())]
    lines = ["| stage (ms) | " + " | ".join(f"{n} p50 | p95" for n in names) + " |",
             "|---|" + "---:|---:|" * len(names)]
    for stage in rows:
        cells = []
        for name in names:
            cell = columns[name].get(stage)
            if cell is None:
                cells += ["-", "-"]
            else:
                note = f" (n={cell['n']})" if total is not None and cell["n"] != columns[name]["wall"]["n"] else ""
                cells += [fmt_ms(cell["p50"]) + note, fmt_ms(cell["p95"])]
        label = "end to end (wall)" if stage == "wall" else stage
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(res: dict[str, Any]) -> None:
    """Every part that ran, then the elapsed times."""
    print()
    if res.get("probe"):
        report_probe(res["probe"], res)
    if res.get("sample"):
        report_sample(res["sample"], res)
    if res.get("synthetic"):
        report_synthetic(res["synthetic"], res)
    print(f"\nelapsed: {res['elapsed_s']}")


def report_probe(probe: dict[str, Any], res: dict[str, Any]) -> None:
    """Part 0: query embedding per OpenMP setting, as ratios to the environment as launched."""
    from unitrag.config import DEFAULT_EMBEDDER

    base = probe.get("as launched")
    print(f"## Query embedding alone ({DEFAULT_EMBEDDER}, one question per call, fresh process each; OMP env as launched: {res['omp_env'] or 'none'})\n")
    print("| OpenMP setting | p50 ms | p95 ms | as launched / this, p50 | p95 |\n|---|---:|---:|---:|---:|")
    for label, r in probe.items():
        print(f"| {label} | {fmt_ms(r['p50'])} | {fmt_ms(r['p95'])} | "
              f"{ratio(base['p50'], r['p50']) if base else 'n/a'} | {ratio(base['p95'], r['p95']) if base else 'n/a'} |")
    print()


def report_sample(s: dict[str, Any], res: dict[str, Any]) -> None:
    """Part 1: the sample content's stage table, cold against hot."""
    print(f"## Sample content: {s['chunks']} chunks, {len(res['questions'])} questions "
          f"({s['broadened_questions']} broadened, {s['sub_queries']} queries in all), "
          f"hot = {res['args']['repeat']} passes; reranker {res['config']['reranker']} "
          f"({'attached' if s['reranker_attached'] else 'not attached by the runtime'}), "
          f"gate {'on' if s['gate'] else 'off (none fitted for this pipeline)'}, "
          f"{s['answered']}/{len(res['questions'])} answered\n")
    print(stage_table(s["columns"], total=len(res["questions"])))
    c = s["columns"]
    ft = s["first_search_timings"]
    print(f"\nopen {s['open_s']:.2f}s; first search after open {s['first_search_ms']:.0f} ms (embed "
          f"{ft.get('embed', 0):.0f} ms incl. model load, sparse {ft.get('sparse', 0):.0f} ms incl. jieba's "
          f"dictionary and the BM25 index)")
    print(f"search end to end, cold / hot p50: {ratio(c['search cold']['wall']['p50'], c['search hot']['wall']['p50'])}; "
          f"ask: {ratio(c['ask cold']['wall']['p50'], c['ask hot']['wall']['p50'])}; "
          f"embed stage cold p50 {fmt_ms(c['search cold']['embed']['p50'])} ms = "
          f"{c['search cold']['embed']['p50'] / c['search cold']['wall']['p50']:.0%} of cold search")
    print()


def report_synthetic(y: dict[str, Any], res: dict[str, Any]) -> None:
    """Part 2: open, first sparse search, the stage table with and without BM25, the dense stage against DuckDB."""
    opens = y["opens"]
    med = statistics.median(o["open_s"] for o in opens)
    mid = sorted(opens, key=lambda o: o["open_s"])[1]
    delta = (mid["rss_after_kib"] - mid["rss_before_kib"]) / 1024
    print(f"## Synthetic artifact: {y['chunks']:,} chunks ({y['public_chunks']:,} public), dim 384\n")
    print(stage_table(y["columns"]))
    fs = y["first_sparse_search"]
    print(f"\nKnowledgeBase.open, fresh process, median of 3: {med:.2f}s "
          f"(chunks read {mid['chunks_arrow_s']:.2f}s, BM25 postings read {mid.get('postings_s', 0.0):.2f}s)")
    if "first_open_small_s" in mid:
        print(f"(each process first opened the sample artifact, paying lazy imports and DuckDB start-up: "
              f"{mid['first_open_small_s']:.2f}s, +{mid['first_open_small_rss_kib'] / 1024:.0f} MiB)")
    print(f"RSS after open: +{delta:.0f} MiB (peak {mid['hwm_kib'] / 1024:.0f} MiB; vector matrix "
          f"{mid['vectors_bytes'] / 2**20:.0f} MiB, so {delta - mid['vectors_bytes'] / 2**20:.0f} MiB is metadata)")
    rss = y["rss_in_process_kib"]
    print(f"first sparse search after open: {fs['wall_ms'] / 1000:.1f}s end to end (sparse stage "
          f"{fs['timings'].get('sparse', 0) / 1000:.1f}s: tokenises every chunk), RSS +"
          f"{(rss['after_first_sparse_search'] - rss['after_open']) / 1024:.0f} MiB; "
          f"the same index from the stored sparse_terms: {y['sparse_from_stored_terms_s']:.1f}s "
          f"({ratio(fs['timings'].get('sparse', 0) / 1000, y['sparse_from_stored_terms_s'])} faster; "
          f"identical index: {y['sparse_index']['stored_terms_give_same_index']})")
    c = y["columns"]
    print(f"search end to end p50, sparse on / off: {ratio(c['sparse on']['wall']['p50'], c['sparse off']['wall']['p50'])}; "
          f"sparse stage p50 {fmt_ms(c['sparse on']['sparse']['p50'])} ms of which question tokenisation "
          f"{fmt_ms(y['question_tokenize_ms']['p50'])} ms")
    d = y["dense_alone"]
    print(f"\ndense top-{res['dense_k']} alone, p50 / p95 ms (DuckDB threads={y['duckdb_threads']}):")
    for name, v in d.items():
        print(f"  {name:22s} {fmt_ms(v['p50']):>8} {fmt_ms(v['p95']):>8}  (n={v['n']})")
    if "numpy 1 thread" in d:
        print(f"  NumPy default BLAS threads / 1 thread p50: {ratio(d['numpy']['p50'], d['numpy 1 thread']['p50'])} unmasked, "
              f"{ratio(d['numpy masked']['p50'], d['numpy 1 thread masked']['p50'])} public-only")
    print(f"  DuckDB / NumPy p50: {ratio(d['duckdb']['p50'], d['numpy']['p50'])} unmasked, "
          f"{ratio(d['duckdb masked']['p50'], d['numpy masked']['p50'])} public-only; "
          f"same top-{res['dense_k']}: {y['duckdb_agreement']}; "
          f"search()'s dense stage p50 {fmt_ms(c['sparse off']['dense']['p50'])} ms")
