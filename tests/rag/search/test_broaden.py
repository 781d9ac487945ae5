"""Broadening with the real content/topics.yaml and prompts/broaden.j2."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from unitrag.compiler.tables import topic_rows
from unitrag.content.models import Taxonomy
from unitrag.rag.search.broaden import Broadener

ROOT = Path(__file__).resolve().parents[3]
BROADEN_TEMPLATE = (ROOT / "prompts" / "broaden.j2").read_text(encoding="utf-8")


def load_rows(path: Path = ROOT / "content" / "topics.yaml") -> list[dict[str, Any]]:
    """topics.yaml in the shape of the artifact's topics table, as the build writes it."""
    return topic_rows(Taxonomy.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))))


ROWS = load_rows()
GROUP_MEMBERS = {r["id"]: r["members"] for r in ROWS if r["is_group"]}
B_VITAMINS = ["vitamin-b12", "folate", "vitamin-b6"]
MINERALS = ["calcium", "iron", "iodine", "sodium", "potassium"]


@pytest.fixture(scope="module")
def broadener() -> Broadener:
    return Broadener.from_rows(ROWS)


def test_taxonomy_groups_are_the_ones_tested():
    assert GROUP_MEMBERS["b-vitamins"] == B_VITAMINS and GROUP_MEMBERS["minerals"] == MINERALS


def test_chinese_group_question_becomes_one_query_per_member(broadener):
    b = broadener.expand("维生素B族都有什么用", "zh")
    assert b is not None
    assert (b.group, b.members, b.via) == ("b-vitamins", B_VITAMINS, "template")
    assert b.queries == ["维生素B12都有什么用", "叶酸都有什么用", "维生素B6都有什么用"]


def test_english_group_question_uses_english_names(broadener):
    b = broadener.expand("What do the B vitamins do?", "en")
    assert b is not None and b.members == B_VITAMINS
    assert b.queries == ["What do the vitamin B12 do?", "What do the folate do?", "What do the vitamin B6 do?"]


def test_mineral_question(broadener):
    b = broadener.expand("哪些矿物质最容易缺乏", "zh")
    assert b is not None and (b.group, b.members) == ("minerals", MINERALS)
    assert b.queries == [f"哪些{n}最容易缺乏" for n in ["钙", "铁", "碘", "钠", "钾"]]


@pytest.mark.parametrize(
    ("question", "lang", "group", "first_query"),
    [
        ("B族维生素对神经有什么好处", "zh", "b-vitamins", "维生素B12对神经有什么好处"),  # a synonym
        ("B-complex有什么用", "zh", "b-vitamins", "维生素B12有什么用"),  # English synonym, Chinese question
        ("Is a vitamin B complex worth taking?", "en", "b-vitamins", "Is a vitamin B12 worth taking?"),
        ("Which B vitamin helps with energy?", "en", "b-vitamins", "Which vitamin B12 helps with energy?"),  # singular
        ("Which minerals do vegans lack?", "en", "minerals", "Which calcium do vegans lack?"),
        ("Minerals: which are most often lacking?", "en", "minerals", "Calcium: which are most often lacking?"),
        ("无机盐有哪些作用", "zh", "minerals", "钙有哪些作用"),  # 盐 inside the group's own name is no member
        ("三高人群应该怎么吃", "zh", "cardiometabolic", "血压人群应该怎么吃"),
        ("what  foods improve HEART HEALTH", "en", "cardiometabolic", "what foods improve blood pressure"),
    ],
)
def test_group_synonyms_and_variants(broadener, question, lang, group, first_query):
    b = broadener.expand(question, lang)
    assert b is not None and b.group == group
    assert b.members == GROUP_MEMBERS[group] and len(b.queries) == len(b.members)
    assert b.queries[0] == first_query


@pytest.mark.parametrize(
    "question",
    [
        "is vitamin B12 one of the B vitamins?",
        "维生素B族里叶酸最重要吗",
        "Are minerals and iron the same thing?",
        "矿物质里钙和铁哪个更容易缺",
        "Is folic acid one of the B-complex vitamins?",  # a member's synonym
        "does salt raise blood pressure",
        "维生素B12缺乏有什么症状",
        "what does vitamin B do",  # not a taxonomy form
        "",
    ],
)
def test_specific_member_or_no_group_is_not_broadened(broadener, question):
    assert broadener.expand(question, "en") is None


def test_first_mentioned_group_wins(broadener):
    b = broadener.expand("Do minerals matter more than B vitamins?", "en")
    assert b is not None and b.group == "minerals"


def _rows_minimal() -> list[dict[str, Any]]:
    def topic(tid: str, en: str, zh: str, syn_en=(), members=()) -> dict[str, Any]:
        return {"id": tid, "is_group": bool(members), "name_en": en, "name_zh": zh, "synonyms_en": list(syn_en),
                "synonyms_zh": [], "members": list(members)}

    return [topic("potassium", "Potassium", "钾", ["K"]), topic("zinc", "Zinc", "锌"),
            topic("minerals", "Minerals", "矿物质", members=["potassium", "zinc"])]


