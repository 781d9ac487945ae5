"""The artifact carries the knowledge base's name and description, so an app that opens it alone still says them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from unitrag.config import Config
from unitrag.rag.answer.prompt import render_text
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.store.artifact_store import ChunkStore


def test_an_app_without_unitrag_toml_names_the_knowledge_base_as_built(tiny) -> None:
    tiny.build(replace(tiny.config, name="Garden care", description="Growing vegetables at home."))
    assert ChunkStore.load(tiny.artifact).manifest["identity"] == {
        "name": "Garden care", "description": "Growing vegetables at home.", "languages": ["en", "zh"],
        "restricted_role": "clinician"}
    kb = KnowledgeBase.open(tiny.artifact, embedder=tiny.embedder)  # Config(): no name of its own
    assert (kb.identity.name, kb.identity.description) == ("Garden care", "Growing vegetables at home.")
    refusal = render_text("not_found", kb.store.prompts, max_chars=kb.config.max_prompt_chars, identity=kb.identity,
                          lang="en")
    assert "Garden care" in refusal  # "not found" names it
    # the LLM prompts outside the templates say it too: the guard's second opinion, the query translation
    assert '"Garden care" (Growing vegetables at home)' in kb.guard.second_opinion.service
    with_llm = KnowledgeBase.open(tiny.artifact, embedder=tiny.embedder,
                                  config=Config(llm="litellm:openai/gpt-4o-mini", translate_queries=True))
    assert '"Garden care"' in with_llm.retriever.translator.service
    own = KnowledgeBase.open(tiny.artifact, embedder=tiny.embedder, config=Config(name="Allotment helper"))
    assert own.identity.name == "Allotment helper"  # a name the app's config sets wins


def test_a_chinese_not_found_names_the_knowledge_base_by_its_chinese_name_as_built(tiny) -> None:
    """A mostly-Chinese team's "not found" said its English name in Chinese sentences: each language may have its own."""
    tiny.build(replace(tiny.config, name="Tenants' help desk", name_zh="租客帮助台", description_zh="租房问题解答。"))
    identity = ChunkStore.load(tiny.artifact).manifest["identity"]
    assert identity["localized"] == {"zh": {"name": "租客帮助台", "description": "租房问题解答。"}}
    kb = KnowledgeBase.open(tiny.artifact, embedder=tiny.embedder)  # no config of its own: as built
    said = {lang: render_text("not_found", kb.store.prompts, identity=kb.identity, lang=lang) for lang in ("zh", "en")}
    assert "租客帮助台" in said["zh"] and "Tenants' help desk" not in said["zh"]
    assert "Tenants' help desk" in said["en"]
    assert not tiny.build(replace(tiny.config, name="Tenants' help desk", name_zh="租客帮助台",
                                  description_zh="租房问题解答。")).written
    report = tiny.build(replace(tiny.config, name="Tenants' help desk", name_zh="租房帮助"))
    assert report.written and report.embedded == 0  # a new Chinese name is a rename: written, nothing embedded


def test_an_identity_without_names_per_language_records_none(tiny) -> None:
    tiny.build(replace(tiny.config, name="Garden care"))  # artifacts built before these keys keep their identity hash
    assert "localized" not in ChunkStore.load(tiny.artifact).manifest["identity"]


def test_renaming_the_knowledge_base_writes_the_artifact_again_without_embedding(tiny) -> None:
    tiny.build(replace(tiny.config, name="Garden care"))
    assert not tiny.build(replace(tiny.config, name="Garden care")).written
    report = tiny.build(replace(tiny.config, name="Allotment care"))
    assert report.written and report.embedded == 0 and "identity" in report.plan.tables_changed
    assert ChunkStore.load(tiny.artifact).manifest["identity"]["name"] == "Allotment care"


def test_an_app_without_unitrag_toml_answers_in_the_languages_and_role_it_was_built_with(tiny) -> None:
    """An app developer's audit: the library answered a Chinese-only knowledge base in English, where `unitrag ask`
    answered in Chinese, because the languages lived in unitrag.toml only. The artifact records them, and the role
    (here an English-only one: its rules are English)."""
    from unitrag.errors import InvalidArgument
    from unitrag.rag.types import UserContext

    tiny.build(replace(tiny.config, languages=("en",), restricted_role="staff"))
    kb = KnowledgeBase.open(tiny.artifact, embedder=tiny.embedder)  # Config(): the defaults, en and zh
    assert kb.languages == ("en",) and kb._answer_lang("血压高怎么办？") == "en"
    assert kb.restricted_role == "staff" and kb.known.roles == ("staff",)
    with pytest.raises(InvalidArgument, match="unknown role 'clinician'.*'staff'"):
        kb.check_user(UserContext(roles=["clinician"]))
    assert kb.check_user(UserContext(roles=["staff"])).roles == ("staff",)
    own = KnowledgeBase.open(tiny.artifact, embedder=tiny.embedder, config=Config(languages=("zh",)))
    assert own.languages == ("zh",)  # languages the app's config sets win
