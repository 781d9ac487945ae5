"""A unit's text against its ``lang``: only a clear contradiction is a problem, mixed units pass."""

from __future__ import annotations

import pytest

from unitrag.content.body_script import ScriptCount, count_scripts, lang_contradiction
from unitrag.content.validate import validate_content

ZH = "维生素B12主要存在于动物性食物中，例如肉类、鱼类、蛋类和奶制品。长期素食的人容易缺乏，应定期检查血清水平并在医生指导下补充。"
EN = ("Vitamin B12 is found mainly in animal foods such as meat, fish, eggs and dairy. People who have eaten a "
      "vegan diet for years can run low, so they should have their serum level checked and supplement as advised.")


@pytest.mark.parametrize(("text", "lang"), [
    (EN, "en"),
    (ZH, "zh"),
    # mixed on purpose: an English unit naming Chinese foods, a Chinese one full of markers and quantities
    (EN + " Congee (粥) and tofu (豆腐) are common breakfast foods in China.", "en"),
    (("成人每日推荐摄入量为2.4 µg（2.4 mcg），eGFR低于60 mL/min/1.73m²时应咨询医生，HbA1c和vitamin B12也需要复查。"
      "孕妇每天需要额外补充叶酸400 µg，并多吃绿叶蔬菜。"), "zh"),
    # code, URLs and citation tags carry no language
    ((ZH + "\n```python\nprint('hello world, this is a long English code sample that says nothing')\n```\n"
      "https://www.example.org/a-very-long-english-path/with-many-words-in-it <Cite id=\"cit-english-paper-title\"/>"), "zh"),
    ("Plain text.", "zh"),  # too short to judge
])
def test_a_body_in_its_own_language_or_mixing_scripts_passes(text: str, lang: str) -> None:
    assert lang_contradiction(text, lang) is None


def test_a_body_clearly_in_the_other_language_is_named_with_what_to_do() -> None:
    assert lang_contradiction(ZH, "en").startswith("lang is 'en' but the text is mostly Chinese (")
    assert "set `lang: zh`" in lang_contradiction(ZH, "en")
    assert "set `lang: en`" in lang_contradiction(EN, "zh")


def test_quantities_and_unit_symbols_are_not_counted_as_letters() -> None:
    assert count_scripts("200 pg/mL, 2.4µg, 5%, 60 mL/min").latin == 0
    assert count_scripts("eGFR").latin == 4  # a marker's name is prose
    code_urls_tags = ("```python\nprint('hello')\n```\n`inline code` https://www.example.org/some/path "
                      "www.example.com/x name@example.org <Cite id=\"devalia-2014\"/> <br/>")
    assert count_scripts(code_urls_tags) == count_scripts("") == ScriptCount(0, 0)


def test_validate_reports_a_mismatch_on_the_lang_line_and_a_scene_on_its_story(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("Your B12 is low <Cite id=\"cit-a\"/>.", ZH))
    tree.write("stories/story-one.md", samples.STORY.replace("lang: en", "lang: zh").replace(
        "An introduction", "维生素B12的故事：为什么素食者需要关注它，以及如何在日常饮食中获得足够的维生素B12。"))
    tree.write("scenes/story-one/01-scene-one.md", samples.SCENE.replace("Scene text", EN))
    problems = {(p.path, p.line, p.field): p.message for p in validate_content(tree.root).problems}
    assert set(problems) == {("content/rules/rule-one.md", 5, "lang"), ("content/scenes/story-one/01-scene-one.md", 10, "lang")}
    assert "mostly Chinese" in problems[("content/rules/rule-one.md", 5, "lang")]
    assert "takes lang 'zh' from story 'story-one'" in problems[("content/scenes/story-one/01-scene-one.md", 10, "lang")]
