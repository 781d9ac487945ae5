"""Prompt rendering with the project's own templates (prompts/*.j2), as the artifact stores them."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.config import DEFAULT_NAME
from unitrag.rag.answer.prompt import (
    Identity,
    PromptError,
    TemplateMissing,
    build_messages,
    render_text,
)
from unitrag.rag.types import Source

PROMPTS = Path(__file__).resolve().parents[3] / "prompts"


@pytest.fixture(scope="module")
def templates() -> dict[str, str]:
    found = {path.stem: path.read_text(encoding="utf-8") for path in PROMPTS.glob("*.j2")}
    assert {"system", "user", "not_found", "refusal", "broaden"} <= set(found)
    return found


def source(n: int, title: str, text: str, ids: list[str], lang: str = "en") -> Source:
    return Source(f"c{n}", f"u{n}", "article", title, text, ["iodine"], ids, "public", lang)


ZH_SOURCES = [
    source(1, "孕期碘需求", '孕妇每天需要 230 微克碘。<Cite id="who2020"/>', ["who2020"], "zh"),
    source(2, "加碘盐", "加碘盐是主要来源。", ["cn2022", "who2020"], "zh"),
]
EN_SOURCES = [
    source(1, "Iodine in pregnancy", 'Pregnant women need 220 µg a day.<Cite id="iom2001"/>', ["iom2001"]),
    source(2, "Iodised salt", "Iodised salt is the main source.", ["who2014"]),
]


def test_chinese_prompt_puts_sources_before_the_question_and_rules_after(templates: dict[str, str]) -> None:
    question = "孕妇每天需要多少碘？"
    system, user = build_messages(question, "zh", ZH_SOURCES, templates)
    assert (system["role"], user["role"]) == ("system", "user")
    assert "用中文回答" in system["content"]
    text = user["content"]
    q = text.index(question)
    assert text.index("[1] 孕期碘需求") < text.index("孕妇每天需要 230 微克碘") < text.index("[2] 加碘盐") < text.index("加碘盐是主要来源") < q
    assert text.index("可引用 id：who2020") < q
    assert "可引用 id：cn2022, who2020" in text
    rules = text[q + len(question):]
    assert "资料中没有找到答案" in rules and '<Cite id="..."/>' in rules and "可引用 id" in rules


def test_english_prompt_puts_sources_before_the_question_and_rules_after(templates: dict[str, str]) -> None:
    question = "How much iodine does a pregnant woman need?"
    system, user = build_messages(question, "en", EN_SOURCES, templates)
    assert "Answer in English" in system["content"]
    text = user["content"]
    q = text.index(question)
    assert text.index("[1] Iodine in pregnancy") < text.index("need 220 µg") < text.index("[2] Iodised salt") < q
    assert "allowed citation ids: iom2001" in text and "allowed citation ids: who2014" in text
    rules = text[q + len(question):]
    assert "not found in the knowledge base" in rules and '<Cite id="..."/>' in rules and "allowed" in rules
    assert "资料" not in text


def test_a_regional_chinese_tag_renders_chinese(templates: dict[str, str]) -> None:
    assert "问题：" in build_messages("碘", "zh-CN", ZH_SOURCES, templates)[1]["content"]


def test_a_source_without_citation_ids_says_so(templates: dict[str, str]) -> None:
    user = build_messages("q?", "en", [source(1, "Untitled", "Some text.", [])], templates)[1]["content"]
    assert "allowed citation ids: (none)" in user


def test_the_question_is_data_not_template_code(templates: dict[str, str]) -> None:
    user = build_messages("what is {{ 7 * 7 }}?", "en", EN_SOURCES, templates)[1]["content"]
    assert "what is {{ 7 * 7 }}?" in user and "49" not in user


def test_not_found_and_refusal_render_in_the_questions_language(templates: dict[str, str]) -> None:
    garden = Identity("Garden club", "Growing vegetables on an allotment.")
    assert render_text("not_found", templates, lang="zh", identity=garden) == "抱歉，知识库“Garden club”中没有找到能回答这个问题的资料。"
    assert render_text("not_found", templates, lang="en", identity=garden) == \
        'Sorry, the knowledge base "Garden club" has nothing that answers this question.'
    assert "超出" in render_text("refusal", templates, lang="zh", identity=garden)
    assert render_text("refusal", templates, lang="en", identity=garden) == \
        'This question is outside the scope of the knowledge base "Garden club".'


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_system_prompt_says_the_knowledge_bases_name_and_description_and_no_domain_of_its_own(
        templates: dict[str, str], lang: str) -> None:
    garden = Identity("Garden club", "Growing vegetables on an allotment.")
    system = build_messages("q?", lang, EN_SOURCES, templates, identity=garden)[0]["content"]
    assert "Garden club" in system and "Growing vegetables on an allotment." in system
    assert not [word for word in ("health", "nutrition", "健康", "营养") if word in system.lower()]
    unnamed = build_messages("q?", lang, EN_SOURCES, templates)[0]["content"]  # no description: no empty clause
    assert "What it covers" not in unnamed and "它的内容" not in unnamed and DEFAULT_NAME in unnamed


def test_a_missing_template_is_named(templates: dict[str, str]) -> None:
    without_user = {k: v for k, v in templates.items() if k != "user"}
    with pytest.raises(TemplateMissing, match="'user'") as caught:
        build_messages("q?", "en", EN_SOURCES, without_user)
    assert caught.value.name == "user"
    with pytest.raises(TemplateMissing, match="'not_found'.*prompts"):
        render_text("not_found", {}, lang="en")


def test_an_undefined_variable_is_an_error_not_an_empty_string() -> None:
    with pytest.raises(PromptError, match="'user'.*questoin"):
        build_messages("q?", "en", EN_SOURCES, {"system": "ok", "user": "{{ questoin }}"})


@pytest.mark.parametrize(
    "template",
    [
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ sources[0].__class__ }}",
        "{{ cycler.__init__.__globals__ }}",
    ],
)
def test_templates_cannot_reach_python_internals(template: str) -> None:
    with pytest.raises(PromptError, match="'user'"):
        build_messages("q?", "en", EN_SOURCES, {"system": "ok", "user": template})


def test_a_syntax_error_names_the_template() -> None:
    with pytest.raises(PromptError, match="'system'.*syntax error"):
        build_messages("q?", "en", EN_SOURCES, {"system": "{% if %}", "user": "ok"})


# -- the prompt budget (max_prompt_chars) ---------------------------------------------------


def test_a_prompt_over_the_budget_is_a_prompt_error_not_a_huge_prompt(templates: dict[str, str]) -> None:
    hostile = {**templates, "user": 'Sources:\n{{ "a" * 100000000 }}'}  # built into an artifact before the fix
    with pytest.raises(PromptError, match="100,000,000 characters.*max_prompt_chars"):
        build_messages("How much iodine?", "en", EN_SOURCES, hostile)


def test_the_budget_covers_both_messages_together(templates: dict[str, str]) -> None:
    system, user = build_messages("How much iodine?", "en", EN_SOURCES, templates)
    total = len(system["content"]) + len(user["content"])
    assert build_messages("How much iodine?", "en", EN_SOURCES, templates, max_chars=total + 50) == [system, user]
    with pytest.raises(PromptError, match="over the budget"):
        build_messages("How much iodine?", "en", EN_SOURCES, templates, max_chars=total - 1)


def test_sources_too_long_for_the_budget_are_an_error_before_any_llm_call(templates: dict[str, str]) -> None:
    from collections.abc import Iterator

    from unitrag.providers.llm import LLM
    from unitrag.rag.answer.citations import check_citations
    from unitrag.rag.answer.generate import generate_answer

    class Recording(LLM):
        provider = "recording"
        calls: list[list[dict[str, str]]] = []

        def complete(self, messages: list[dict[str, str]], *, stream: bool = False) -> str | Iterator[str]:
            self.calls.append(messages)
            return 'About 220 µg.<Cite id="iom2001"/>'

    from unitrag.rag.answer.generate import stream_answer

    hostile = {**templates, "user": '{% for i in range(5000) %}{{ sources[0].text }}{% endfor %}'}
    llm, allowed = Recording("m"), {"iom2001", "who2014"}
    generation = generate_answer("How much iodine?", "en", EN_SOURCES, hostile, llm, allowed, check_citations)
    assert generation.extractive and llm.calls == []
    assert "max_prompt_chars" in (generation.error or "")
    # the configured budget reaches ask: the project's own templates, with a budget too small for them
    generation = generate_answer("How much iodine?", "en", EN_SOURCES, templates, llm, allowed, check_citations, 200)
    assert generation.extractive and llm.calls == [] and "budget of 200 characters" in (generation.error or "")
    stream = stream_answer("How much iodine?", "en", EN_SOURCES, templates, llm, allowed, check_citations, 200)
    assert "".join(stream) and stream.generation is not None and stream.generation.extractive and llm.calls == []
    assert generate_answer("How much iodine?", "en", EN_SOURCES, templates, llm, allowed, check_citations,
                           5_000).extractive is False


def test_render_text_takes_its_budget(templates: dict[str, str]) -> None:
    assert render_text("not_found", templates, lang="en")
    with pytest.raises(PromptError, match="budget of 10 characters"):
        render_text("not_found", templates, max_chars=10, lang="en")
