"""Choosing variants, and the report's gate and answerability figures."""

from __future__ import annotations

import pytest

from unitrag.errors import UserError
from unitrag.eval.metrics import MEASURES
from unitrag.eval.report import EvalReport, VariantResult, gate_failures, gated_reports, precision_recall
from unitrag.eval.variants import DEFAULT_VARIANTS, parse_variants


def test_variants_parse_in_the_order_given_and_unknown_ones_are_named():
    assert [v.name for v in parse_variants("full,dense,full", True)] == ["full", "dense"]
    assert [v.name for v in parse_variants(None, True)] == list(DEFAULT_VARIANTS)
    assert [v.name for v in parse_variants(None, False)] == ["bm25", "dense", "hybrid"]  # nothing to rerank with
    with pytest.raises(UserError, match="unknown variant.*colbert.*known: bm25, dense"):
        parse_variants("dense,colbert", True)
    with pytest.raises(UserError, match="--variants full, rerank need a reranker"):
        parse_variants("rerank,full", False)


def test_cumulative_variants_switch_on_one_stage_at_a_time():
    dense, rerank, sparse, full = parse_variants("dense,rerank,sparse,full", True)
    assert (dense.sparse, dense.rerank, dense.postprocess) == (False, False, False)
    assert (rerank.sparse, rerank.rerank, rerank.postprocess) == (False, True, False)
    assert (sparse.sparse, sparse.rerank, sparse.postprocess) == (True, True, False)
    assert (full.sparse, full.rerank, full.postprocess) == (True, True, True)


def test_precision_recall_and_f1():
    assert precision_recall(8, 2, 4) == {"precision": 0.8, "recall": 0.6667, "f1": 0.7273, "tp": 8, "fp": 2, "fn": 4}
    assert precision_recall(0, 0, 3)["precision"] is None and precision_recall(0, 2, 3)["f1"] == 0.0


def report(ndcg: float, f1: float | None = 0.8, leaks: list | None = None, dataset: str = "q.yaml") -> EvalReport:
    metrics = {m: 0.5 for m in MEASURES} | {"ndcg@10": ndcg}
    variants = {"dense": VariantResult("dense", "", {m: 0.9 for m in MEASURES}, 10, 1.0),
                "full": VariantResult("full", "", metrics, 10, 2.0)}
    extra = {"not_found": {"f1": f1, "precision": 0.7, "recall": 0.9, "unanswerable": 3, "questions": 10},
             "restricted_leaks": leaks or []}
    return EvalReport("questions", dataset, {"embedder": "e"}, variants, [], extra)


def test_the_gate_reads_the_full_variant_and_not_found_f1():
    assert gate_failures(report(0.70), min_ndcg=0.7, min_notfound_f1=0.8) == []
    failures = gate_failures(report(0.69, f1=0.5), min_ndcg=0.7, min_notfound_f1=0.8)
    assert failures == ["nDCG@10 of full is 0.6900, below --min-ndcg 0.7", "not-found F1 is 0.500, below --min-notfound-f1 0.8"]


def test_the_gate_reads_not_found_precision():
    assert gate_failures(report(0.9), min_notfound_precision=0.7) == []
    assert gate_failures(report(0.9), min_notfound_precision=0.75) == [
        "not-found precision is 0.700, below --min-notfound-precision 0.75"]


def test_the_gates_read_every_held_out_set_or_else_the_last():
    dev, test, test2, other = (report(0.9, dataset=d) for d in ("eval/questions.yaml", "eval/questions_test.yaml",
                                                                  "eval/questions2_test.yaml", "eval/context_dev.yaml"))
    assert gated_reports([dev, test, test2]) == [("questions_test.yaml", test), ("questions2_test.yaml", test2)]
    assert gated_reports([dev, other]) == [("context_dev.yaml", other)]


def test_a_restricted_leak_always_fails_the_gate():
    leak = {"question": "q", "where": "dense", "chunk_id": "c", "access": "clinician"}
    assert gate_failures(report(0.9, leaks=[leak])) == ["1 restricted chunk(s) reached an anonymous caller"]


def test_markdown_marks_the_best_value_of_each_metric():
    text = report(0.95).markdown()
    assert "| variant | ndcg@10 |" in text
    assert "| full | **0.950** |" in text and "| dense | 0.900 |" in text
    assert "restricted-content leaks: 0" in text and "not found: precision 0.700, recall 0.900, F1 0.800" in text


def test_a_set_with_nothing_to_rank_shows_n_a_not_zeros():
    """A guard-only set has no relevant unit for any question: its table says n/a, never a 0.000 that reads as a miss."""
    empty = VariantResult("full", "", dict.fromkeys(MEASURES, 0.0), 0, 0.5)
    scored = VariantResult("full", "", dict.fromkeys(MEASURES, 0.0), 4, 0.5)
    assert [empty.shown(m) for m in MEASURES] == ["n/a"] * len(MEASURES)
    assert scored.shown("ndcg@10") == "0.000"
    table = EvalReport("questions", "guard_test.yaml", {"embedder": "e"}, {"full": empty}, []).markdown()
    assert "| full | " + " | ".join(["n/a"] * len(MEASURES)) + " |" in table and "0.000" not in table


def test_an_answerable_category_says_how_many_were_refused_beside_its_success_at_5():
    """A new team's audit: "cross_en_zh S@5 1.000 (2/2)" while both were answered "not found" (ranked right, refused)."""
    from unitrag.eval.report import category_rows

    def report(refused: int) -> EvalReport:
        cat = {"questions": 2, "hits": 2, "ranked": 2, "not_found": refused, "asked": 2, "success@5": 1.0,
               "not_found_rate": refused / 2}
        return EvalReport("questions", "q.yaml", {"embedder": "e", "reranker": "fusion"},
                          {"full": VariantResult("full", "", {}, 2, 0.0)}, [],
                          {"not_found": {}, "restricted_leaks": [], "by_category": {"cross_en_zh": cat}})

    _, rows = category_rows([report(2), report(0)])
    assert rows[0] == ["cross_en_zh", 'S@5 1.000 (2/2), 2 answered "not found"', "S@5 1.000 (2/2)"]


def test_set_names_say_dev_and_test_and_name_each_file_where_two_of_a_kind_would_share_one() -> None:
    from unitrag.eval.report import set_names

    assert set_names(["c/eval/questions.yaml", "c/eval/questions_test.yaml"]) == ["dev", "test"]
    # two dev files: "dev" beside "questions2" read as if the second were not dev
    assert set_names(["c/questions.yaml", "c/questions2.yaml", "c/questions_test.yaml"]) == [
        "questions", "questions2", "test"]
    assert set_names(["c/questions.yaml", "c/questions_test.yaml", "c/questions2_test.yaml"]) == [
        "dev", "questions_test", "questions2_test"]


def test_files_of_one_name_in_two_folders_are_told_apart_by_their_folders() -> None:
    from unitrag.eval.report import set_names

    assert set_names(["content/eval/questions.yaml", "../x/questions.yaml"]) == ["eval/questions", "x/questions"]
