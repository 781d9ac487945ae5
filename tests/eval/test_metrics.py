"""BEIR's retrieval metrics on hand-computed examples."""

from __future__ import annotations

import math

import pytest

from unitrag.eval.metrics import evaluate, mrr_at_k, ndcg_at_k, recall_at_k

RANKED = ["d1", "d2", "d3", "d4"]
GRADED = {"d2": 1, "d4": 2, "d5": 1, "d9": 0}  # d9 judged not relevant

# DCG: d2 at rank 2 → 1/log2(3); d4 at rank 4 → 2/log2(5). Ideal order of the judged grades: 2, 1, 1.
IDEAL = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # 3.1309...


def test_ndcg_uses_linear_gain_and_the_ideal_ordering_of_the_judgements() -> None:
    assert ndcg_at_k(RANKED, GRADED, 3) == pytest.approx((1 / math.log2(3)) / IDEAL)  # 0.2015
    assert ndcg_at_k(RANKED, GRADED, 4) == pytest.approx((1 / math.log2(3) + 2 / math.log2(5)) / IDEAL)  # 0.4766
    assert ndcg_at_k(RANKED, GRADED, 1) == 0.0
    assert ndcg_at_k(RANKED, GRADED, 3) == pytest.approx(0.2015155, abs=1e-6)


def test_ndcg_is_one_for_the_ideal_ranking_and_zero_without_relevant_documents() -> None:
    assert ndcg_at_k(["d4", "d2", "d5"], GRADED, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["d4", "d5", "d2"], GRADED, 10) == pytest.approx(1.0)  # ties in grade: either order is ideal
    assert ndcg_at_k(RANKED, {"d1": 0}, 10) == 0.0
    assert ndcg_at_k([], GRADED, 10) == 0.0


def test_ideal_dcg_is_cut_at_k() -> None:
    # one relevant retrieved at rank 1, three relevant in all: at k=1 this is perfect
    assert ndcg_at_k(["a"], {"a": 1, "b": 1, "c": 1}, 1) == pytest.approx(1.0)
    assert ndcg_at_k(["a"], {"a": 1, "b": 1, "c": 1}, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_recall_counts_relevant_documents_found_in_the_top_k() -> None:
    assert recall_at_k(RANKED, GRADED, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, GRADED, 100) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, {"d1": 0}, 100) == 0.0


def test_mrr_is_the_reciprocal_rank_of_the_first_relevant_document_within_k() -> None:
    assert mrr_at_k(RANKED, GRADED, 10) == 0.5
    assert mrr_at_k(RANKED, GRADED, 1) == 0.0
    assert mrr_at_k(["d9", "x", "d5"], GRADED, 10) == pytest.approx(1 / 3)  # grade 0 is not relevant


def test_a_document_retrieved_twice_counts_once() -> None:
    assert recall_at_k(["d2", "d2", "d2"], GRADED, 3) == pytest.approx(1 / 3)
    assert ndcg_at_k(["d1", "d1", "d2"], GRADED, 2) == pytest.approx((1 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_evaluate_averages_over_every_judged_query_missing_runs_scoring_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    result = evaluate({"q1": ["a", "x"], "q3": ["b"]}, qrels, ndcg_k=10, recall_k=100, mrr_k=10)
    assert result == {"ndcg@10": pytest.approx(0.5), "recall@100": pytest.approx(0.5), "mrr@10": pytest.approx(0.5)}
    assert set(evaluate({}, qrels, ndcg_k=5, recall_k=20, mrr_k=3)) == {"ndcg@5", "recall@20", "mrr@3"}
    with pytest.raises(ValueError):
        evaluate({}, {})
