"""The reranker registry, ``none`` and ``fusion`` (no model, no torch)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from unitrag.errors import UserError
from unitrag.providers.rerankers import Reranker, available_providers, load_reranker, parse_spec, passage, register_reranker
from unitrag.providers.rerankers.fusion import DEFAULT_WEIGHTS, FusionReranker, parse_weights
from unitrag.providers.rerankers.none import NoReranker


@dataclass
class FakeSource:
    title: str
    text: str
    scores: dict[str, float] = field(default_factory=dict)
    score: float = 0.0
    lang: str | None = None


def test_registry_knows_every_provider_and_refuses_unknown_ones() -> None:
    assert {"none", "fusion", "cross-encoder", "flag", "litellm"} <= set(available_providers())
    assert parse_spec("cross-encoder:/m/x") == ("cross-encoder", "/m/x")
    assert parse_spec("litellm:cohere/rerank-v3.5") == ("litellm", "cohere/rerank-v3.5")
    with pytest.raises(UserError, match="unknown reranker"):
        load_reranker("colbert:foo")


def test_loading_none_or_fusion_never_imports_torch() -> None:
    code = (
        "import sys; from unitrag.providers.rerankers import load_reranker; "
        "load_reranker('none'); load_reranker('fusion').score('q', ['a']); "
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules, 'litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "False", "False"]


def test_register_reranker_adds_a_provider() -> None:
    class Constant(Reranker):
        provider = "constant-test"

        def score(self, question: str, sources: list) -> list[float]:  # type: ignore[override]
            return [1.0] * len(sources)

    register_reranker("constant-test", Constant)
    reranker = load_reranker("constant-test:v1")
    assert reranker.id == "constant-test:v1" and reranker.score("q", ["a", "b"]) == [1.0, 1.0]


def test_passage_is_title_and_text_without_cite_tags() -> None:
    assert passage("plain") == "plain"
    assert passage(FakeSource("Iron", 'Ferritin <Cite id="x"/> low')) == "Iron\nFerritin  low"
    assert passage(FakeSource("Iron", "Iron deficiency")) == "Iron deficiency"  # title already leads the text
    assert passage({"title": "T", "text": "body"}) == "T\nbody"


def test_none_keeps_the_first_stage_order_and_scores() -> None:
    reranker = load_reranker("none")
    assert isinstance(reranker, NoReranker) and reranker.id == "none"
    sources = [FakeSource("a", "", score=0.9), FakeSource("b", "", score=0.4)]
    assert reranker.score("q", sources) == [0.9, 0.4]
    assert reranker.score("q", ["x", "y", "z"]) == [3.0, 2.0, 1.0]
    assert reranker.score("q", []) == []


def test_fusion_defaults_and_spec_overrides() -> None:
    assert load_reranker("fusion").weights == DEFAULT_WEIGHTS
    assert parse_weights("sparse=0.1, title=1")["title"] == 1.0
    assert load_reranker("fusion:dense=2").id == "fusion:dense=2"
    for bad in ("speed=1", "dense", "dense=fast"):
        with pytest.raises(UserError):
            FusionReranker(bad)


def test_fusion_features_are_scaled_and_missing_arm_scores_filled_with_the_lowest_or_bm25s_zero() -> None:
    sources = [
        FakeSource("Vitamin D deficiency", "bones", {"dense": 0.8, "sparse": 10.0}),
        FakeSource("Iron", "anemia", {"dense": 0.6}),  # not returned by BM25
        FakeSource("Folate", "pregnancy", {"sparse": 20.0}),  # not returned by dense search
    ]
    features = FusionReranker("coverage=1").features("What causes vitamin D deficiency?", sources)
    assert features["dense"] == pytest.approx([1.0, 0.0, 0.0])
    assert features["sparse"] == pytest.approx([0.5, 0.0, 1.0])  # BM25's scale starts at 0, where the missing are
    # question terms: caus, vitamin, d, defici; the first title has 3 of the 4
    assert features["title"] == pytest.approx([0.75, 0.0, 0.0])
    assert features["coverage"] == pytest.approx([0.75, 0.0, 0.0])


def test_fusion_score_is_the_weighted_sum_and_reorders_by_title_match() -> None:
    a = FakeSource("Unrelated title", "vitamin d", {"dense": 0.80, "sparse": 5.0})
    b = FakeSource("Vitamin D deficiency in adults", "text", {"dense": 0.79, "sparse": 5.0})
    question = "vitamin D deficiency"
    assert FusionReranker("title=0").score(question, [a, b])[0] > FusionReranker("title=0").score(question, [a, b])[1]
    scores = FusionReranker("dense=1,sparse=0,title=2,coverage=0").score(question, [a, b])
    assert scores == pytest.approx([1.0, 2.0])  # a: dense 1 + title 0; b: dense 0 + title 2 × 3/3
    assert FusionReranker().score(question, []) == []


def test_fusion_works_for_chinese_questions() -> None:
    sources = [FakeSource("孕期补充叶酸", "每天400微克", {"dense": 0.5}), FakeSource("维生素D与骨骼", "骨质疏松", {"dense": 0.5})]
    scores = FusionReranker("title=1").score("维生素D缺乏怎么办", sources)
    assert scores[1] > scores[0]


def test_a_source_in_the_other_language_gets_its_term_features_from_its_cosine() -> None:
    """It cannot share the question's words: 0 for BM25 and title would bury the unit with the best cosine."""
    question = "咖啡豆可以放冰箱吗？"
    echo = FakeSource("水温过低", "冲咖啡的水温应在90到96摄氏度之间", {"dense": 0.85, "sparse": 9.0}, lang="zh")
    answer = FakeSource("Storing coffee beans", "Keep beans out of the fridge", {"dense": 0.89}, lang="en")
    weak = FakeSource("Espresso", "9 bar", {"dense": 0.80, "sparse": 3.0}, lang="zh")
    sources = [echo, answer, weak]
    old = FusionReranker("cross=0").score(question, sources)
    new = FusionReranker().score(question, sources)
    assert old.index(max(old)) == 0 and new.index(max(new)) == 1  # the English unit now comes first
    # its term features are 0.5 x its dense feature (1.0): 1 + 0.5 x (1.5 + 1.2 + 0)
    assert new[1] == pytest.approx(1.0 + 0.5 * (1.5 + 1.2))
    assert new[0] == old[0] and new[2] == old[2]  # same-language sources are scored as before
    no_lang = FakeSource("Storing coffee beans", "text", {"dense": 0.89})
    assert FusionReranker().score(question, [echo, no_lang, weak]) == old  # a source without a language: unchanged
    # a term it does share (a number, "LDL") counts when it says more than its cosine would
    shared = FakeSource("LDL 200 mg/dL", "very high", {"dense": 0.80, "sparse": 9.0}, lang="en")
    low = FakeSource("其他", "无关", {"dense": 0.89, "sparse": 1.0}, lang="zh")
    feats = FusionReranker().features("LDL 200算高吗", [shared, low])
    assert FusionReranker().score("LDL 200算高吗", [shared, low])[0] == pytest.approx(
        1.5 * feats["sparse"][0] + 1.2 * feats["title"][0])  # dense 0, its real BM25 and title (above 0) kept


