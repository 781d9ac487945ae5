"""The answerability gate on the built sample, with the real embedder and the committed calibration.json."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from unitrag.content.registry import load_questions
from unitrag.rag.calibrate.calibration import Calibration, run_calibration
from unitrag.rag.gate import AnswerabilityGate, pipeline_id
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.answer.prompt import render_text

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]

OFF_TOPIC = {
    "en": "Who won the last football World Cup?",
    "zh": "明天上海会下雨吗？",
}
ANSWERABLE = [
    "How much sodium should an adult eat per day at most?",
    "Which foods are natural sources of vitamin B12?",
    "空腹血糖多少可以诊断为糖尿病？",
    "备孕时什么时候开始补叶酸，每天吃多少？",
]


@pytest.fixture(scope="module")
def kb(built_sample) -> KnowledgeBase:
    ws, _ = built_sample
    return KnowledgeBase.open(ws.artifact, config=ws.config)


@pytest.fixture(scope="module")
def calibration(kb: KnowledgeBase, built_sample) -> Calibration:
    ws, _ = built_sample
    problems: list = []
    questions = load_questions([ws.root / "content" / "eval" / "questions.yaml"], problems)
    assert problems == []
    return run_calibration(kb, questions)


def test_the_artifact_carries_the_committed_gate_of_the_default_pipeline(kb: KnowledgeBase):
    current = pipeline_id(kb.store.manifest, kb.config)
    assert kb.retriever.gate is not None, (
        f"calibration.json has no gate for the default pipeline {current!r}: "
        "run `unitrag calibrate --write calibration.json` on a fresh build"
    )
    committed = json.loads((REPO / "calibration.json").read_text(encoding="utf-8"))["gates"]
    assert kb.retriever.gate == AnswerabilityGate.from_dict(next(g for g in committed if g["pipeline_id"] == current))


@pytest.mark.parametrize("lang", sorted(OFF_TOPIC))
def test_an_off_topic_question_does_not_pass_the_gate(kb: KnowledgeBase, lang: str):
    result = kb.search(OFF_TOPIC[lang])
    assert result.sources  # retrieval always finds something; the gate is what says "not found"
    assert kb.retriever.gate.probability(result.sources) < 0.5
    assert not kb.retriever.answerable(result.sources)


#: In-domain, and named by topics.yaml as subjects no unit covers (its "gap" topics).
DECLARED_GAP = {
    "en": "How much zinc should I take to get over a cold faster?",
    "zh": "吃益生菌能治便秘吗？",
}


@pytest.mark.parametrize("lang", sorted(DECLARED_GAP))
def test_a_question_on_a_declared_gap_is_not_found_because_of_the_gap(kb: KnowledgeBase, lang: str):
    sources = kb.search(DECLARED_GAP[lang]).sources
    assert sources and all(s.scores["gap"] == 1.0 for s in sources)
    gate = kb.retriever.gate
    assert gate.mix.get("gap", 0.0) < 0 and not kb.retriever.answerable(sources)
    as_if_covered = [replace(s, scores={**s.scores, "gap": 0.0}) for s in sources]
    assert gate.probability(as_if_covered) > gate.probability(sources)


@pytest.mark.parametrize("question", ANSWERABLE)
def test_answerable_questions_pass_the_gate(kb: KnowledgeBase, question: str):
    assert kb.retriever.answerable(kb.search(question).sources)


@pytest.mark.parametrize("lang", sorted(OFF_TOPIC))
def test_ask_says_not_found_in_the_question_language_without_an_llm(kb: KnowledgeBase, lang: str, monkeypatch):
    import unitrag.rag.answer.generate as generate

    def no_llm(*args: object, **kwargs: object) -> None:
        raise AssertionError("the gate must answer before any LLM call")

    monkeypatch.setattr(kb, "_get_llm", no_llm)
    monkeypatch.setattr(generate, "generate_answer", no_llm)
    answer = kb.ask(OFF_TOPIC[lang])
    assert answer.not_found and answer.guard is None
    assert answer.lang == lang
    assert answer.answer == render_text("not_found", kb.store.prompts, lang=lang).strip()
    assert answer.citations == [] and "generate" not in answer.timings_ms


def test_an_answer_says_what_the_gate_read_whether_not_found_or_answered(kb: KnowledgeBase):
    """A new team's audit: `ask --json` gave no score or threshold for a "not found"; its author could not tell why.
    Another could not tell why "Can you recommend a good hotel?" was answered: the gate's reading was null."""
    refused = kb.ask(OFF_TOPIC["en"])
    gate = kb.retriever.gate
    assert refused.not_found and refused.gate is not None and gate is not None
    assert refused.gate["rule"] == gate.formula and refused.gate["p_answerable"] < 0.5
    assert refused.gate["input"] == pytest.approx(gate.value(refused.sources), abs=1e-4)
    assert refused.to_dict()["gate"] == refused.gate
    answered = kb.ask(ANSWERABLE[0])
    assert not answered.not_found and answered.gate is not None and answered.to_dict()["gate"] == answered.gate
    assert answered.gate["rule"] == gate.formula and answered.gate["p_answerable"] >= 0.5


