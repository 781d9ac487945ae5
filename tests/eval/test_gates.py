"""The --min-* gates on small sets: one question never flips a passing gate; a clear regression still fails."""

from __future__ import annotations

import pytest

from unitrag.eval.gates import (
    HINTS,
    SMALL_SET,
    f1_figure,
    fact_figures,
    gate,
    guard_figures,
    judge,
    mean_figure,
    proportion,
    retrieval_figures,
    wilson_upper,
)
from unitrag.eval.metrics import MEASURES
from unitrag.eval.report import EvalReport, VariantResult, precision_recall

THRESHOLDS = [t / 100 for t in range(50, 101)]


def verdict(hits: int, n: int, least: float) -> str:
    result = judge(proportion("Success@5 of same_lang", "--min-success", hits, n, "questions"), least)
    return "fail" if result.failures else "warn" if result.warnings else "pass"


def test_the_wilson_bound_is_the_textbook_one():
    assert wilson_upper(8, 10) == pytest.approx(0.9433, abs=1e-4)  # Wilson (1927); Newcombe (1998), table I
    assert wilson_upper(0, 10) == pytest.approx(0.2775, abs=1e-4)
    assert wilson_upper(10, 10) == 1.0 and wilson_upper(0, 0) == 1.0


@pytest.mark.parametrize("n", [3, 8, 16, SMALL_SET - 1])
def test_one_question_never_turns_a_passing_small_set_into_a_failure(n):
    for least in THRESHOLDS:
        for hits in range(1, n + 1):
            if verdict(hits, n, least) == "pass":
                assert verdict(hits - 1, n, least) != "fail", (hits, n, least)


def test_a_16_question_set_warns_on_one_miss_and_says_what_to_do():
    assert verdict(16, 16, 0.95) == "pass"
    result = judge(proportion("Success@5 of same_lang", "--min-success", 15, 16, "questions"), 0.95)
    assert result.failures == []
    (warning,) = result.warnings
    assert "0.9375 on 16 questions, below --min-success 0.95" in warning
    assert f"Add labelled questions so it is measured on at least {SMALL_SET}" in warning


def test_a_small_set_still_fails_a_clear_regression():
    assert verdict(8, 16, 0.80) == "fail"  # half the questions lost: the set shows it, whatever its size
    result = judge(proportion("Success@5 of same_lang", "--min-success", 8, 16, "questions"), 0.80)
    assert "0.5000 on 16 questions" in result.failures[0] and "95% upper bound" in result.failures[0]


def test_a_large_set_is_gated_on_the_figure_itself():
    assert verdict(SMALL_SET - 1, SMALL_SET, 0.97) == "fail"
    assert verdict(95, 100, 0.96) == "fail" and verdict(96, 100, 0.96) == "pass"


def test_not_found_f1_of_a_small_set_survives_one_missed_unanswerable_question():
    assert judge(f1_figure("not-found F1", "--min-notfound-f1", 5, 0, 0), 0.9).failures == []
    missed = judge(f1_figure("not-found F1", "--min-notfound-f1", 4, 0, 1), 0.9)  # F1 0.889
    assert missed.failures == [] and "not-found F1 is 0.8889" in missed.warnings[0]
    false_alarm = judge(f1_figure("not-found F1", "--min-notfound-f1", 5, 1, 0), 0.95)  # F1 0.909
    assert false_alarm.failures == [] and false_alarm.warnings
    assert judge(f1_figure("not-found F1", "--min-notfound-f1", 1, 3, 4), 0.8).failures  # mostly wrong: fails


def test_ndcg_of_a_small_set_survives_one_question_dropping_out():
    assert judge(mean_figure("nDCG@10 of full", "--min-ndcg", 0.66, 16), 0.70).failures == []
    assert judge(mean_figure("nDCG@10 of full", "--min-ndcg", 0.30, 16), 0.70).failures
    assert judge(mean_figure("nDCG@10 of full", "--min-ndcg", 0.69, 300), 0.70).failures


