"""The semantic guard's fit judged on dev only: held-out emergency examples and dev questions never fitted on.

Reads an artifact's ``guard_examples`` (vectors included, so no model runs) and refits the
classifier (``compiler.guard_fit``) five times, each time leaving one fifth of the rules'
examples out (recall on those) and leaving the dev questions (role ``negative``) out
entirely: the share of them stopped as red flags is the false-alarm rate on questions the
fit never saw, the closest dev stands in for a fresh user. Variants:

* ``--policy recall`` (shipped: the threshold at 98% out-of-fold recall), ``cost:N`` (the threshold
  with the fewest misses × N + false alarms out of fold), ``fixed:T``;
* ``--no-titles``: the public unit titles left out of the negatives.

    .venv/bin/python benchmarks/guard_fit_dev.py --kb dist/kb.duckdb
    .venv/bin/python benchmarks/guard_fit_dev.py --kb dist/kb.duckdb --policy cost:10 --no-titles

The "more near-misses" row of docs/benchmarks.md: build with commit 6d20d22's guard.yaml
(``git show 6d20d22:content/guard.yaml > content/guard.yaml && unitrag build``), then run this.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb
import numpy as np

import unitrag.compiler.guard_fit as guard_fit

FOLDS = 5


def threshold_policy(spec: str) -> None:
    """Replace the fit's red-flag threshold rule for this process (the recall rule is the shipped one)."""
    if spec == "recall":
        return
    kind, _, value = spec.partition(":")
    number = float(value)
    original = guard_fit._thresholds

    def chosen(positive: np.ndarray, negative: np.ndarray) -> float:
        if kind == "fixed":
            return number
        candidates = np.unique(positive)
        misses = np.searchsorted(np.sort(positive), candidates, side="left")
        alarms = len(negative) - np.searchsorted(np.sort(negative), candidates, side="left")
        return float(candidates[int(np.argmin(misses * number + alarms))])

    def thresholds(oof: np.ndarray, y: np.ndarray, types: list[str]) -> tuple[dict, dict]:
        found, metrics = original(oof, y, types)
        columns = [i for i, t in enumerate(types) if t == "red_flag"]
        label_type = np.array([types[c] for c in y])
        judged = ~np.isnan(oof).any(axis=1)
        mass = oof[:, columns].sum(axis=1)
        low, high = guard_fit.RED_FLAG_BOUNDS
        value = chosen(mass[(label_type == "red_flag") & judged], mass[(y == 0) & judged])
        found["red_flag"] = min(max(value, low), high)
        return found, metrics

    guard_fit._thresholds = thresholds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", type=Path, default=Path("dist/kb.duckdb"))
    parser.add_argument("--policy", default="recall", help="recall | cost:N | fixed:T")
    parser.add_argument("--no-titles", action="store_true")
    args = parser.parse_args()
    threshold_policy(args.policy)
    with duckdb.connect(str(args.kb), read_only=True) as con:
        rows = con.execute("SELECT rule_id, role, embedding FROM guard_examples").fetchall()
        types = dict(con.execute("SELECT id, type FROM guard_rules").fetchall())
    vectors = np.array([r[2] for r in rows], np.float32)
    role = np.array([r[1] for r in rows])
    rule = np.array([r[0] or "" for r in rows])
    example, dev = role == "example", role == "negative"
    red_flag = np.array([types.get(r) == "red_flag" for r in rule])
    fitted_negatives = (role == "near_miss") | ((role == "title") & (not args.no_titles))
    fold = np.arange(len(rows)) % FOLDS
    hits = total = 0
    stopped: list[int] = []
    threshold: list[float] = []
    for f in range(FOLDS):
        train = (example & (fold != f)) | fitted_negatives
        labels = [r if ro == "example" else guard_fit.NONE for r, ro in zip(rule[train], role[train])]
        fit = guard_fit.fit_guard(vectors[train], labels, types)
        assert fit is not None
        columns = [i for i, c in enumerate(fit.classes) if types.get(c) == "red_flag"]

        def fires(x: np.ndarray) -> np.ndarray:
            mass = guard_fit.probabilities(x, fit.weights, fit.intercepts)[:, columns].sum(axis=1)
            return mass >= fit.thresholds["red_flag"]

        held_out = example & red_flag & (fold == f)
        hits += int(fires(vectors[held_out]).sum())
        total += int(held_out.sum())
        stopped.append(int(fires(vectors[dev]).sum()))
        threshold.append(fit.thresholds["red_flag"])
    print(f"policy {args.policy}, titles {'out' if args.no_titles else 'in'}: red-flag threshold "
          f"{np.mean(threshold):.3f} (mean of {FOLDS} fits); held-out emergency examples stopped {hits}/{total} "
          f"= {hits / total:.3f}; unseen dev questions stopped {min(stopped)}–{max(stopped)} of {int(dev.sum())}")


if __name__ == "__main__":
    main()
