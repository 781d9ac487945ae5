"""The ranking metrics (ir-measures) on a case small enough to compute by hand."""

from __future__ import annotations

import math

import pytest

from unitrag.eval.metrics import MEASURES, score_rankings

# q1: graded judgements, d9 judged not relevant; q2: nothing returned; q3: no relevant document at all
QRELS = {
    "q1": {"d2": 1, "d4": 2, "d5": 1, "d9": 0},
    "q2": {"d7": 1},
    "q3": {"d1": 0},
}
RANKINGS = {"q1": ["d1", "d2", "d3", "d4", "d2"], "q3": ["d1"]}  # d2 repeated: counts at rank 2 only

# DCG@10 of q1: d2 (gain 1) at rank 2, d4 (gain 2) at rank 4. Ideal order of the judged grades: 2, 1, 1.
DCG = 1 / math.log2(3) + 2 / math.log2(5)
IDEAL = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)


def test_each_measure_matches_the_hand_computed_value():
    scores = score_rankings(RANKINGS, QRELS)
    q1 = scores.per_query["q1"]
    assert q1["ndcg@10"] == pytest.approx(DCG / IDEAL)  # 0.4766
    assert q1["recall@10"] == pytest.approx(2 / 3) and q1["recall@100"] == pytest.approx(2 / 3)
    assert q1["mrr@10"] == pytest.approx(1 / 2)
    assert q1["map@100"] == pytest.approx((1 / 2 + 2 / 4) / 3)  # precision at each relevant hit / all relevant
    assert q1["success@5"] == 1.0


def test_an_empty_result_scores_zero_and_a_query_without_relevant_documents_is_left_out():
    scores = score_rankings(RANKINGS, QRELS)
    assert scores.per_query["q2"] == dict.fromkeys(MEASURES, 0.0)
    assert scores.unjudged == ["q3"] and "q3" not in scores.per_query and scores.n == 2
    assert scores.means["ndcg@10"] == pytest.approx(DCG / IDEAL / 2)
    assert scores.means["mrr@10"] == pytest.approx(0.25)


def test_cut_offs_apply():
    deep = {"q": [f"x{i}" for i in range(10)] + ["hit"]}  # the relevant document at rank 11
    scores = score_rankings(deep, {"q": {"hit": 1}})
    assert scores.means["recall@10"] == 0.0 and scores.means["recall@100"] == 1.0
    assert scores.means["ndcg@10"] == 0.0 and scores.means["mrr@10"] == 0.0
    assert scores.means["map@100"] == pytest.approx(1 / 11)


def test_the_ideal_ranking_scores_one():
    scores = score_rankings({"q1": ["d4", "d5", "d2"]}, {"q1": QRELS["q1"]})
    assert scores.means["ndcg@10"] == pytest.approx(1.0) and scores.means["map@100"] == pytest.approx(1.0)


def test_nothing_to_score_is_an_error():
    with pytest.raises(ValueError, match="no query has a relevant document"):
        score_rankings({}, {"q3": {"d1": 0}})
