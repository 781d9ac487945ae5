"""The unit cache: unchanged files are not parsed again, yet every problem and every cross-file check is as fresh."""

from __future__ import annotations

import json
import os
import time
from datetime import date
from pathlib import Path

import pytest

from unitrag.content import body_script, loader, unit_cache
from unitrag.content.cache_shards import shard_of
from unitrag.content.unit_cache import FOLDER, RACY_NS, UnitCache
from unitrag.content.validate import validate_content


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every unit frontmatter the loader hands to the YAML parser, in order."""
    seen: list[str] = []
    real = loader.load_yaml

    def counting(text: str):
        seen.append(text)
        return real(text)

    monkeypatch.setattr(loader, "load_yaml", counting)
    return seen


def settle(root: Path) -> None:
    """Every file's mtime a minute ago: past the racy window, as for files not edited just now."""
    past = time.time_ns() - 60 * 10**9
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))


def stat_at(mtime_ns: int) -> os.stat_result:
    """A 120-byte file's stat, modified at ``mtime_ns``."""
    s = mtime_ns // 10**9
    return os.stat_result((0o100644, 7, 1, 1, 0, 0, 120, s, s, s, s, s, s, mtime_ns, mtime_ns, mtime_ns))


def check(root: Path, cache_dir: Path, **kwargs):
    cache = UnitCache(cache_dir)
    content = validate_content(root, cache=cache, **kwargs)
    cache.save()
    return content, cache


def summary(content) -> tuple:
    units = [(lu.id, lu.path, lu.rel_path, lu.file_hash, lu.body, lu.body_line, lu.unit, lu.scripts) for lu in content.units]
    return units, [str(p) for p in content.problems], content.complete


def test_a_second_run_parses_no_unchanged_file_and_gives_the_same_result(tree, parses, tmp_path):
    settle(tree.root)
    first, cold = check(tree.root, tmp_path / "cache")
    assert cold.misses == 4 and len(parses) == 4
    parses.clear()
    second, warm = check(tree.root, tmp_path / "cache")
    assert parses == [] and (warm.stat_hits, warm.hash_hits, warm.misses) == (4, 0, 0)
    assert summary(second) == summary(first) == summary(validate_content(tree.root))


def test_a_warm_run_judges_each_units_language_without_counting_its_letters_again(tree, monkeypatch, tmp_path):
    settle(tree.root)
    tree.write("stories/en-mislabelled.md", "---\nkind: story\nid: en-mislabelled\ntitle: T\nlang: en\n---\n"
               + "维生素B12主要存在于动物性食物中，素食者需要注意补充。" * 3 + "\n")
    settle(tree.root)
    first, _ = check(tree.root, tmp_path / "cache")
    counted: list[str] = []
    real = body_script.count_scripts
    monkeypatch.setattr(body_script, "count_scripts", lambda text: counted.append(text) or real(text))
    second, warm = check(tree.root, tmp_path / "cache")
    assert warm.misses == 0 and counted == []  # the counts came back with each cached unit
    wrong = [str(p) for p in second.problems if p.field == "lang"]
    assert wrong == [str(p) for p in first.problems if p.field == "lang"] and "mostly Chinese" in wrong[0]


def test_a_file_touched_but_not_changed_is_read_once_and_not_parsed(tree, parses, tmp_path):
    settle(tree.root)
    check(tree.root, tmp_path / "cache")
    parses.clear()
    os.utime(tree.root / "rules" / "rule-one.md")  # now: another stat, the same bytes
    _, cache = check(tree.root, tmp_path / "cache")
    assert parses == [] and (cache.stat_hits, cache.hash_hits, cache.misses) == (3, 1, 0)


