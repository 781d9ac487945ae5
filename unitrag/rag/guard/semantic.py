"""The guard's second line: the question's embedding scored by the classifier the build fitted.

Patterns catch the phrasings their authors foresaw; this catches the rest ("my dad
suddenly can't lift his arm and his words are jumbled"). The build (``compiler.guard_fit``)
stores one weight vector per rule with examples, plus the class of everything else,
and a threshold per rule type. Here a question's vector (the one retrieval uses anyway)
costs one (dim × classes) product and a softmax: microseconds.

A type fires when the summed probability of its rules reaches its threshold; the rule
named is the most probable of that type, with the nearest example of that rule as the
human-readable reason.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...artifact.reader import has_table, rows_as_dicts

NONE = "(none)"  # the class of questions no rule should stop (compiler.guard_fit.NONE)
#: A question this near (cosine) one of a rule's near-misses, and nearer than to any of its examples, is that near-miss.
NEAR_MISS_ITSELF = 0.95


@dataclass(frozen=True)
class SemanticScore:
    """Why the classifier would stop a question (or nearly did)."""

    type: str  # red_flag | out_of_scope
    rule: str
    score: float  # the type's summed probability
    threshold: float
    nearest_example: str
    nearest_similarity: float
    shares: Mapping[str, float] = field(default_factory=dict)  # each rule of the type: its probability
    near_miss_similarity: float = 0.0  # the best cosine to the rule's near-misses (questions its authors say must pass)

    @property
    def fires(self) -> bool:
        return self.score >= self.threshold and not self.said_to_pass

    @property
    def said_to_pass(self) -> bool:
        """The question is one of the rule's near-misses in other words (cosine ≥ ``NEAR_MISS_ITSELF``, nearer than any
        example): its authors said it must pass, and a linear score cannot learn a bare "I am pregnant" apart from the
        examples that tell bleeding beside it (0.98 with it a near-miss)."""
        return self.near_miss_similarity >= NEAR_MISS_ITSELF and self.near_miss_similarity > self.nearest_similarity


class SemanticGuard:
    """The fitted classifier and each rule's example vectors, held in memory."""

    def __init__(self, model_rows: Iterable[Mapping[str, Any]], example_rows: Iterable[Mapping[str, Any]]) -> None:
        model = sorted(model_rows, key=lambda r: (r["class"] != NONE, r["class"]))
        self.classes = [r["class"] for r in model]
        self.types = [r["type"] for r in model]
        self.weights = np.ascontiguousarray(np.array([r["weights"] for r in model], dtype=np.float32).T)
        self.intercepts = np.array([r["intercept"] for r in model], dtype=np.float32)
        self.thresholds = {r["type"]: float(r["threshold"]) for r in model if r["type"] and r["threshold"] is not None}
        none = next((r for r in model if r["class"] == NONE), None)
        self.metrics: dict[str, Any] = json.loads(none["metrics"]) if none and none.get("metrics") else {}
        examples: dict[str, list[tuple[str, Any]]] = {}
        near_misses: dict[str, list[Any]] = {}
        for row in example_rows:
            if row["role"] == "example":
                examples.setdefault(row["rule_id"], []).append((row["text"], row["embedding"]))
            elif row["role"] == "near_miss":
                near_misses.setdefault(row["rule_id"], []).append(row["embedding"])
        self._examples = {
            rule: ([text for text, _ in pairs], np.array([vec for _, vec in pairs], dtype=np.float32))
            for rule, pairs in examples.items()
        }
        self._near_misses = {rule: np.array(vectors, dtype=np.float32) for rule, vectors in near_misses.items()}

    def example_texts(self, rule: str | None = None) -> list[str]:
        """The examples of ``rule`` (every rule's when None), as written: the guard's own words and signs."""
        return [text for name, (texts, _) in self._examples.items() if rule in (None, name) for text in texts]

    @classmethod
    def read(cls, con: Any) -> "SemanticGuard | None":
        """From an artifact's connection; None when it predates the semantic guard or its rules have no examples."""
        if not has_table(con, "guard_model"):
            return None
        model = rows_as_dicts(con, "SELECT * FROM guard_model")
        examples = rows_as_dicts(con, "SELECT rule_id, role, text, embedding FROM guard_examples "
                                      "WHERE role IN ('example', 'near_miss')")
        return cls(model, examples) if len(model) > 1 else None

    def with_thresholds(self, **thresholds: float) -> "SemanticGuard":
        """A copy with some types' thresholds replaced (what-if analysis; tests that need a score in the band)."""
        other = copy.copy(self)
        other.thresholds = {**self.thresholds, **thresholds}
        return other

    def scores(self, vector: np.ndarray) -> list[SemanticScore]:
        """The best rule of each type with a threshold, red flags first (whether or not it fires)."""
        z = np.asarray(vector, dtype=np.float32) @ self.weights + self.intercepts
        p = np.exp(z - z.max())
        p /= p.sum()
        found = []
        for rule_type in ("red_flag", "out_of_scope"):
            columns = [i for i, t in enumerate(self.types) if t == rule_type]
            if not columns or rule_type not in self.thresholds:
                continue
            best = max(columns, key=lambda i: p[i])
            text, similarity = self.nearest(self.classes[best], vector)
            _, passing = _most_similar(self._near_misses.get(self.classes[best]), vector)
            found.append(SemanticScore(rule_type, self.classes[best], float(p[columns].sum()), self.thresholds[rule_type],
                                       text, similarity, {self.classes[i]: float(p[i]) for i in columns}, passing))
        return found

    def nearest(self, rule: str, vector: np.ndarray) -> tuple[str, float]:
        """The rule's example most similar to ``vector`` (cosine; vectors are unit length), and that similarity."""
        texts, matrix = self._examples.get(rule, ([], None))
        i, similarity = _most_similar(matrix, vector)
        return (texts[i], similarity) if texts else ("", 0.0)


def _most_similar(matrix: np.ndarray | None, vector: np.ndarray) -> tuple[int, float]:
    """The row of ``matrix`` (unit vectors) most similar to ``vector`` and its cosine; (0, 0.0) without rows."""
    if matrix is None or not len(matrix):
        return 0, 0.0
    similarities = matrix @ np.asarray(vector, dtype=np.float32)
    i = int(similarities.argmax())
    return i, float(similarities[i])
