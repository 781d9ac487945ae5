"""`unitrag eval` end to end with the real default embedder: a small BEIR data set and the sample's questions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from unitrag.config import DEFAULT_EMBEDDER, Config
from unitrag.content.registry import load_questions
from unitrag.eval.beir import load_beir
from unitrag.eval.beir_build import beir_artifact
from unitrag.eval.metrics import MEASURES
from unitrag.eval.questions import evaluate_questions
from unitrag.eval.report import gate_failures
from unitrag.eval.variants import parse_variants
from unitrag.rag import KnowledgeBase

pytestmark = pytest.mark.e2e

TINY = Path(__file__).resolve().parents[1] / "eval" / "data" / "tinybeir"


def unitrag(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env=env)


@pytest.fixture(scope="module")
def beir_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("beir")
    result = unitrag("eval", "--beir", str(TINY), "--cache", "cache", "--json", "--plot", "variants.png", cwd=root)
    assert result.returncode == 0, result.stderr
    return root, json.loads(result.stdout)


def test_beir_eval_reports_every_variant_and_metric(beir_run):
    _, report = beir_run
    assert list(report["variants"]) == ["bm25", "dense", "hybrid", "rerank", "sparse", "full"]
    for scores in report["variants"].values():
        assert set(MEASURES) <= set(scores) and all(0.0 <= scores[m] <= 1.0 for m in MEASURES)
        assert scores["queries"] == 7 and scores["qps"] > 0
    # easy queries over 24 distinct documents: a working retriever ranks the answer first nearly always
    assert report["variants"]["dense"]["ndcg@10"] >= 0.85 and report["variants"]["full"]["ndcg@10"] >= 0.85
    assert report["variants"]["bm25"]["recall@100"] >= 0.8
    assert report["pipeline"]["embedder"] == DEFAULT_EMBEDDER and report["pipeline"]["documents"] == 24


def test_beir_eval_has_per_query_results_with_graded_judgements(beir_run):
    _, report = beir_run
    rows = {row["id"]: row for row in report["queries"]}
    assert set(rows) == {f"q{i}" for i in range(1, 9)}
    assert rows["q1"]["relevant"] == {"d02": 2, "d23": 1}
    assert rows["q3"]["variants"]["dense"]["top"][0] == "d05"
    assert "ndcg@10" in rows["q3"]["variants"]["full"]
    assert report["unjudged_queries"] == ["q8"] and "ndcg@10" not in rows["q8"]["variants"]["full"]


def test_the_plot_is_a_png(beir_run):
    root, _ = beir_run
    data = (root / "variants.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_the_built_corpus_is_cached(beir_run):
    root, _ = beir_run
    config = Config(cache_dir=root / "embedding-cache")
    again = beir_artifact(load_beir(TINY), config, root / "cache")
    assert not again.built and again.path.is_file()  # same corpus, same embedder: nothing rebuilt


def test_the_gate_exits_1_below_the_threshold(beir_run):
    root, _ = beir_run
    result = unitrag("eval", "--beir", str(TINY), "--cache", "cache", "--variants", "dense,full", "--min-ndcg", "1.01",
                     cwd=root)  # out of reach: on 10 queries a gate fails only when clearly missed (eval/gates.py)
    assert result.returncode == 1
    assert "gate failed: nDCG@10 of full is" in result.stderr and "below --min-ndcg 1.01" in result.stderr
    assert "│ full" in result.stdout  # the table is still printed


def test_a_malformed_data_set_is_one_readable_error(tmp_path: Path):
    shutil.copytree(TINY, tmp_path / "bad")
    with (tmp_path / "bad" / "corpus.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    result = unitrag("eval", "--beir", "bad", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("error: not a valid BEIR data set:") and "corpus.jsonl:25: not valid JSON" in result.stderr
    both = unitrag("eval", "--beir", "bad", "--questions", "q.yaml", cwd=tmp_path)
    assert both.returncode == 1 and "give exactly one of --beir DIR or --questions FILE" in both.stderr
    f1 = unitrag("eval", "--beir", "bad", "--min-notfound-f1", "0.5", cwd=tmp_path)
    assert f1.returncode == 1 and f1.stderr == "error: --min-notfound-* need --questions: a BEIR data set has no unanswerable questions\n"
    facts = unitrag("eval", "--beir", "bad", "--min-answer-facts", "0.5", cwd=tmp_path)
    assert facts.returncode == 1 and facts.stderr == "error: --min-answer-facts needs --questions: a BEIR data set has no answer facts\n"


# -- the sample's own labelled questions ------------------------------------------------------------


@pytest.fixture(scope="module")
def questions_run(built_sample) -> dict:
    ws, _ = built_sample
    result = unitrag("eval", "--questions", "content/eval/questions.yaml", "--kb", "dist/kb.duckdb", "--json",
                     "--min-ndcg", "0.6", "--min-notfound-f1", "0.6", cwd=ws.root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_gates_fail_on_any_held_out_set_and_name_it(built_sample):
    ws, _ = built_sample
    result = unitrag("eval", "--questions", "content/eval/questions.yaml", "--questions", "content/eval/questions3_test.yaml",
                     "--questions", "content/eval/questions4_test.yaml", "--kb", "dist/kb.duckdb", "--variants", "full",
                     "--markdown", "--min-notfound-precision", "1.01", cwd=ws.root)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    failed = [line for line in result.stderr.splitlines() if "gate failed" in line]
    assert [line.split("gate failed: ")[1].split(":")[0] for line in failed] == ["questions3_test.yaml", "questions4_test.yaml"]


def test_the_guard_gates_read_the_held_out_sets_that_label_guard_outcomes(built_sample):
    ws, _ = built_sample
    result = unitrag("eval", "--questions", "content/eval/questions.yaml", "--questions", "content/eval/questions4_test.yaml",
                     "--questions", "content/eval/guard_test.yaml", "--questions", "content/eval/guard2_test.yaml",
                     "--kb", "dist/kb.duckdb", "--variants", "dense", "--markdown", "--min-guard-pass", "1.01", cwd=ws.root)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    failed = [line.split("gate failed: ")[1].split(":")[0] for line in result.stderr.splitlines() if "gate failed" in line]
    assert failed == ["guard_test.yaml", "guard2_test.yaml"]  # not questions4_test.yaml: it labels no guard outcome


def test_question_eval_scores_retrieval_guard_and_not_found(questions_run):
    report = questions_run
    assert report["restricted_leaks"] == []
    assert report["guard"]["precision"] == 1.0 and report["guard"]["recall"] == 1.0 and report["guard"]["expected"] >= 15
    assert report["not_found"]["f1"] >= 0.7 and report["not_found"]["unanswerable"] >= 25
    assert report["variants"]["full"]["ndcg@10"] >= 0.7
    assert report["variants"]["full"]["ndcg@10"] > report["variants"]["bm25"]["ndcg@10"]
    assert report["generation"] is None  # no LLM configured


def test_the_extractive_answer_states_the_facts_of_the_dev_questions(questions_run):
    """The question-focused answer (issue 23) states every fact for about half the dev questions; the first
    sentences of the top three sources, which it replaced, did so for a third."""
    facts = questions_run["answer_facts"]["modes"]["extractive"]
    assert facts["questions"] >= 140
    assert facts["facts_all"] >= 0.45 and facts["fact_recall"] >= 0.6


def test_question_eval_has_a_row_per_question(questions_run, built_sample):
    ws, _ = built_sample
    labelled = load_questions([ws.root / "content" / "eval" / "questions.yaml"], [])
    rows = {row["id"]: row for row in questions_run["questions"]}
    assert set(rows) == {lq.question.id for lq in labelled}
    for lq in labelled:
        row, q = rows[lq.question.id], lq.question
        if q.guard:
            assert (row["guard"]["expected"], row["guard"]["got"]) == (q.guard, q.guard) and "variants" not in row
        else:
            assert row["not_found"]["expected"] == q.unanswerable
            assert ("ndcg@10" in row["variants"]["full"]) == q.answerable
            # what the reader got, whole, and the gate's reading, with or without facts (a new team's campground)
            assert row["reply"] and (row["gate"] is None or 0.0 <= row["gate"]["p_answerable"] <= 1.0)
            if row["not_found"]["got"]:
                assert "nothing that answers" in row["reply"] or "没有找到" in row["reply"] or "answers questions in" in row["reply"]
    refused = [row for row in rows.values() if row.get("not_found", {}).get("got") and row.get("gate")]
    assert refused and all(row["gate"]["p_answerable"] < 0.5 for row in refused if not row["gate"].get("answered_anyway"))


def test_clinician_questions_find_restricted_units_only_as_clinicians(questions_run, built_sample):
    ws, _ = built_sample
    kb = KnowledgeBase.open(ws.artifact, config=Config(llm="none"))
    labelled = [lq.question for lq in load_questions([ws.root / "content" / "eval" / "questions.yaml"], [])]
    clinician = [q for q in labelled if q.user and "clinician" in q.user.roles and q.answerable]
    assert clinician
    rows = {row["id"]: row for row in questions_run["questions"]}
    found = sum(bool(set(rows[q.id]["variants"]["full"]["top"]) & set(q.expected_units)) for q in clinician)
    assert found >= len(clinician) - 1
    columns = kb.store.columns
    restricted = {u for u, access in zip(columns["unit_id"], columns["access"]) if access != "public"}
    assert restricted & {u for q in clinician for u in q.expected_units}
    for q in clinician:
        assert not restricted & {s.unit_id for s in kb.search(q.question).sources}


def test_a_leak_is_reported_and_fails_the_gate(built_sample):
    ws, _ = built_sample
    kb = KnowledgeBase.open(ws.artifact, config=Config(llm="none"))
    kb.store.access[:] = "public"  # a broken filter: clinician chunks now pass the mask
    kb.store._masks.cache_clear()  # the masks open made (KnowledgeBase._warm_search) are made again from it
    questions = [lq.question for lq in load_questions([ws.root / "content" / "eval" / "questions.yaml"], [])]
    clinician = [q for q in questions if q.user and "clinician" in q.user.roles][:3]
    report = evaluate_questions(kb, clinician, parse_variants("dense", True))
    assert report.extra["restricted_leaks"] and {leak["access"] for leak in report.extra["restricted_leaks"]} == {"clinician"}
    assert any("restricted chunk(s) reached an anonymous caller" in f for f in gate_failures(report))


def _llm(mock_response):
    from unitrag.providers.llm.litellm import LiteLLMChat

    return LiteLLMChat("openai/gpt-4o-mini", api_key="sk-test", num_retries=0, mock_response=mock_response)


def test_generation_is_checked_when_an_llm_answers(built_sample):
    ws, _ = built_sample
    questions = [lq.question for lq in load_questions([ws.root / "content" / "eval" / "questions.yaml"], [])]
    question = next(q for q in questions if q.id == "en-sodium-limit")
    probe = KnowledgeBase.open(ws.artifact, config=Config(llm="none")).search(question.question)
    valid = probe.sources[0].citation_ids[0]
    kb = KnowledgeBase.open(ws.artifact, llm=_llm(f"Adults should keep sodium under 2 g a day. <Cite id=\"{valid}\"/>"))
    good = evaluate_questions(kb, [question], parse_variants("full", True)).extra["generation"]
    assert good["answers"] == 1 and good["citation_validity"] == 1.0
    assert (good["corrective_retries"], good["extractive_fallbacks"], good["uncited_long_share"]) == (0, 0, 0.0)

    kb = KnowledgeBase.open(ws.artifact, llm=_llm('Salt is fine in any amount. <Cite id="made-up-2099"/>'))
    bad = evaluate_questions(kb, [question], parse_variants("full", True)).extra["generation"]
    assert (bad["corrective_retries"], bad["extractive_fallbacks"]) == (1, 1)  # retried once, then extractive
    assert "made-up-2099" in bad["llm_errors"][0]


def test_the_full_variant_is_the_runtimes_search(built_sample):
    from unitrag.eval.variants import VARIANTS, rank
    from unitrag.rag.types import UserContext

    ws, _ = built_sample
    kb = KnowledgeBase.open(ws.artifact, config=Config(llm="none"))
    user = UserContext(current_topic="iodine", roles=("clinician",))
    for question in ("How much salt should adults eat per day?", "孕妇每天需要多少碘？", "Which B vitamins matter in pregnancy?"):
        for who in (UserContext(), user):
            ranked = rank(kb, question, VARIANTS["full"], kb.config.dense_k, who).sources[: kb.config.final_k]
            assert [s.chunk_id for s in ranked] == [s.chunk_id for s in kb.search(question, user=who).sources]


# -- answer facts ------------------------------------------------------------------------------------

FACTS = """\
- id: facts-sodium-limit
  question: "How much sodium should an adult eat per day at most?"
  lang: en
  expected_units: [en-salt-intake-targets]
  answer_facts:
    - ["2 g", "2,000 mg", "2000毫克"]
    - ["5 g of salt", "5克盐"]
