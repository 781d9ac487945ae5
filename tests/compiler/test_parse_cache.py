"""The parse cache: unchanged units skip chunking and hashing; any change to a unit, its story or the settings misses."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from unitrag.compiler.chunking import chunk_content
from unitrag.compiler.hashing import content_hash, meta_hash
from unitrag.compiler.parse_cache import FOLDER, cached_chunks
from unitrag.compiler.plan import hash_chunks
from unitrag.content import loader
from unitrag.content.validate import validate_content
from unitrag.errors import ContentInvalid

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(REPO / "content", root)
    return root


def plan_chunks(root: Path, budget: int, cache: Path | None):
    return cached_chunks(validate_content(root), budget, cache)


def test_cached_chunks_equal_fresh_ones_and_keep_their_hashes(content: Path, tmp_path: Path) -> None:
    fresh = hash_chunks(chunk_content(validate_content(content), 500))
    first, cache1 = plan_chunks(content, 500, tmp_path / "cache")
    second, cache2 = plan_chunks(content, 500, tmp_path / "cache")
    assert cache1.hits == 0 and cache1.misses == cache2.hits > 0 and cache2.misses == 0
    assert [(h.chunk.chunk_id, h.content_hash, h.meta_hash) for h in second] == \
        [(h.chunk.chunk_id, h.content_hash, h.meta_hash) for h in fresh]
    for h in second:  # what comes back from JSON hashes as it did when it was chunked
        assert content_hash(h.chunk) == h.content_hash and meta_hash(h.chunk) == h.meta_hash, h.chunk.chunk_id


def test_an_edited_file_misses_and_gives_its_new_text(content: Path, tmp_path: Path) -> None:
    plan_chunks(content, 500, tmp_path / "cache")
    rule = sorted((content / "rules").iterdir())[0]
    rule.write_text(rule.read_text(encoding="utf-8") + "\nAn added sentence about sodium.\n", encoding="utf-8")
    hashed, cache = plan_chunks(content, 500, tmp_path / "cache")
    assert cache.misses == 1
    edited = [h for h in hashed if h.chunk.source_path == f"rules/{rule.name}"]
    assert edited and "An added sentence about sodium." in edited[0].chunk.text_for_prompt


def test_another_chunk_budget_misses_everything(content: Path, tmp_path: Path) -> None:
    _, first = plan_chunks(content, 500, tmp_path / "cache")
    _, other = plan_chunks(content, 300, tmp_path / "cache")
    assert other.hits == 0 and other.misses == first.misses


def test_a_story_edit_misses_its_scenes_too(content: Path, tmp_path: Path) -> None:
    _, first = plan_chunks(content, 500, tmp_path / "cache")
    story = content / "stories" / "en-vitamin-b12.md"
    text = story.read_text(encoding="utf-8")
    story.write_text(text.replace("when to worry", "when to worry (revised)", 1), encoding="utf-8")
    checked = validate_content(content)
    assert not checked.problems
    hashed, cache = cached_chunks(checked, 500, tmp_path / "cache")
    scenes = len(list((content / "scenes" / "en-vitamin-b12").iterdir()))
    assert cache.misses == 1 + scenes, (cache.misses, scenes)
    assert all("(revised)" in h.chunk.text_for_embedding for h in hashed if h.chunk.story_id == "en-vitamin-b12" and h.chunk.kind == "scene")


def test_a_damaged_cache_file_is_an_empty_cache(content: Path, tmp_path: Path) -> None:
    plan_chunks(content, 500, tmp_path / "cache")
    for shard in (tmp_path / "cache" / FOLDER).glob("*.json"):
        shard.write_text("{not json", encoding="utf-8")
    _, cache = plan_chunks(content, 500, tmp_path / "cache")
    assert cache.hits == 0 and cache.misses > 0
    _, again = plan_chunks(content, 500, tmp_path / "cache")  # and it was rewritten
    assert again.misses == 0


def test_no_cache_folder_chunks_everything(content: Path) -> None:
    _, cache = plan_chunks(content, 500, None)
    assert cache.hits == 0 and cache.misses > 0


def test_a_build_reports_parse_cache_hits_and_full_ignores_the_cache(tiny) -> None:
    assert tiny.build().parse_cache == {"hits": 0, "misses": 2}
    assert tiny.build(dry_run=True).parse_cache == {"hits": 2, "misses": 0}
    assert tiny.build(dry_run=True, full=True).parse_cache == {"hits": 0, "misses": 2}


def _settle(root: Path) -> None:
    """Files last modified a minute ago: past the unit cache's racy-stat window."""
    past = time.time_ns() - 60 * 10**9
    for path in root.rglob("*"):
        os.utime(path, ns=(past, past))


def test_a_build_takes_unchanged_unit_files_from_the_unit_cache(tiny) -> None:
    _settle(tiny.content)
    assert tiny.build().unit_cache == {"unread": 0, "same_bytes": 0, "read": 2}
    assert tiny.build(dry_run=True).unit_cache == {"unread": 2, "same_bytes": 0, "read": 0}
    assert tiny.build(dry_run=True, full=True).unit_cache == {"unread": 0, "same_bytes": 0, "read": 2}


def test_an_invalid_build_replays_the_cached_problems_of_files_it_does_not_parse(tiny, monkeypatch) -> None:
    rule = sorted((tiny.content / "rules").iterdir())[0]
    rule.write_text(rule.read_text(encoding="utf-8").replace("severity:", "colour: blue\nseverity:", 1), encoding="utf-8")
    _settle(tiny.content)
    with pytest.raises(ContentInvalid) as first:
        tiny.build(dry_run=True)
    parsed: list[str] = []
    monkeypatch.setattr(loader, "load_yaml", lambda text: parsed.append(text) or pytest.fail("parsed again"))
    with pytest.raises(ContentInvalid) as again:
        tiny.build(dry_run=True)
    assert parsed == [] and [str(p) for p in again.value.problems] == [str(p) for p in first.value.problems]
    assert any(p.field == "colour" and p.path.endswith(rule.name) for p in again.value.problems)


def test_another_working_folder_hits_the_same_entries(content: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _, first = plan_chunks(content, 500, tmp_path / "cache")
    monkeypatch.chdir(content)  # the CLI run from another folder: other display paths, the same chunks
    _, again = plan_chunks(content, 500, tmp_path / "cache")
    assert first.misses > 0 and again.hits == first.misses and again.misses == 0
