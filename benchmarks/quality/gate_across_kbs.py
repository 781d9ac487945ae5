"""Does a default answerability gate carry over to knowledge bases it was not fitted on? Leave one knowledge base out.

Usage (each folder built with ``unitrag build``, holding content/eval/*.yaml; a folder's calibration.json is ignored:
the features are measured as calibrate measures them)::

    .venv/bin/python benchmarks/quality/gate_across_kbs.py . examples/aquarium examples/bike-care ... \
        [--held-out DIR ...]

For every knowledge base: the labelled questions' gate features (rag.calibrate.calibration.measure) and its
*background level*, the median over the bundled everyday questions (content/background) of their best cosine
to its public chunks, cross-language pairs corrected as the default gate corrects them: how close an unrelated
question comes to this knowledge base's text. Then, per gate form, each knowledge base's dev and test "not found"
F1 with the form fitted on every other knowledge base (each weighted equally), and with the form fitted on all of
them for each ``--held-out`` one (written after the form was chosen). The forms:

* ``shipped``: the default gate as shipped (rag/default_calibration.json), nothing refitted;
* ``refit``: its inputs (max_dense, topic, gap) refitted across knowledge bases;
* ``+exemplar``: and the exemplar feature, with whether it was measured;
* ``+level``: and the background level (a per-knowledge-base shift of the threshold);
* ``+level+exemplar``: both.

docs/benchmarks/quality.md, "A default gate for knowledge bases nobody tuned (stop 52)", has the figures.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

import numpy as np
from unitrag.config import load_config
from unitrag.content.registry import load_questions
from unitrag.rag.calibrate.calibration import measure
from unitrag.rag.gate import pipeline_id
from unitrag.rag.calibration_file import default_gates, gate_for, hushed
from unitrag.rag.knowledge_base import KnowledgeBase

BACKGROUND_ROLES = ("background", "background:domains")
FORMS = {
    "refit": ("max_dense", "topic", "gap"),
    "+exemplar": ("max_dense", "topic", "gap", "exemplar", "has_exemplar"),
    "+level": ("max_dense", "level", "topic", "gap"),
    "+level+exemplar": ("max_dense", "level", "topic", "gap", "exemplar", "has_exemplar"),
}


def background_level(kb: KnowledgeBase, offsets: dict[str, float]) -> float:
    import duckdb

    store = kb.store
    public = np.array([str(a) == "public" for a in store.columns["access"]])
    vectors, langs = store.vectors[public], np.array([str(x) for x in store.lang])[public]
    with duckdb.connect(str(kb.config.artifact), read_only=True) as con:
        rows = con.execute("SELECT lang, embedding FROM guard_examples WHERE role IN (?, ?)", BACKGROUND_ROLES).fetchall()
    questions = np.array([r[1] for r in rows], np.float32)
    cosines = questions @ vectors.T
    best = [max(float((cosines[i, langs == lang]).max()) + (0.0 if lang == q else offsets.get(f"{q}>{lang}", 0.0))
                for lang in set(langs.tolist())) for i, (q, _) in enumerate(rows)]
    return float(np.median(best))


def measured(folder: Path) -> list[dict]:
    """Every labelled dev and test question's features, as calibrate measures them with the default gate."""
    os.chdir(folder)
    config = load_config()
    with hushed():
        kb = KnowledgeBase.open(config.artifact, config=config)
        default = gate_for(default_gates(), pipeline_id(kb.store.manifest, config))
        kb.retriever.gate = default
        kb.retriever.crosslingual.offsets = dict(default.lang_offsets)
        level = background_level(kb, dict(default.lang_offsets))
        rows = []
        for path in sorted(Path(config.content_dir, "eval").glob("*.yaml")):
            questions = load_questions([path], [])
            if "guard" in path.name or not questions:
                continue
            samples, _ = measure(kb, questions)
            split = "test" if path.stem.endswith("_test") else "dev"
            for s in samples:
                x = s.values[default.feature] + sum(w * (s.values[m] or 0.0) for m, w in default.mix.items())
                shipped = default.a * x + default.b >= 0  # the fusion pipeline's default has no per-language pair
                rows.append({**s.values, "answerable": s.answerable, "split": split, "level": level,
                             "kb": str(folder), "shipped": shipped})
    return rows


