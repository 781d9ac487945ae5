"""Dev files pooled with dev files, test with test: summed counts, not averaged shares."""

from __future__ import annotations

from typing import Any

from unitrag.eval.pooled import pooled, pooled_reports
from unitrag.eval.report import EvalReport, category_rows


def report(dataset: str, tp: int, fp: int, fn: int, hits: int, ranked: int, facts: tuple[int, int, int, int]) -> EvalReport:
    questions, all_stated, total, stated = facts
    extra: dict[str, Any] = {
        "not_found": {"tp": tp, "fp": fp, "fn": fn, "questions": ranked + tp + fn, "unanswerable": tp + fn},
        "by_category": {"same_lang": {"questions": ranked, "hits": hits, "ranked": ranked, "not_found": fp,
                                      "asked": ranked, "success@5": hits / ranked, "not_found_rate": None},
                        "unanswerable": {"questions": tp + fn, "hits": 0, "ranked": 0, "not_found": tp, "asked": tp + fn,
                                         "success@5": None, "not_found_rate": tp / (tp + fn)}},
        "restricted_leaks": [],
        "answer_facts": {"questions_with_facts": questions, "modes": {"extractive": {
            "questions": questions, "all_stated": all_stated, "facts": total, "stated": stated}}},
    }
    return EvalReport("questions", dataset, {}, {}, [], extra)


def test_two_dev_files_pool_their_counts_and_a_test_file_stays_apart() -> None:
    reports = [report("content/eval/questions.yaml", 3, 2, 2, 10, 11, (8, 6, 10, 8)),
               report("content/eval/questions2.yaml", 4, 0, 1, 11, 11, (9, 9, 9, 9)),
               report("content/eval/questions_test.yaml", 5, 1, 1, 15, 16, (12, 10, 14, 12))]
    found = pooled(reports)
    assert list(found) == ["dev"] and found["dev"]["files"] == 2  # one test file: nothing to pool
    nf = found["dev"]["not_found"]
    # rounded to 4 places, as each file's figures are (``report.precision_recall``, ``questions.category_shares``)
    assert (nf["tp"], nf["fp"], nf["fn"]) == (7, 2, 3) and nf["f1"] == round(14 / 19, 4)
    assert found["dev"]["by_category"]["same_lang"]["success@5"] == round(21 / 22, 4)
    assert found["dev"]["by_category"]["unanswerable"]["not_found_rate"] == 7 / 10
    facts = found["dev"]["answer_facts"]["modes"]["extractive"]
    assert (facts["all_stated"], facts["stated"], facts["facts"]) == (15, 17, 19) and facts["facts_all"] == round(15 / 17, 4)


def test_the_pooled_set_is_a_column_of_the_category_table() -> None:
    reports = [report("content/eval/questions.yaml", 3, 2, 2, 10, 11, (8, 6, 10, 8)),
               report("content/eval/questions2.yaml", 4, 0, 1, 11, 11, (9, 9, 9, 9))]
    header, rows = category_rows(reports + pooled_reports(reports))
    assert header[-1] == "dev files pooled (2)"
    assert dict((r[0], r[-1]) for r in rows)["same_lang"] == "S@5 0.955 (21/22), 2 answered \"not found\""