def test_the_committed_gate_still_separates_the_labelled_questions(kb: KnowledgeBase, calibration: Calibration):
    """Fails when content, retrieval or defaults moved the scores: recalibrate (see the message)."""
    gate = kb.retriever.gate
    assert gate is not None
    correct = [gate.answerable(kb.search(s.question).sources) == s.answerable for s in calibration.samples]
    assert np.mean(correct) >= 0.85, "run `unitrag calibrate --write calibration.json` and rebuild"


def test_a_fresh_calibration_separates_the_labelled_questions(calibration: Calibration):
    """The fit, whichever gate is kept: on the sample's own questions the default gate (fitted on them) decides nearly
    all as the fit does, so the sign test keeps it, and the fit is still measured."""
    m = calibration.fitted.metrics
    assert calibration.fitted.n_answerable >= 40 and calibration.fitted.n_unanswerable >= 30
    labelled = load_questions([REPO / "content" / "eval" / "questions.yaml"], [])
    assert set(calibration.guarded) == {lq.question.id for lq in labelled if lq.question.guard}  # guard cases only
    assert m["loo_auc"] >= 0.9 and m["loo_accuracy"] >= 0.85
    assert m["expected_unit_found"] >= 0.85
    best = max(c["loo_auc"] for c in calibration.candidates)
    assert m["loo_auc"] == best  # the chosen feature is the one that measured best


def test_no_calibration_means_the_default_gate_and_a_plain_warning(workspace, caplog, monkeypatch):
    import logging

    import unitrag.rag.calibration_file as gate_module

    (workspace.root / "calibration.json").unlink()
    report = workspace.build()
    assert report.written and report.embedded == 0 and report.plan.tables_changed == ["calibration"]
    monkeypatch.setattr(gate_module, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="unitrag.rag.calibration_file"):
        kb = KnowledgeBase.open(workspace.artifact, config=workspace.config)
        KnowledgeBase.open(workspace.artifact, config=workspace.config)  # said once, not per open
    current = pipeline_id(kb.store.manifest, kb.config)
    default = {g["pipeline_id"]: g for g in json.loads(gate_module.DEFAULT_CALIBRATION.read_text(encoding="utf-8"))["gates"]}
    assert kb.store.calibration == [] and kb.retriever.gate == AnswerabilityGate.from_dict(default[current])
    warnings = [r.getMessage() for r in caplog.records if "answerability gate" in r.getMessage()]
    assert len(warnings) == 1 and "unitrag calibrate --write calibration.json" in warnings[0]
    clutch = "How do I replace the clutch on a 2009 diesel pickup?"
    assert kb.ask(clutch).not_found
    monkeypatch.setattr(gate_module, "DEFAULT_CALIBRATION", workspace.root / "missing.json")  # no default: no gate
    bare = KnowledgeBase.open(workspace.artifact, config=workspace.config)
    assert bare.retriever.gate is None and not bare.ask(clutch).not_found