def columns(rows: list[dict], names: tuple[str, ...]) -> np.ndarray:
    def value(row: dict, name: str) -> float:
        if name == "has_exemplar":
            return float(row["exemplar"] is not None)
        return float(row[name] or 0.0)
    return np.array([[value(r, n) for n in names] for r in rows])


def fit(x: np.ndarray, y: np.ndarray, weight: np.ndarray, steps: int = 4000, rate: float = 0.5):
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z, beta, bias = (x - mu) / sd, np.zeros(x.shape[1]), 0.0
    for _ in range(steps):
        g = (1 / (1 + np.exp(-(z @ beta + bias))) - y) * weight
        beta -= rate * (z.T @ g / weight.sum() + 1e-3 * beta)
        bias -= rate * g.sum() / weight.sum()
    return lambda x2: 1 / (1 + np.exp(-(((x2 - mu) / sd) @ beta + bias)))


def f1(said_not_found: np.ndarray, unanswerable: np.ndarray) -> float:
    tp = int((said_not_found & unanswerable).sum())
    wrong = int((said_not_found & ~unanswerable).sum()) + int((~said_not_found & unanswerable).sum())
    return 2 * tp / (2 * tp + wrong) if tp else 0.0


def trained(rows: list[dict], names: tuple[str, ...]):
    per_kb = Counter(r["kb"] for r in rows)
    weight = np.array([1 / per_kb[r["kb"]] for r in rows])
    return fit(columns(rows, names), np.array([r["answerable"] for r in rows], float), weight)


def scores(rows: list[dict], predict) -> dict[str, float]:
    out = {}
    for split in ("dev", "test"):
        part = [r for r in rows if r["split"] == split]
        if part:
            out[split] = f1(predict(part), np.array([not r["answerable"] for r in part]))
    return out


def _name(folder: str) -> str:
    path = Path(folder)
    return path.parent.name if path.name == "kb" else path.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--held-out", nargs="*", type=Path, default=[])
    args = parser.parse_args()
    here = Path.cwd()
    data = {str(f.resolve()): measured(f.resolve()) for f in [*args.folders, *args.held_out]}
    os.chdir(here)
    fitted_on = [str(f.resolve()) for f in args.folders]
    table: dict[str, dict[str, dict[str, float]]] = {"shipped": {}}
    for kb in data:
        table["shipped"][kb] = scores(data[kb], lambda part: np.array([not r["shipped"] for r in part]))
    for form, names in FORMS.items():
        table[form] = {}
        for kb in data:
            train = [r for k in fitted_on if k != kb for r in data[k]]
            predict = trained(train, names)
            table[form][kb] = scores(data[kb], lambda part: predict(columns(part, names)) < 0.5)
    for group, kbs in (("left out in turn", fitted_on), ("held out", [str(f.resolve()) for f in args.held_out])):
        if not kbs:
            continue
        print(f"\n{group} ({len(kbs)} knowledge bases): mean \"not found\" F1, dev | test; per knowledge base test")
        for form, by_kb in table.items():
            mean = {s: np.mean([by_kb[k][s] for k in kbs if s in by_kb[k]]) for s in ("dev", "test")}
            each = " ".join(f"{_name(k)}={by_kb[k].get('test', float('nan')):.2f}" for k in kbs)
            print(f"  {form:16s} {mean['dev']:.3f} | {mean['test']:.3f}   {each}")
    for kb, rows in data.items():
        print(f"{_name(kb)}: background level {rows[0]['level']:.4f}, {len(rows)} questions")


if __name__ == "__main__":
    main()
