"""A knowledge base refuses to search once its location holds a newer build (rag.store.freshness)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.store.freshness import Freshness, KnowledgeBaseStale, artifact_signature

pytestmark = pytest.mark.e2e


def test_a_file_renamed_over_the_artifact_is_news_and_a_missing_one_is_not(tmp_path: Path) -> None:
    path = tmp_path / "kb.duckdb"
    path.write_bytes(b"one build")
    fresh = Freshness.of(path, {}, artifact_signature(str(path)))
    assert fresh is not None
    fresh.check()  # the build loaded: nothing to say
    path.unlink()
    fresh.check()  # gone: what was loaded is still served
    (tmp_path / "new").write_bytes(b"another build")
    (tmp_path / "new").replace(path)
    with pytest.raises(KnowledgeBaseStale, match="kb.duckdb holds a newer build"):
        fresh.check()


def test_once_seen_a_newer_build_is_refused_at_every_check_not_only_the_one_that_saw_it() -> None:
    """A database's generation is read at most once a second: a check within that second of the one that saw the new
    publish passed, and served the old generation once more."""
    signature = ["one"]
    fresh = Freshness("postgresql://db/kb", "one", lambda: signature[0], every_s=3600.0)
    fresh.check()
    signature[0] = "two"
    fresh.check()  # within the second (here the hour): not read again, nothing known yet
    fresh._checked_at = float("-inf")
    for _ in range(3):
        with pytest.raises(KnowledgeBaseStale):
            fresh.check()


def test_a_knowledge_base_held_across_a_build_refuses_unless_told_to_serve_what_it_loaded(
        built_sample, tmp_path: Path) -> None:
    """An app's KnowledgeBase kept answering from the artifact it opened after a build renamed a new one over it."""
    artifact = tmp_path / "kb.duckdb"
    shutil.copy(built_sample[0].artifact, artifact)
    held, serving = KnowledgeBase.open(artifact), KnowledgeBase.open(artifact, refuse_stale=False)
    assert held.search("vitamin B12 foods").sources
    shutil.copy(built_sample[0].artifact, tmp_path / "next.duckdb")
    (tmp_path / "next.duckdb").replace(artifact)
    with pytest.raises(KnowledgeBaseStale, match="open it again with KnowledgeBase.open"):
        held.ask("Which foods contain vitamin B12?")
    assert serving.search("vitamin B12 foods").sources  # `unitrag serve` follows builds by itself
    with KnowledgeBase.open(artifact) as again:
        assert again.search("vitamin B12 foods").sources
    with pytest.raises(ValueError, match="refuse_stale"):
        KnowledgeBase.open(artifact, refuse_stale="no")  # type: ignore[arg-type]
    held.close(), serving.close()


def test_refuse_stale_none_is_the_default_and_every_public_reader_checks(built_sample, tmp_path: Path) -> None:
    """An attacker's: ``refuse_stale=None`` served the stale build, and ``example_questions``, ``check_user`` and
    ``screen`` went on answering after a newer build and after ``close()``."""
    from unitrag.rag.store.prompt_texts import KnowledgeBaseClosed
    from unitrag.rag.types import UserContext

    artifact = tmp_path / "kb.duckdb"
    shutil.copy(built_sample[0].artifact, artifact)
    kb = KnowledgeBase.open(artifact, refuse_stale=None)
    assert kb.example_questions()
    shutil.copy(built_sample[0].artifact, tmp_path / "next.duckdb")
    (tmp_path / "next.duckdb").replace(artifact)
    for read in (lambda: kb.search("vitamin B12 foods"), kb.example_questions, lambda: kb.check_user(UserContext()),
                 lambda: kb.screen("chest pain now", "en")):
        with pytest.raises(KnowledgeBaseStale):
            read()
    kb.close()
    with pytest.raises(KnowledgeBaseClosed):
        kb.example_questions()


def test_example_questions_read_roles_as_a_user_context_does(built_sample) -> None:
    """A role given as a string was matched as a substring ("xxclinicianxx") and a mapping by its keys: both returned
    clinician-only units' questions; an unknown role was ignored; ``per_lang=0`` divided by zero."""
    from unitrag.errors import InvalidArgument

    kb = KnowledgeBase.open(built_sample[0].artifact)
    assert kb.example_questions() and kb.example_questions(["clinician"])  # the restricted role itself is accepted
    for roles in ("xxclinicianxx", "clinician", {"clinician": None}, ["staff"], [" clinician"]):
        with pytest.raises(InvalidArgument, match="roles"):
            kb.example_questions(roles)  # type: ignore[arg-type]
    for per_lang in (0, "3", None, 2.5):
        with pytest.raises(InvalidArgument, match="per_lang"):
            kb.example_questions((), per_lang)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="question"):
        kb.screen(1, "en")  # type: ignore[arg-type]
    kb.close()