def test_one_letter_synonyms_do_not_count_as_a_member_mention():
    b = Broadener.from_rows(_rows_minimal()).expand("Which minerals work with vitamin K?", "en")
    assert b is not None and b.queries == ["Which potassium work with vitamin K?", "Which zinc work with vitamin K?"]


def _rows_with_excludes(excludes: bool = True) -> list[dict[str, Any]]:
    def topic(tid: str, en: str, zh: str, members=(), excl=()) -> dict[str, Any]:
        return {"id": tid, "is_group": bool(members), "name_en": en, "name_zh": zh, "synonyms_en": [],
                "synonyms_zh": [], "members": list(members), "excludes": list(excl) if excludes else []}

    return [topic("iron", "Iron", "铁", excl=["高铁", "地铁"]), topic("zinc", "Zinc", "锌"),
            topic("minerals", "Minerals", "矿物质", members=["iron", "zinc"], excl=["矿物质水"])]


def test_a_group_name_inside_its_exclude_is_not_broadened_and_is_left_as_it_is():
    broadener = Broadener.from_rows(_rows_with_excludes())
    assert broadener.expand("矿物质水好喝吗", "zh") is None
    b = broadener.expand("矿物质水里的矿物质有用吗", "zh")
    assert b is not None and b.queries == ["矿物质水里的铁有用吗", "矿物质水里的锌有用吗"]
    unmasked = Broadener.from_rows(_rows_with_excludes(excludes=False))
    assert unmasked.expand("矿物质水好喝吗", "zh") is not None  # the exclude, not the name, decides


def test_a_member_name_inside_its_exclude_does_not_make_a_group_question_specific():
    question = "坐高铁时矿物质怎么补"
    b = Broadener.from_rows(_rows_with_excludes()).expand(question, "zh")
    assert b is not None and b.queries == ["坐高铁时铁怎么补", "坐高铁时锌怎么补"]
    assert Broadener.from_rows(_rows_with_excludes(excludes=False)).expand(question, "zh") is None  # 铁 in 高铁: a member


def test_an_llm_line_names_a_member_only_outside_its_excludes():
    reply = "坐高铁时吃什么\n怎么补锌\n怎么补铁"  # three lines for two members: assigned by the names they contain
    b = Broadener.from_rows(_rows_with_excludes()).expand_with_llm("矿物质怎么补", "zh", FakeLLM(reply), BROADEN_TEMPLATE)
    assert b is not None and (b.via, b.queries) == ("llm", ["怎么补铁", "怎么补锌"])
    b = Broadener.from_rows(_rows_with_excludes(excludes=False)).expand_with_llm(
        "矿物质怎么补", "zh", FakeLLM(reply), BROADEN_TEMPLATE)
    assert b is not None and b.queries[0] == "坐高铁时吃什么"


# --- with an LLM ------------------------------------------------------------------------------


class FakeLLM:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


def test_llm_prompt_is_the_rendered_template_in_the_question_language(broadener):
    llm = FakeLLM("")
    broadener.expand_with_llm("维生素B族都有什么用", "zh", llm, BROADEN_TEMPLATE)
    assert llm.prompts == ["把下面这个关于“维生素B族”的问题拆成每个成员各一个子问题，每行一个：维生素B12、叶酸、维生素B6。\n问题：维生素B族都有什么用"]
    llm = FakeLLM("")
    broadener.expand_with_llm("what do the B vitamins do", "en", llm, BROADEN_TEMPLATE)
    assert 'about "B vitamins"' in llm.prompts[0] and "Vitamin B12, Folate, Vitamin B6." in llm.prompts[0]
    assert "Question: what do the B vitamins do" in llm.prompts[0]


def test_an_oversized_broaden_template_falls_back_before_anything_is_allocated_or_sent(broadener):
    llm = FakeLLM("What does vitamin B12 do?\nWhat does folate do?\nWhat does vitamin B6 do?")
    b = broadener.expand_with_llm("what do the B vitamins do", "en", llm, "{{ 'a' * 1500000000 }}{{ question }}")
    assert llm.prompts == [] and b == broadener.expand("what do the B vitamins do", "en")


def test_llm_lines_are_matched_to_members_whatever_their_order_and_markup(broadener):
    reply = "Here are the sub-questions:\n\n1. What does folate do in the body?\n- What does vitamin B6 do?\n  • “What does vitamin B12 do?”\n"
    b = broadener.expand_with_llm("what do the B vitamins do", "en", FakeLLM(reply), BROADEN_TEMPLATE)
    assert b is not None and b.via == "llm" and b.members == B_VITAMINS
    assert b.queries == ["What does vitamin B12 do?", "What does folate do in the body?", "What does vitamin B6 do?"]


def test_llm_lines_without_member_names_are_taken_in_order_when_the_count_fits(broadener):
    reply = "（1）钴胺素的作用是什么\n（2）B9有什么用\n（3）吡哆醇有什么用\n"  # synonyms still name members
    b = broadener.expand_with_llm("维生素B族都有什么用", "zh", FakeLLM(reply), BROADEN_TEMPLATE)
    assert b is not None and b.via == "llm"
    assert b.queries == ["钴胺素的作用是什么", "B9有什么用", "吡哆醇有什么用"]
    reply = "第一个问题\n第二个问题\n第三个问题"
    b = broadener.expand_with_llm("维生素B族都有什么用", "zh", FakeLLM(reply), BROADEN_TEMPLATE)
    assert b is not None and b.queries == ["第一个问题", "第二个问题", "第三个问题"]


