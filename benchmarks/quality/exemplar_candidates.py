"""The candidate gate inputs measured on dev before the ``exemplar`` feature was chosen (docs/benchmarks/quality.md).

Usage (from the repository root, after ``unitrag build``)::

    .venv/bin/python benchmarks/quality/exemplar_candidates.py [dist/kb.duckdb]

Every dev question (``content/eval/*.yaml`` but the held-out ``*_test.yaml``) is searched as
``unitrag calibrate`` does, for ``max_dense``, ``topic`` and ``gap``. Then each candidate's columns get a
logistic gate, scored leave-one-out ("not found" when p < 0.5, or below another threshold where
named). A dev question's nearest dev exemplars come from the other dev files only; the units'
questions are the ``unit_question`` / ``clinician_question`` rows of ``guard_examples``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
from unitrag.config import Config

REPO = Path(__file__).resolve().parents[2]
from unitrag.content.registry import is_held_out, load_questions
from unitrag.rag.calibrate.calibration import measure
from unitrag.artifact.schema import UNIT_ROLES
from unitrag.rag.logistic import fit_logistic, sigmoid
from unitrag.rag.knowledge_base import KnowledgeBase


def loo(columns: list[np.ndarray], y: np.ndarray) -> np.ndarray:
    """p(answerable) of each question from a logistic gate fitted on all the others."""
    X, p = np.column_stack(columns), np.empty(len(y))
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        w, b = fit_logistic(X[keep], y[keep])
        p[i] = sigmoid(X[i] @ w + b)
    return p


def rates(p: np.ndarray, y: np.ndarray, threshold: float = 0.5) -> str:
    not_found = p < threshold
    caught = int((not_found & ~y).sum())
    precision, recall = caught / int(not_found.sum()), caught / int((~y).sum())
    return f"P {precision:.3f} / R {recall:.3f} / F1 {2 * precision * recall / (precision + recall):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kb", nargs="?", default="dist/kb.duckdb")
    args = parser.parse_args()
    kb = KnowledgeBase.open(args.kb, config=Config(llm="none"))
    kb.retriever.exemplars = None  # the features as they were before the exemplar feature
    paths = sorted(p for p in (REPO / "content/eval").glob("*.yaml") if not is_held_out(p) and "guard" not in p.name)
    loaded = load_questions(paths, [])
    file_of = {lq.question.id: lq.path for lq in loaded}
    samples, _ = measure(kb, loaded)
    y = np.array([s.answerable for s in samples], bool)
    value: Callable[[str], np.ndarray] = lambda name: np.array([s.values[name] for s in samples], float)
    dense, topic, gap = value("max_dense"), value("topic"), value("gap")
    questions = np.stack([kb.encoder.encode(s.question) for s in samples])
    files = np.array([file_of[s.id] for s in samples])
    with duckdb.connect(args.kb, read_only=True) as con:
        roles = ", ".join(f"'{r}'" for r in sorted(UNIT_ROLES))
        units = np.array([r[0] for r in con.execute(f"SELECT embedding FROM guard_examples WHERE role IN ({roles})").fetchall()],
                         np.float32)
    to_units = (questions @ units.T).max(axis=1)
    between = questions @ questions.T
    other = files[:, None] != files[None, :]
    to_answerable = np.where(other & y[None, :], between, -np.inf).max(axis=1)
    to_unanswerable = np.where(other & ~y[None, :], between, -np.inf).max(axis=1)
    base = [dense, topic, gap]
    candidates = {
        "max_dense + topic + gap": base,
        "max(max_dense, best cosine to a unit question) + topic + gap": [np.maximum(dense, to_units), topic, gap],
        "max_dense + best cosine to a unit question (own column) + topic + gap": [*base, to_units],
        "+ (best to a unit question - best to an unanswerable dev question)": [*base, to_units - to_unanswerable],
        "+ (best to an answerable dev question - best to an unanswerable one)": [*base, to_answerable - to_unanswerable],
        "+ (best to either kind of answerable exemplar - best to an unanswerable one)":
            [*base, np.maximum(to_answerable, to_units) - to_unanswerable],
    }
    print(f"{len(samples)} dev questions reach the gate ({int(y.sum())} answerable) from {len(paths)} files")
    for name, columns in candidates.items():
        print(f"{name}: {rates(loo(columns, y), y)}")
    print(f"max_dense + topic + gap, not found below p 0.4: {rates(loo(base, y), y, 0.4)}")


if __name__ == "__main__":
    main()
