"""Answer facts in the eval report: per mode and category, failing questions, the --min-answer-facts gate."""

from __future__ import annotations

from unitrag.content.labelled_question import LabelledQuestion
from unitrag.eval.fact_report import (
    ANSWER_EXCERPT,
    fact_failures,
    fact_figures,
    fact_lines,
    fact_markdown,
    fact_row,
    fact_table,
    failing_lines,
)
from unitrag.eval.metrics import MEASURES
from unitrag.eval.report import EvalReport, VariantResult, summary_lines


def question(qid: str, facts: list) -> LabelledQuestion:
    return LabelledQuestion(id=qid, question="How much calcium?", lang="en", expected_units=["calcium"], answer_facts=facts)


CALCIUM = question("calcium-dose", [["1,000 mg", "1000毫克"], ["with food"]])
IRON = question("iron-dose", ["18 mg"])


def rows() -> list[dict]:
    """Two answerable questions with facts (two modes), one without facts."""
    return [
        {"id": "calcium-dose", "category": "same_lang", "answer_facts": fact_row(CALCIUM, {
            "extractive": "From the knowledge base:\n1. Calcium — Adults need 1000 mg a day.",
            "llm": "Adults need 1,000 mg a day, taken with food."})},
        {"id": "iron-dose", "category": "cross_en_zh", "answer_facts": fact_row(IRON, {
            "extractive": "1. Iron — women need 18 mg.", "llm": "Women need 1.8 mg."})},  # not 18 mg
        {"id": "no-facts", "category": "same_lang"},
    ]


def test_a_row_counts_stated_and_missing_facts_per_mode():
    row = fact_row(CALCIUM, {"extractive": "Adults need 1000 mg a day."})
    assert row == {"extractive": {"facts": 2, "stated": 1, "missing": [["with food"]], "answer": "Adults need 1000 mg a day."}}


def test_figures_per_mode_and_category_with_the_failing_questions():
    figures = fact_figures(rows())
    assert figures["questions_with_facts"] == 2
    extractive, llm = figures["modes"]["extractive"], figures["modes"]["llm"]
    assert (extractive["questions"], extractive["all_stated"], extractive["facts_all"]) == (2, 1, 0.5)
    assert (extractive["facts"], extractive["stated"], extractive["fact_recall"]) == (3, 2, 0.6667)
    assert [(f["id"], f["missing"]) for f in extractive["failing"]] == [("calcium-dose", [["with food"]])]
    assert (llm["facts_all"], llm["fact_recall"]) == (0.5, 0.6667)
    assert [(f["id"], f["category"], f["missing"]) for f in llm["failing"]] == [("iron-dose", "cross_en_zh", [["18 mg"]])]
    assert extractive["by_category"]["same_lang"]["facts_all"] == 0.0
    assert extractive["by_category"]["cross_en_zh"]["facts_all"] == 1.0
    assert llm["by_category"]["same_lang"]["fact_recall"] == 1.0


def test_no_question_with_facts_is_no_figures():
    assert fact_figures([{"id": "x", "category": "same_lang"}]) is None
    assert fact_lines(None) == [] and fact_markdown(None) == ""


def test_the_gate_reads_every_mode():
    figures = fact_figures(rows())
    assert fact_failures(figures, None) == [] and fact_failures(figures, 0.5) == []
    assert fact_failures(figures, 0.6) == [
        "answers (extractive) state every fact for 0.5000 of 2 questions, below --min-answer-facts 0.6",
        "answers (llm) state every fact for 0.5000 of 2 questions, below --min-answer-facts 0.6"]
    assert fact_failures(None, 0.1) == [
        "no question has answer_facts, so the share stating every fact is n/a, below --min-answer-facts 0.1"]