def test_build_warns_when_the_gate_was_not_fitted_on_these_questions(workspace):
    env = {**__import__("os").environ, "COLUMNS": "200"}
    run = subprocess.run([sys.executable, "-m", "unitrag", "build", "--cache-dir", "cache"], cwd=workspace.root, capture_output=True, text=True,
                         env=env, check=True)
    assert "answerability gate" not in run.stderr  # the committed gate was fitted on these very questions
    path = workspace.root / "content" / "eval" / "questions.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("Which foods are natural sources of vitamin B12?",
                                                             "Which foods give me vitamin B12?"), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "unitrag", "build", "--cache-dir", "cache"], cwd=workspace.root, capture_output=True, text=True,
                         env=env, check=True)
    assert "not fitted on this knowledge base's labelled questions" in " ".join(run.stderr.split())
    (workspace.root / "calibration.json").unlink()
    run = subprocess.run([sys.executable, "-m", "unitrag", "build", "--cache-dir", "cache"], cwd=workspace.root, capture_output=True, text=True,
                         env=env, check=True)
    assert "default answerability gate" in " ".join(run.stderr.split())


def test_calibrate_command_writes_a_gate_the_next_build_copies(workspace):
    # 12 of each label: above calibrate's minimum (10 of each reaching the gate), so a gate is written
    text = (workspace.root / "content" / "eval" / "questions.yaml").read_text(encoding="utf-8")
    entries = ["- id: " + e.rstrip() + "\n" for e in text.split("\n- id: ")[1:]]
    parsed = [yaml.safe_load(e)[0] for e in entries]
    plain = [(e, q) for e, q in zip(entries, parsed) if "guard" not in q and "user" not in q]
    answerable = [e for e, q in plain if q.get("expected_units")][:12]
    unanswerable = [e for e, q in plain if q.get("unanswerable")][:12]
    (workspace.root / "few.yaml").write_text("".join(answerable + unanswerable), encoding="utf-8")
    (workspace.root / "calibration.json").write_text(json.dumps({"gates": [{
        "pipeline_id": "other|reranker=none|sparse=on", "feature": "dense", "a": 1.0, "b": 0.0}]}), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "unitrag", "calibrate", "--questions", "few.yaml", "--write", "calibration.json", "--json"],
        cwd=workspace.root, capture_output=True, text=True, timeout=600,
        env={"PATH": "/usr/bin:/bin", "UNITRAG_CACHE_DIR": str(workspace.config.cache_dir)},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    measured = {s["id"] for s in report["samples"]}  # a question the guard stops never reaches the gate
    assert measured <= {yaml.safe_load(e)[0]["id"] for e in answerable + unanswerable} and len(measured) >= 20
    assert report["verdict"]["kept"] in ("fitted", "default") and report["verdict"]["reason"]
    written = json.loads((workspace.root / "calibration.json").read_text(encoding="utf-8"))["gates"]
    assert [g["pipeline_id"] for g in written] == sorted(["other|reranker=none|sparse=on", report["gate"]["pipeline_id"]])
    assert workspace.build().plan.tables_changed == ["calibration"]
    kb = KnowledgeBase.open(workspace.artifact, config=workspace.config)
    assert kb.retriever.gate == AnswerabilityGate.from_dict(report["gate"])


def test_calibrate_command_reports_bad_questions_as_problems(workspace):
    (workspace.root / "bad.yaml").write_text(
        "- id: q\n  question: x\n  lang: en\n  expected_units: []\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "unitrag", "calibrate", "--questions", "bad.yaml"],
        cwd=workspace.root, capture_output=True, text=True, timeout=600, env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1
    assert "bad.yaml:1: q: give exactly one of expected_units, unanswerable: true, guard (found none of them)" in result.stderr