- id: facts-iodine-pregnancy
  question: "孕妇每天需要多少碘？"
  lang: zh
  expected_units: [zh-iodine-intake-urinary]
  answer_facts: ["230 µg"]
- id: facts-sodium-lower-limit
  question: "What is the most sodium a person should have in a day?"
  lang: en
  expected_units: [en-salt-intake-targets]
  answer_facts:
    - ["2,000 mg"]
    - ["1,500 mg"]
- id: facts-none
  question: "Which foods are high in iron?"
  lang: en
  expected_units: [en-salt-intake-targets]
"""


@pytest.fixture(scope="module")
def facts_file(built_sample) -> Path:
    ws, _ = built_sample
    path = ws.root / "facts_test.yaml"
    path.write_text(FACTS, encoding="utf-8")
    return path


def test_the_extractive_answer_is_scored_against_answer_facts(built_sample, facts_file):
    ws, _ = built_sample
    result = unitrag("eval", "--questions", facts_file.name, "--kb", "dist/kb.duckdb", "--variants", "full", "--json",
                     "--min-answer-facts", "0.6", cwd=ws.root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    facts = report["answer_facts"]
    assert facts["questions_with_facts"] == 3 and list(facts["modes"]) == ["extractive"]  # no LLM: one mode
    extractive = facts["modes"]["extractive"]
    # today's extractive answer states the WHO limit in both units and the salt equivalent, and the iodine dose in
    # pregnancy (230微克 in the text, "230 µg" in the label); the 1,500 mg of a stricter target is never in it
    assert (extractive["all_stated"], extractive["questions"], extractive["stated"], extractive["facts"]) == (2, 3, 4, 5)
    assert extractive["failing"][0]["id"] == "facts-sodium-lower-limit"
    assert extractive["failing"][0]["missing"] == [["1,500 mg"]]
    rows = {row["id"]: row for row in report["questions"]}
    assert "answer_facts" not in rows["facts-none"]
    assert rows["facts-iodine-pregnancy"]["answer_facts"]["extractive"]["missing"] == []

    failed = unitrag("eval", "--questions", facts_file.name, "--kb", "dist/kb.duckdb", "--variants", "full",
                     "--markdown", "--min-answer-facts", "0.7", cwd=ws.root)
    # 2 of 3 is below 0.7, but on 3 questions one answer decides it: a warning to add questions, not a failure
    assert failed.returncode == 0 and "Traceback" not in failed.stderr
    assert "gate warning: answers (extractive) stating every fact is 0.6667 on 3 questions with answer_facts, below " \
           "--min-answer-facts 0.7" in " ".join(failed.stderr.split())  # the console wraps long lines
    assert '- extractive facts-sodium-lower-limit (same_lang): missing "1,500 mg"' in failed.stdout


def test_with_an_llm_both_answer_modes_are_scored(built_sample, facts_file):
    ws, _ = built_sample
    questions = [lq.question for lq in load_questions([facts_file], [])][:2]
    probe = KnowledgeBase.open(ws.artifact, config=Config(llm="none")).search(questions[0].question)
    cite = next(s for s in probe.sources if s.unit_id == "en-salt-intake-targets").citation_ids[0]  # the WHO's
    kb = KnowledgeBase.open(ws.artifact, llm=_llm(f"Adults should keep sodium under 2 g a day. <Cite id=\"{cite}\"/>"))
    report = evaluate_questions(kb, questions, parse_variants("full", True))
    figures = report.extra["answer_facts"]
    llm, extractive = figures["modes"]["llm"], figures["modes"]["extractive"]
    assert (extractive["all_stated"], extractive["stated"]) == (2, 3)  # the extractive answer from the same sources
    # the mock states 2 g but not the salt; for the iodine question its citation is not among the sources, so the
    # reader gets the extractive fallback, which states the dose
    assert report.extra["generation"]["extractive_fallbacks"] == 1
    assert (llm["all_stated"], llm["stated"], llm["facts"]) == (1, 2, 3)
    assert [(f["id"], f["missing"]) for f in llm["failing"]] == [("facts-sodium-limit", [["5 g of salt", "5克盐"]])]
    assert llm["failing"][0]["answer"] == "Adults should keep sodium under 2 g a day."  # the text a reader sees


def test_a_starter_question_about_removed_starter_content_is_left_out_of_eval(built_sample, tmp_path: Path):
    ws, _ = built_sample
    questions = tmp_path / "questions.yaml"
    questions.write_text(
        "- {id: starter-gone, question: 'How long should a unit be?', lang: en, starter: true, expected_units: [en-writing-units]}\n"
        "- {id: own-b12, question: 'Which foods contain vitamin B12?', lang: en, expected_units: [en-vitamin-b12]}\n"
        "- {id: own-gap, question: 'Which foods are high in vitamin K?', lang: en, unanswerable: true}\n",
        encoding="utf-8")
    result = unitrag("eval", "--kb", str(ws.artifact), "--questions", str(questions), "--variants", "full", "--json",
                     cwd=ws.root)
    assert result.returncode == 0, result.stderr
    assert "1 starter question(s) (starter: true) name starter units or guard rules that were removed" in result.stderr
    scored = {q["id"] for q in json.loads(result.stdout)["questions"]}
    assert scored == {"own-b12", "own-gap"}


def test_a_question_that_copies_a_units_own_question_is_named(built_sample):
    """A new team copied its test wordings into its units' `questions:`: those are answered whatever the gate, so
    the test set measured the copies (F1 0.923, 0.857 once reworded); eval now names them."""
    from unitrag.content.labelled_question import LabelledQuestion
    from unitrag.eval.report import summary_lines

    ws, _ = built_sample
    kb = KnowledgeBase.open(ws.artifact, config=Config(llm="none"))
    # the story's own question but its question mark (word for word, it is left out of the exemplars while scored)
    copied = LabelledQuestion(id="t-copied", lang="en", expected_units=["en-vitamin-b12"],
                              question="Can running low on vitamin B12 cause permanent nerve damage")
    own = LabelledQuestion(id="t-own-words", lang="en", expected_units=["en-vitamin-b12"],
                           question="could a lack of b12 leave my nerves damaged for good")
    report = evaluate_questions(kb, [copied, own], parse_variants("full", True))
    assert report.extra["near_copies"] == ["t-copied"]
    line = next(line for line in summary_lines(report) if "nearly copy" in line)
    assert line.startswith("1 question(s) nearly copy a unit's own `questions:` entry") and "t-copied" in line