def test_table_summary_and_markdown_show_the_figures_and_the_missing_facts():
    figures = fact_figures(rows())
    header, table = fact_table(figures)
    assert header == ["category", "extractive", "llm"]
    assert table[-1] == ["all", "0.500 (1/2) / 0.667", "0.500 (1/2) / 0.667"]
    variants = {"full": VariantResult("full", "", dict.fromkeys(MEASURES, 0.5), 2, 1.0)}
    report = EvalReport("questions", "q.yaml", {"embedder": "e"}, variants, rows(), {"answer_facts": figures})
    assert "answer facts (extractive): every fact stated 0.500 (1/2), fact recall 0.667 (2/3); 2 question(s) have facts" \
        in summary_lines(report)
    markdown = report.markdown()
    assert "| cross_en_zh | 1.000 (1/1) / 1.000 | 0.000 (0/1) / 0.000 |" in markdown
    assert '- llm iron-dose (cross_en_zh): missing "18 mg" (the answer: "Women need 1.8 mg.")' in markdown
    assert ('- extractive calcium-dose (same_lang): missing "with food" (the answer: "From the knowledge base: '
            '1. Calcium — Adults need 1000 mg a day.")') in markdown  # on one line: the author sees why


def test_a_failing_line_shows_the_answer_on_one_line_cut_short():
    long = fact_row(IRON, {"extractive": "Iron:\n" + "women need 1.8 mg, " * 40})
    figures = fact_figures([{"id": "iron-dose", "category": "same_lang", "answer_facts": long}])
    (line,) = failing_lines(figures)
    assert line.startswith('extractive iron-dose (same_lang): missing "18 mg" (the answer: "Iron: women need 1.8 mg, ')
    assert line.endswith('…")') and "\n" not in line and len(line) < 70 + ANSWER_EXCERPT


def test_a_guard_only_set_reports_neither_not_found_nor_a_not_found_share_of_its_look_alikes() -> None:
    """A Chinese team's audit: a guard test set printed "not found: n/a" and "guard_pass │ not found 0.000 (0/1)"."""
    from unitrag.eval.report import category_rows

    report = EvalReport("questions", "content/eval/guard_test.yaml", {"embedder": "e", "reranker": "fusion"},
                        {"full": VariantResult("full", "", {}, 0, 0.0)}, [],
                        {"not_found": {"precision": None, "recall": None, "f1": None, "unanswerable": 0, "questions": 0},
                         "restricted_leaks": [],
                         "by_category": {"guard_pass": {"questions": 1, "hits": 0, "ranked": 0, "not_found": 0, "asked": 1,
                                                        "success@5": None, "not_found_rate": 0.0}}})
    assert not any(line.startswith("not found") for line in summary_lines(report))
    _, rows = category_rows([report])
    assert ["guard_pass", "1 (guard)"] in rows and not any(row[0].startswith("not found") for row in rows)


def test_a_not_found_answer_states_no_fact_though_it_names_the_closest_material():
    """A not-found answer naming "Scale insects and their honeydew" as the closest material was counted as stating
    "honeydew": the reader was told where to look, not the fact."""
    from unitrag.eval.fact_report import answer_texts
    from unitrag.rag.results import Answer

    told = "Sorry, nothing answers this.\nClosest material in the knowledge base: Adults need 1,000 mg with food."
    not_found = Answer("How much calcium?", "en", told, True, None, [], [], None, extractive=True)
    assert fact_row(CALCIUM, answer_texts(not_found, False))["extractive"]["stated"] == 0
    found = Answer("How much calcium?", "en", "Adults need 1,000 mg with food.", False, None, [], [], None, extractive=True)
    assert fact_row(CALCIUM, answer_texts(found, False))["extractive"]["stated"] == 2


def test_the_json_row_keeps_the_whole_answer() -> None:
    # a new team read its answers through the Python API: --json cut them at 300 characters
    text = "Iron:\n" + "women need 1.8 mg, " * 40
    row = fact_row(IRON, {"extractive": text})
    assert row["extractive"]["answer"] == text and len(text) > 700
