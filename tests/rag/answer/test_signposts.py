"""Signposts: a sentence that maps its text ("This article covers …", 本篇先讲…再讲…) is never quoted as an answer."""

from __future__ import annotations

import pytest

from unitrag.rag.answer.extractive import extractive_answer
from unitrag.rag.answer.signposts import is_signpost
from unitrag.rag.types import Source

SIGNPOSTS = [
    "This article covers drainage holes, choosing and mixing potting mix, and when to repot.",
    "This guide explains who is at risk of deficiency, how it is tested, and how it is treated.",
    "The first section covers checking the soil; the second tells overwatering from underwatering.",
    "The two sections below give starting pressures by tyre width and rider weight.",
    "The sections below explain what is worth doing and what is not.",
    "This section is for workshop staff.",
    "Below, we look at the three kinds of grinder.",
    "本篇先讲肥料包装上氮磷钾（N-P-K）三个数字的含义和稀释方法，再讲生长季与冬季的施肥频率。",
    "下面第一节讲窗户朝向和摆放位置，第二节讲测光和补光灯。",
    "下面五节依次讲铁在体内做什么、从哪些食物中获得。",
    "本文介绍神经管缺陷与叶酸的证据，以及维生素B6与孕吐、维生素B12与叶酸的关系。",
    "本节面向维修技师。",
    "第一节讲茎段扦插，第二节讲分株和叶插。",
    # a summary told as a run of indirect questions (a reader's "how do I acclimate new fish?" opened with it)
    "How to bring new fish home without shocking them, by floating the bag, and how to feed them afterwards: how much, how often.",
    "How light, medium and dark roasts differ in the cup, how long roasted beans keep, and how to store them.",
    "如何给新鱼过水，以及如何检疫。",
]

FACTS = [
    "Adults should eat less than 5 g of salt a day.",
    "The last part of the chain to wear is the cassette.",
    "Below 5 °C the battery loses much of its range.",
    "This is why a pot needs a drainage hole.",
    "The guide rope must be tied before the climb.",
    "以下方法给出起点，之后按骑行感受每次微调 2–3 mm。",  # a quantity: a fact, whatever the opening
    "以下人群需要补充叶酸：备孕和孕早期的女性。",
    "秋冬日照变短，这时应减少或停止施肥。",
    "本品每片含维生素D 400 IU。",
    "How it is charged, stored and handled decides how long it keeps its range and whether it stays safe.",
    "How much you need depends on your age, and what you eat.",
    "When the water is cloudy, what you see is bacteria.",
    "How to adjust from there:",
]


@pytest.mark.parametrize("text", SIGNPOSTS)
def test_a_sentence_that_maps_its_text_is_a_signpost(text: str) -> None:
    assert is_signpost(text)


@pytest.mark.parametrize("text", FACTS)
def test_a_fact_is_not_a_signpost_whatever_it_opens_with(text: str) -> None:
    assert not is_signpost(text)


def test_the_answer_quotes_the_fact_not_the_summary_that_names_every_topic() -> None:
    """The summary says "winter" and "feeding" and "frequency": every word of the question, and no fact."""
    story = Source("c1", "u1", "story", "Feeding houseplants",
                   "This article covers fertiliser labels, how often to feed in spring and winter, and salt build-up. "
                   "Houseplants need nitrogen, phosphorus and potassium.", [], ["ref-a"], "public", "en")
    scene = Source("c2", "u2", "scene", "Feeding through the year",
                   "In winter, when light is weak, feed less often or stop until new leaves appear in spring.",
                   [], ["ref-b"], "public", "en")
    answer = extractive_answer("how often to feed houseplants in winter", "en", [story, scene])
    assert "This article covers" not in answer
    assert "feed less often or stop" in answer
