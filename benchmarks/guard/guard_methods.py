"""Which semantic guard method: 5-fold cross-validation on a built artifact's guard examples (dev data only).

    python benchmarks/guard/guard_methods.py dist/kb.duckdb

Reads ``guard_examples`` (examples, near-misses and the knowledge base's own questions, with
their vectors), so nothing is embedded. For each method, every row is scored by a model that
did not see it (the build's interleaved folds); the red-flag threshold is set where 98% of
red-flag examples are stopped, and the table shows what that costs: benign rows stopped
(near-misses and questions), and how often the right rule is named.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from unitrag.artifact.reader import open_artifact, rows_as_dicts
from unitrag.compiler.guard_fit import FOLDS, NONE, _fit, _folds, probabilities

RECALL = 0.98


def load(path: Path) -> tuple[np.ndarray, list[str], dict[str, str]]:
    with open_artifact(path) as con:
        rows = rows_as_dicts(con, "SELECT rule_id, role, embedding FROM guard_examples")
        types = dict(con.execute("SELECT id, type FROM guard_rules").fetchall())
    X = np.array([r["embedding"] for r in rows], dtype=np.float32)
    return X, [r["rule_id"] if r["role"] == "example" else NONE for r in rows], types


def out_of_fold(X: np.ndarray, y: np.ndarray, k: int, method: str) -> np.ndarray:
    """(rows, classes) scores, each row from a model fitted on the other folds."""
    fold = _folds(len(y))
    scores = np.zeros((len(y), k), dtype=np.float32)
    for f in range(FOLDS):
        train, test = fold != f, fold == f
        if method == "softmax regression (chosen)":
            W, b = _fit(X[train], y[train], k)
            scores[test] = probabilities(X[test], W, b)
            continue
        S = X[test] @ X[train].T
        per_class = np.stack([np.where(y[train][None, :] == c, S, -np.inf).max(axis=1) for c in range(k)], axis=1)
        if method == "max similarity":
            scores[test] = per_class
        elif method == "max similarity - max near-miss similarity":
            scores[test] = per_class - per_class[:, [0]]
        elif method == "kNN vote (k=5, softmax-weighted)":
            top = np.argsort(-S, axis=1)[:, :5]
            for i, row in enumerate(top):
                for j in row:
                    scores[test.nonzero()[0][i], y[train][j]] += np.exp(S[i, j] / 0.05)
            scores[test] /= scores[test].sum(axis=1, keepdims=True)
    return scores


def main(path: Path) -> None:
    X, labels, types = load(path)
    classes = [NONE] + sorted(set(labels) - {NONE})
    y = np.array([classes.index(label) for label in labels])
    red = [i for i, c in enumerate(classes) if types.get(c) == "red_flag"]
    positive, negative = np.isin(y, red), y == 0
    print(f"{len(y)} rows: {positive.sum()} red-flag examples, {negative.sum()} near-misses and questions\n")
    print(f"| method | red-flag recall | benign stopped | right rule |\n|---|---|---|---|")
    for method in ("max similarity", "max similarity - max near-miss similarity", "kNN vote (k=5, softmax-weighted)",
                   "softmax regression (chosen)"):
        scores = out_of_fold(X, y, len(classes), method)
        if method.startswith("softmax") or method.startswith("kNN"):
            score = scores[:, red].sum(axis=1)  # a type's probability mass
        else:
            score = scores[:, red].max(axis=1)
        ranked = np.sort(score[positive])[::-1]
        threshold = ranked[int(np.ceil(RECALL * len(ranked))) - 1]
        stopped = score >= threshold
        rule = np.array(red)[scores[:, red].argmax(axis=1)]
        print(f"| {method} | {(stopped & positive).sum() / positive.sum():.3f} | "
              f"{(stopped & negative).sum()} of {negative.sum()} ({(stopped & negative).mean() / negative.mean():.1%}) | "
              f"{(stopped & positive & (rule == y)).sum() / positive.sum():.3f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kb", nargs="?", type=Path, default=Path("dist/kb.duckdb"), help="a built artifact (default: dist/kb.duckdb)")
    main(parser.parse_args().kb)
