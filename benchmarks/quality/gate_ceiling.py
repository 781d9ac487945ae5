"""How well could any gate over today's features say "not found" on a set? The in-sample ceiling.

For each question file, every question is searched as ``ask`` would (``rag.calibrate.calibration.measure``),
then a logistic regression over the gate's features is fitted *on that very file* and scored at its best
threshold: the "not found" F1 no gate over those inputs can beat on that file, however it is fitted or
defaulted. A figure under a target says the target needs another input (an answerability model, a
cross-encoder, an LLM), not another fit. Printed beside it: the F1 of the gate in use (default or calibrated).
Accuracy, not time: the load does not matter.

    cd examples/home-coffee && ../../.venv/bin/python ../../benchmarks/quality/gate_ceiling.py \\
        content/eval/questions.yaml content/eval/questions_test.yaml
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from unitrag.config import load_config
from unitrag.content.registry import load_questions
from unitrag.rag.calibrate.calibration import measure
from unitrag.rag.calibrate.cross_validation import not_found_f1
from unitrag.rag.calibrate.gate_fit import Sample, gate_probabilities
from unitrag.rag.logistic import fit_logistic, sigmoid
from unitrag.rag.knowledge_base import KnowledgeBase

FEATURE_SETS = (("max_dense", "topic", "gap"), ("max_dense", "topic", "gap", "exemplar"))


def ceiling(samples: list[Sample], features: tuple[str, ...]) -> float:
    """The best "not found" F1 of a logistic regression over ``features`` fitted on ``samples`` themselves."""
    X = np.array([[s.values.get(f) or 0.0 for f in features] for s in samples])
    y = np.array([s.answerable for s in samples])
    weights, bias = fit_logistic(X, y.tolist())
    z = X @ weights + bias
    return max(not_found_f1(sigmoid(z - shift), y) for shift in np.linspace(-8, 8, 321))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="labelled question files (eval/*.yaml)")
    parser.add_argument("--kb", default=None, help="the artifact [config: artifact]")
    args = parser.parse_args()
    config = load_config()
    kb = KnowledgeBase.open(args.kb or config.artifact, config=config)
    print("| file | questions (unanswerable) | gate in use | " + " | ".join(" + ".join(f) for f in FEATURE_SETS) + " |")
    print("|---|---|---|" + "---|" * len(FEATURE_SETS))
    for path in args.files:
        samples, _ = measure(kb, load_questions([path], []))
        y = np.array([s.answerable for s in samples])
        gate = kb.retriever.gate
        in_use = gate_probabilities(gate, samples) if gate is not None else np.ones(len(samples))
        row = [f"{ceiling(samples, features):.3f}" for features in FEATURE_SETS]
        print(f"| {path.name} | {len(samples)} ({int((~y).sum())}) | {not_found_f1(in_use, y):.3f} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