def test_every_change_to_a_files_bytes_is_seen_even_with_its_size_and_mtime_kept(tree, samples, parses, tmp_path):
    settle(tree.root)
    check(tree.root, tmp_path / "cache")
    rule = tree.root / "rules" / "rule-one.md"
    before = rule.stat()
    edited = samples.RULE.replace("Your B12 is low", "Your B12 is LOW")  # same size
    rule.write_text(edited, encoding="utf-8")
    os.utime(rule, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back: the ctime still moves
    parses.clear()
    content, cache = check(tree.root, tmp_path / "cache")
    assert cache.misses == 1 and len(parses) == 1
    assert next(lu.body for lu in content.units if lu.id == "rule-one").startswith("Your B12 is LOW")


def test_a_file_modified_within_the_racy_window_is_hashed_again() -> None:
    cache = UnitCache(None)
    now = time.time_ns()
    fresh, old = stat_at(now), stat_at(now - 2 * RACY_NS)
    cache.put("a.md", fresh, "sha-a", None, [])
    cache.put("b.md", old, "sha-b", None, [])
    cache._old = cache._new  # as the next run reads them
    assert cache.by_stat("a.md", fresh) is None  # the same stat, but it could hide an edit in the same tick
    assert cache.by_stat("b.md", old) is not None and cache.by_stat("b.md", old).sha == "sha-b"
    assert cache.by_hash("a.md", fresh, "sha-a") is not None  # its bytes, read again, are what was recorded
    assert cache.by_hash("a.md", fresh, "sha-other") is None


def test_a_file_written_just_now_is_not_trusted_by_its_stat_on_the_next_run(tree, parses, tmp_path):
    check(tree.root, tmp_path / "cache")  # the files were written a moment ago: all racy
    parses.clear()
    _, cache = check(tree.root, tmp_path / "cache")
    assert parses == [] and (cache.stat_hits, cache.hash_hits) == (0, 4)


def test_problems_of_an_unchanged_file_are_reported_on_every_run_at_their_lines(tree, samples, parses, tmp_path, monkeypatch):
    bad = samples.SCENE.replace("order: 1", "order: 0\ncolour: blue") + 'And <cite id="x">.\n'
    tree.write("scenes/story-one/01-scene-one.md", bad)
    tree.write("documents/broken.md", "---\nkind: [unclosed\n---\nText.\n")
    tree.write("documents/latin1.md", samples.DOCUMENT.encode().replace(b"Plain", b"Pl\xe9in"))
    settle(tree.root)
    fresh = [str(p) for p in validate_content(tree.root).problems]
    assert [p.split(": ")[0] + ": " + p.split(": ")[1] for p in fresh] == [
        "content/documents/broken.md:2: frontmatter",  # YAML syntax: the line the unclosed "[" opens on
        "content/documents/latin1.md:12: file",  # not UTF-8
        "content/scenes/story-one/01-scene-one.md:6: order",  # schema
        "content/scenes/story-one/01-scene-one.md:7: colour",  # unknown field
        "content/scenes/story-one/01-scene-one.md:12: body",  # malformed citation tag
    ]
    first, _ = check(tree.root, tmp_path / "cache")
    parses.clear()
    for _ in range(2):
        again, cache = check(tree.root, tmp_path / "cache")
        assert parses == [] and cache.misses == 0
        assert [str(p) for p in again.problems] == [str(p) for p in first.problems] == fresh
        assert again.complete is False
    monkeypatch.chdir(tree.root)  # another working folder: the same problems, under the paths it shows
    moved = [str(p) for p in check(Path("."), tmp_path / "cache")[0].problems]
    assert moved == [p.removeprefix("content/") for p in fresh]


def test_a_cross_file_problem_from_editing_another_file_is_found(tree, samples, parses, tmp_path):
    settle(tree.root)
    assert check(tree.root, tmp_path / "cache")[0].problems == []
    tree.write("citations/a.yaml", samples.CITATIONS.split("- id: cit-b")[0])  # cit-b leaves the registry
    tree.write("stories/story-two.md", samples.STORY.replace("story-one", "story-two").replace("cit-a", "cit-b"))
    tree.remove("stories/story-one.md")  # the scene's story is gone
    parses.clear()
    content, cache = check(tree.root, tmp_path / "cache")
    assert cache.misses == 1 and len(parses) == 1  # only the new unit was parsed
    assert [(p.path, p.line, p.field) for p in content.problems] == [
        ("content/scenes/story-one/01-scene-one.md", 5, "story"),
        ("content/scenes/story-one/01-scene-one.md", 8, "citationIds"),
        ("content/stories/story-two.md", 8, "citationIds"),
    ]
    entries = {k for shard in (tmp_path / "cache" / FOLDER).glob("*.json")
               for k in json.loads(shard.read_text(encoding="utf-8"))["entries"]}
    assert "stories/story-one.md" not in entries and "stories/story-two.md" in entries


def test_a_smaller_max_unit_bytes_refuses_an_unchanged_cached_unit(tree, tmp_path):
    settle(tree.root)
    check(tree.root, tmp_path / "cache")
    content, _ = check(tree.root, tmp_path / "cache", max_unit_bytes=100)
    assert {p.path for p in content.problems if "max_unit_bytes" in p.message} == {
        f"content/{rel}" for rel in ("stories/story-one.md", "scenes/story-one/01-scene-one.md", "rules/rule-one.md",
                                     "documents/doc-one.md")}


def test_dates_in_the_frontmatter_come_back_as_dates(tree, samples, tmp_path):
    tree.write("stories/story-one.md", samples.STORY.replace("lang: en", "lang: en\nupdated: 2024-05-01"))
    settle(tree.root)
    check(tree.root, tmp_path / "cache")
    content, cache = check(tree.root, tmp_path / "cache")
    story = next(lu for lu in content.units if lu.id == "story-one")
    assert cache.misses == 0 and story.meta["updated"] == date(2024, 5, 1) and story.unit.updated == date(2024, 5, 1)


def shard_file(cache_dir: Path, rel: str) -> Path:
    return cache_dir / FOLDER / f"{shard_of(rel):02d}.json"


@pytest.mark.parametrize("damage", [
    "{not json",
    '{"settings": "other", "entries": {}}',
    "CURRENT-SETTINGS-BAD-ENTRIES",
])
def test_a_damaged_cache_is_ignored_and_rewritten(tree, parses, tmp_path, damage):
    settle(tree.root)
    first, _ = check(tree.root, tmp_path / "cache")
    shards = sorted((tmp_path / "cache" / FOLDER).glob("*.json"))
    assert shards
    if damage == "CURRENT-SETTINGS-BAD-ENTRIES":  # JSON this code could have read, with entries no code wrote
        for rel, spoil in (
            ("stories/story-one.md", lambda e: e["unit"].clear()),  # fields missing
            ("rules/rule-one.md", lambda e: e["unit"].update(meta={"kind": "rule"})),  # "valid" fields that are not
            ("documents/doc-one.md", lambda e: e.update(problems="nothing")),
            ("scenes/story-one/01-scene-one.md", lambda e: e.update(sha=[1, 2])),
        ):
            path = shard_file(tmp_path / "cache", rel)
            data = json.loads(path.read_text(encoding="utf-8"))
            spoil(data["entries"][rel])
            path.write_text(json.dumps(data), encoding="utf-8")
    else:
        for path in shards:
            path.write_text(damage, encoding="utf-8")
    parses.clear()
    again, _ = check(tree.root, tmp_path / "cache")
    assert summary(again) == summary(first) and len(parses) == 4
    parses.clear()
    _, rewritten = check(tree.root, tmp_path / "cache")
    assert parses == [] and rewritten.misses == 0


def test_an_edit_rewrites_only_the_shard_holding_that_file(tree, samples, tmp_path):
    settle(tree.root)
    check(tree.root, tmp_path / "cache")
    before = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "cache" / FOLDER).glob("*.json")}
    time.sleep(0.01)
    tree.write("rules/rule-one.md", samples.RULE.replace("Your B12 is low", "Your B12 is quite low"))
    check(tree.root, tmp_path / "cache")
    after = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "cache" / FOLDER).glob("*.json")}
    assert after.keys() == before.keys()
    assert [name for name in after if after[name] != before[name]] == [shard_file(tmp_path / "cache", "rules/rule-one.md").name]


def test_another_parser_version_reads_every_file_again(tree, parses, tmp_path, monkeypatch):
    settle(tree.root)
    check(tree.root, tmp_path / "cache")
    monkeypatch.setattr(unit_cache, "UNIT_CACHE_VERSION", unit_cache.UNIT_CACHE_VERSION + 1)
    parses.clear()
    _, cache = check(tree.root, tmp_path / "cache")
    assert cache.misses == 4 and len(parses) == 4


@pytest.mark.parametrize("where", ["under a file", "/dev/null"])
def test_a_cache_folder_that_cannot_be_a_folder_is_a_warning_not_a_traceback(tree, tmp_path, capsys, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    cache_dir = blocker / "cache" if where == "under a file" else Path("/dev/null")
    first, _ = check(tree.root, cache_dir)  # saving: the shard's temporary file cannot be removed either (ENOTDIR)
    assert capsys.readouterr().err.count("warning: unit cache not saved") == 1
    again, cache = check(tree.root, cache_dir)
    assert summary(again) == summary(first) and cache.misses == len(first.units)  # worked out again, same result
    assert blocker.read_text(encoding="utf-8") == "a file where the cache folder should be"