def _report(hits: int, ranked: int, tp: int, fp: int, fn: int, leaks: list | None = None) -> EvalReport:
    metrics = {m: 0.9 for m in MEASURES}
    extra = {"by_category": {"same_lang": {"questions": ranked, "hits": hits, "ranked": ranked,
                                           "success@5": round(hits / ranked, 4)}},
             "not_found": precision_recall(tp, fp, fn), "restricted_leaks": leaks or [],
             "guard_rules": {"by_type": {"red_flag": precision_recall(2, 0, 1), "out_of_scope": precision_recall(3, 0, 0)},
                             "near_misses": {"questions": 4, "passed": 4, "pass_rate": 1.0}},
             "answer_facts": {"modes": {"extractive": {"questions": 6, "all_stated": 5, "facts_all": 0.8333}}}}
    return EvalReport("questions", "questions_test.yaml", {}, {"full": VariantResult("full", "", metrics, ranked, 1.0)},
                      [], extra)


THE_WORKFLOWS_GATES = {"--min-ndcg": 0.70, "--min-notfound-f1": 0.80, "--min-notfound-precision": 0.85,
                       "--min-success": 0.80, "--min-guard-recall": 0.95, "--min-guard-precision": 0.95,
                       "--min-guard-pass": 0.94, "--min-answer-facts": 0.9}


def test_a_fresh_knowledge_bases_small_sets_warn_instead_of_failing_the_workflows_gates():
    report = _report(hits=11, ranked=12, tp=3, fp=1, fn=1)  # one miss of each kind on a 16-question set
    result = gate(retrieval_figures(report) + guard_figures(report) + fact_figures(report), THE_WORKFLOWS_GATES, report)
    assert result.failures == []
    assert {w.split(" is ")[0] for w in result.warnings} == {
        "not-found F1", "not-found precision", "red-flag recall", "answers (extractive) stating every fact"}


def test_a_leak_fails_whatever_the_size_of_the_set():
    report = _report(hits=12, ranked=12, tp=4, fp=0, fn=0, leaks=[{"chunk_id": "x"}])
    assert gate(retrieval_figures(report), THE_WORKFLOWS_GATES, report).failures == [
        "1 restricted chunk(s) reached an anonymous caller"]


def test_a_figure_the_set_cannot_measure_still_fails_when_gated():
    report = _report(hits=12, ranked=12, tp=0, fp=0, fn=0)  # no unanswerable question at all
    failures = gate(retrieval_figures(report), THE_WORKFLOWS_GATES, report).failures
    assert f"not-found F1 is n/a, below --min-notfound-f1 0.8. {HINTS['--min-notfound-f1']}" in failures
    assert gate(retrieval_figures(report), {}, report).failures == []  # ungated: nothing to say


@pytest.mark.parametrize("option", sorted(THE_WORKFLOWS_GATES))
def test_every_gate_of_the_workflow_says_what_it_measures_and_the_usual_fixes(option):
    """A failing gate names its figure's meaning and what to do, not only "add labelled questions"."""
    assert "Usual fixes:" in HINTS[option] and "[" not in HINTS[option]  # printed with rich markup: no brackets


def test_a_failing_not_found_precision_says_answerable_questions_got_not_found_and_what_to_do():
    """A new team's PR: 4 of 7 "not found" answers right (0.5714) against the workflow's 0.85."""
    report = _report(hits=12, ranked=12, tp=4, fp=3, fn=0)
    failures = gate(retrieval_figures(report), {"--min-notfound-precision": 0.85}, report).failures
    (failure,) = failures
    assert failure.startswith("not-found precision is 0.5714 on 7 \"not found\" answers, below --min-notfound-precision 0.85")
    assert 'answerable questions were answered "not found"' in failure
    assert "unitrag calibrate --write calibration.json" in failure and "unanswerable: true" in failure


def test_a_small_sets_warning_says_what_the_gate_measures_too():
    (warning,) = judge(proportion("red-flag recall", "--min-guard-recall", 2, 3, "red-flag questions", True), 0.95).warnings
    assert "Add labelled questions" in warning and warning.endswith(HINTS["--min-guard-recall"])