def test_a_lone_bm25_hit_of_the_questions_language_is_bm25s_best_not_its_worst() -> None:
    """A new team's "What is the extension for the duty officer?": the one English unit BM25 found ("duty officer on
    ext. 4410": not every word, so the other language is lent its terms) ranked ninth, below eight Chinese units
    sharing no word; its lone BM25 score had been scaled 0, as the units BM25 did not return."""
    question = "What is the extension for the duty officer?"
    found = FakeSource("Internal: escalating a case", "the duty officer on ext. 4410", {"dense": 0.812, "sparse": 7.41},
                       lang="en")
    chinese = [FakeSource(title, "无关内容", {"dense": dense}, lang="zh")
               for title, dense in (("提前解约", 0.815), ("紧急维修", 0.804), ("涨租", 0.796), ("入户检查", 0.782))]
    sources = [*chinese, found]
    assert FusionReranker().features(question, sources)["sparse"] == [0.0, 0.0, 0.0, 0.0, 1.0]
    scores = FusionReranker().score(question, sources)
    assert scores.index(max(scores)) == 4
    # two hits: the lower one above the units BM25 did not return (a college's "email address format": the unit
    # saying "email", BM25's second hit, was scaled 0 with them and ranked tenth)
    two = [*chinese, found, FakeSource("Repairs", "officer", {"dense": 0.70, "sparse": 2.0}, lang="en")]
    assert FusionReranker().features(question, two)["sparse"] == pytest.approx([0.0, 0.0, 0.0, 0.0, 1.0, 2.0 / 7.41])


def test_a_question_naming_what_one_unit_of_its_language_is_about_lends_nothing_to_the_other_language() -> None:
    """"anti-islanding line workers": one English unit holds every word, "islanding" no other English unit does;
    the Chinese units nearer by cosine (the cross-language correction) say nothing of it and stay below."""
    question = "anti-islanding line workers"
    named = FakeSource("Power outages", "Anti-islanding protects line workers.", {"dense": 0.816, "sparse": 8.6}, lang="en")
    other = FakeSource("Cleaning panels", "Line up the hose; workers on roofs.", {"dense": 0.80, "sparse": 2.0}, lang="en")
    unrelated = [FakeSource(title, "无关内容", {"dense": dense}, lang="zh")
                 for title, dense in (("焦味", 0.862), ("保修", 0.861), ("发电量", 0.858))]
    sources = [*unrelated, named, other]
    scores = FusionReranker().score(question, sources)
    assert scores.index(max(scores)) == 3
    assert scores[:3] == pytest.approx(FusionReranker("cross=0").score(question, sources)[:3])  # nothing lent
    # the same words held by two English units each (none only by one): the Chinese units are lent them as before
    both = FakeSource("Outages", "Anti-islanding and line workers.", {"dense": 0.81, "sparse": 8.0}, lang="en")
    lent = FusionReranker().score(question, [*unrelated, named, both])
    assert lent[0] > FusionReranker("cross=0").score(question, [*unrelated, named, both])[0]
    # BM25 found that unit alone: for such a question it is BM25's best (1), not its worst (0) as a lone value is
    alone = [*unrelated, named]
    assert FusionReranker().features(question, alone)["sparse"] == [0.0, 0.0, 0.0, 1.0]
    only = FusionReranker().score(question, alone)
    assert only.index(max(only)) == 3