@pytest.mark.parametrize(
    "reply",
    [TimeoutError("no answer"), RuntimeError("no key"), "", "\n  \n", "only one line, naming nothing",
     "What does vitamin B12 do?\nWhat does folate do?"],  # a member missing and the count does not fit
)
def test_llm_failure_or_unusable_reply_falls_back_to_the_template(broadener, reply):
    b = broadener.expand_with_llm("维生素B族都有什么用", "zh", FakeLLM(reply), BROADEN_TEMPLATE)
    assert b == broadener.expand("维生素B族都有什么用", "zh")
    assert b is not None and b.via == "template"


def test_llm_is_not_called_for_a_question_that_is_not_broad(broadener):
    llm = FakeLLM("anything")
    assert broadener.expand_with_llm("is vitamin B12 one of the B vitamins?", "en", llm, BROADEN_TEMPLATE) is None
    assert llm.prompts == []


@pytest.mark.parametrize("template", ["{{ ''.__class__.__mro__ }}", "{% include 'other.j2' %}", "{{ nope }}"])
def test_a_template_that_escapes_the_sandbox_or_fails_falls_back_without_calling_the_llm(broadener, template):
    llm = FakeLLM("What does vitamin B12 do?\nWhat does folate do?\nWhat does vitamin B6 do?")
    b = broadener.expand_with_llm("what do the B vitamins do", "en", llm, template)
    assert llm.prompts == [] and b == broadener.expand("what do the B vitamins do", "en")


def test_mentions_ignore_case_in_ascii_and_beyond_it_when_a_name_needs_it():
    rows = [{"id": "dairy", "is_group": False, "name_en": "Crème fraîche", "name_zh": "法式酸奶油", "synonyms_en": ["Quark"],
             "synonyms_zh": [], "members": []},
            {"id": "vitamin-d", "is_group": False, "name_en": "Vitamin D", "name_zh": "维生素D", "synonyms_en": [],
             "synonyms_zh": [], "members": []}]
    topics = Broadener.from_rows(rows).topics
    assert topics["dairy"].mention.search("is CRÈME FRAÎCHE ok?") and topics["dairy"].mention.search("quark")
    assert topics["vitamin-d"].mention.search("VITAMIN D levels") and topics["vitamin-d"].mention.search("维生素d")
    assert topics["vitamin-d"].mention.flags & re.ASCII and not topics["dairy"].mention.flags & re.ASCII


def test_a_plural_after_a_number_names_the_topic(broadener):
    from unitrag.rag.search.crosslingual import CrossLingual

    xl = CrossLingual(broadener, frozenset({"en", "zh"}))
    assert "omega-3" in xl.topics_in("Is it true omega-3s lower blood pressure?")
    assert "vitamin-b12" not in xl.topics_in("B123 is a part number")


@pytest.mark.parametrize("question, topic", [
    ("vit D came back 18 ng/ml", "vitamin-d"), ("is vit. B12 safe", "vitamin-b12"), ("vitD3 dose?", "vitamin-d"),
    ("vit-D levels", "vitamin-d"), ("vitamin d", "vitamin-d"), ("vitamin-b12 shots", "vitamin-b12"),
    ("维D查出来120", "vitamin-d"), ("维他命D怎么补", "vitamin-d"), ("补维B12有用吗", "vitamin-b12"),
])
def test_a_vitamin_names_its_topic_in_everyday_shorthand(broadener, question, topic):
    from unitrag.rag.search.crosslingual import CrossLingual

    assert CrossLingual(broadener, frozenset({"en", "zh"})).topics_in(question) == [topic]


@pytest.mark.parametrize("question", ["revit D is a plug-in", "a vita drink", "vitae", "vitamin B complex capsules"])
def test_shorthand_stays_a_whole_word(broadener, question):
    from unitrag.rag.search.crosslingual import CrossLingual

    assert CrossLingual(broadener, frozenset({"en", "zh"})).topics_in(question) == []


@pytest.mark.parametrize(("question", "topic"), [
    ("How much Mg should I take for cramps?", "magnesium"),
    ("Is Zn good for a cold?", "zinc"),
    ("Are Epsom salt baths a way to get magnesium?", "magnesium"),
    ("low Fe and tired all the time", "iron"),
])
def test_element_symbols_and_lay_names_reach_their_topic(broadener, question, topic):
    assert broadener.topics[topic].find(question)


@pytest.mark.parametrize("question", ["Take 400 mg a day", "zn", "ZN", "the fe in the cafe"])
def test_an_element_symbol_keeps_its_case_so_a_unit_or_a_word_is_not_the_nutrient(broadener, question):
    assert not broadener.topics["magnesium"].find(question)
    assert not broadener.topics["zinc"].find(question)
    assert not broadener.topics["iron"].find(question)
