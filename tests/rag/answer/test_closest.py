""""Not found", with the closest material named only when it is on the question's topic."""

from __future__ import annotations

from unitrag.rag.answer.closest import CLOSEST_LEAD, closest_titles, not_found_answer
from unitrag.rag.types import Source


def source(n: int, title: str, on_topic: bool) -> Source:
    return Source(f"c{n}", f"u{n}", "story", title, "text", [], [], "public", "en",
                  scores={"topic": 1.0 if on_topic else 0.0})


def test_titles_on_the_questions_topic_are_named_once_best_first() -> None:
    sources = [source(1, "Magnesium for adults", True), source(2, "Calcium", False),
               source(3, "Magnesium for adults", True), source(4, "<b>Magnesium</b> in food", True)]
    assert closest_titles(sources) == ["Magnesium for adults", "Magnesium in food"]


def test_the_answer_names_the_closest_material_after_the_refusal_in_the_questions_language() -> None:
    sources = [source(1, "Magnesium for adults", True)]
    assert not_found_answer("Not found.", "en", sources) == f"Not found.\n{CLOSEST_LEAD['en']}Magnesium for adults."
    assert not_found_answer("没有找到。", "zh", sources) == f"没有找到。\n{CLOSEST_LEAD['zh']}Magnesium for adults。"


def test_nothing_close_off_the_topics_leaves_the_refusal_alone() -> None:
    assert not_found_answer("Not found.", "en", [source(1, "Calcium", False)]) == "Not found."
    assert not_found_answer("Not found.", "en", []) == "Not found."


def test_a_question_in_another_language_than_the_one_the_knowledge_base_is_written_in_is_told_so() -> None:
    """An English-only help desk's "旧电池放哪个垃圾桶？" got an English "not found" and no word of why."""
    told = not_found_answer("Sorry, nothing.", "en", [], asked_in="zh", written_in=("en",))
    assert told == "Sorry, nothing.\n本知识库只有英文内容，用英文提问可能找到更多结果。"
    assert not_found_answer("Sorry, nothing.", "en", [], asked_in="en", written_in=("en",)) == "Sorry, nothing."
    assert not_found_answer("Sorry, nothing.", "en", [], asked_in="zh", written_in=("en", "zh")) == "Sorry, nothing."


def test_near_answering_the_top_sources_are_named_whatever_their_topics() -> None:
    """A new team's "I have a broken microwave, where can I drop it off?": the gate's p 0.26, its e-waste unit third and
    on no topic the question names ("microwave" is none): a bare refusal said nothing of where to look."""
    sources = [source(1, "Bulky items", False), source(2, "Sorting guide", False), source(3, "E-waste drop-off", False),
               source(4, "Fines", False)]
    assert closest_titles(sources) == []
    assert closest_titles(sources, near=True) == ["Bulky items", "Sorting guide", "E-waste drop-off"]
    assert not_found_answer("Not found.", "en", sources, near=True).endswith("Sorting guide; E-waste drop-off.")
