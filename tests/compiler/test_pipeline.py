"""The build on a tiny workspace with a fake embedder: what it refuses, and what it never re-embeds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from unitrag.errors import UserError

REPO = Path(__file__).resolve().parents[2]


def test_converting_a_unit_to_crlf_plans_no_change(tiny) -> None:
    assert tiny.build().written
    for unit in (tiny.content / "rules").iterdir():
        unit.write_bytes(unit.read_bytes().replace(b"\n", b"\r\n"))
    plan = tiny.build(dry_run=True).plan
    assert plan.is_noop and len(plan.unchanged) == 2, plan.to_dict()


def _remove_units(tiny) -> None:
    for unit in (tiny.content / "rules").iterdir():
        unit.unlink()


def test_replacing_every_unit_with_new_ones_is_an_ordinary_build(tiny) -> None:
    tiny.build()
    _remove_units(tiny)
    shutil.copy(REPO / "content" / "rules" / "en-blood-pressure-stage-2.md", tiny.content / "rules")
    report = tiny.build()
    assert report.written and len(report.plan.deleted) == 2 and report.plan.new


def test_a_build_that_leaves_no_unit_is_refused_and_the_artifact_kept(tiny) -> None:
    tiny.build()
    before = tiny.artifact.read_bytes()
    _remove_units(tiny)
    for dry_run in (True, False):
        with pytest.raises(UserError, match="--allow-empty") as caught:
            tiny.build(dry_run=dry_run)
        assert "has no units" in str(caught.value) and "the last build" in str(caught.value)
    assert tiny.artifact.read_bytes() == before
    report = tiny.build(allow_empty=True)
    assert report.written and report.chunks == 0 and len(report.plan.deleted) == 2


def test_an_empty_artifact_is_never_written_without_allow_empty(tiny) -> None:
    _remove_units(tiny)
    with pytest.raises(UserError, match="--allow-empty"):
        tiny.build()
    assert not tiny.artifact.exists()
    assert tiny.build(allow_empty=True).written and tiny.artifact.exists()


def test_an_output_path_that_cannot_be_created_fails_before_embedding(tiny) -> None:
    (tiny.root / "a-file").write_text("not a folder", encoding="utf-8")
    config = tiny.config.with_overrides(artifact=tiny.root / "a-file" / "kb.duckdb")
    with pytest.raises(UserError, match="cannot write the artifact"):
        tiny.build(config)
    assert tiny.embedder.calls == 0


def test_a_damaged_previous_artifact_is_refused_with_a_hint_and_kept_until_full_replaces_it(tiny) -> None:
    from unitrag.artifact.reader import read_previous

    tiny.build()
    calls = tiny.embedder.calls  # the chunks, and the guard's examples
    tiny.artifact.write_bytes(tiny.artifact.read_bytes()[: 2**20])
    damaged = tiny.artifact.read_bytes()
    for dry_run in (True, False):
        with pytest.raises(UserError, match=r"(damaged |cannot be opened).*unitrag build --full"):
            tiny.build(dry_run=dry_run)
    assert tiny.artifact.read_bytes() == damaged and tiny.embedder.calls == calls
    assert tiny.build(full=True).written
    assert len(read_previous(tiny.artifact).chunks) == 2


def test_a_unit_over_max_unit_bytes_fails_the_build_naming_it(tiny) -> None:
    from unitrag.config import Config
    from unitrag.errors import ContentInvalid

    assert Config().max_unit_bytes == 200_000
    largest = max((tiny.content / "rules").iterdir(), key=lambda p: p.stat().st_size)
    with pytest.raises(ContentInvalid) as caught:
        tiny.build(tiny.config.with_overrides(max_unit_bytes=largest.stat().st_size - 1), dry_run=True)
    assert [(p.path, p.field) for p in caught.value.problems] == [(f"content/rules/{largest.name}", "file")]


def test_a_build_records_its_rate_and_the_next_plan_estimates_with_it(tiny) -> None:
    from unitrag.artifact.reader import read_previous

    for i in range(10):  # enough chunks for a measured rate
        text = (tiny.content / "rules" / "en-blood-pressure-severe.md").read_text(encoding="utf-8")
        (tiny.content / "rules" / f"copy-{i}.md").write_text(
            text.replace("id: en-blood-pressure-severe", f"id: copy-{i}").replace("180 mmHg", f"18{i} mmHg"), encoding="utf-8")
    assert tiny.build().embedded == 12
    assert read_previous(tiny.artifact).embed_rate > 0
    (tiny.content / "rules" / "copy-0.md").write_text(
        (tiny.content / "rules" / "copy-0.md").read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    estimate = tiny.build(dry_run=True).to_dict()["estimate"]
    assert estimate["chunks"] == 1 and estimate["source"] == "last build" and estimate["seconds"] is not None


def test_a_broken_prompt_template_fails_the_build_naming_it(tiny) -> None:
    from unitrag.errors import ContentInvalid

    tiny.build()
    before = tiny.artifact.read_bytes()
    (tiny.root / "prompts" / "user.j2").write_text("{{ question }}\n{% include 'evil.j2' %}\n", encoding="utf-8")
    with pytest.raises(ContentInvalid) as caught:
        tiny.build()
    assert [(p.path, p.line, p.field) for p in caught.value.problems] == [("prompts/user.j2", 2, "template")]
    assert tiny.artifact.read_bytes() == before


def test_topic_excludes_reach_the_artifact_and_an_artifact_older_than_them_still_opens(tiny) -> None:
    import duckdb
    import yaml

    from unitrag.artifact.schema import MIGRATIONS
    from unitrag.rag.search.crosslingual import CrossLingual
    from unitrag.rag.store.artifact_store import ChunkStore

    [version] = [v for v, (description, _) in enumerate(MIGRATIONS, start=1) if description.startswith("topics.excludes")]
    topics_file = tiny.content / "topics.yaml"
    data = yaml.safe_load(topics_file.read_text(encoding="utf-8"))
    iron = next(t for t in data["topics"] if t["id"] == "iron")
    iron["excludes"] = ["高铁", "地铁"]
    for t in data["topics"] + data.get("groups", []):
        if t["id"] != "iron":
            t.pop("excludes", None)  # whatever content/topics.yaml holds today: only iron's here
    topics_file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    tiny.build()

    def named(question: str) -> list[str]:
        store = ChunkStore.load(tiny.artifact)
        try:
            return CrossLingual.from_rows(store.topics, {"en", "zh"}).topics_in(question)
        finally:
            store.close()

    with duckdb.connect(str(tiny.artifact), read_only=True) as con:
        rows = dict(con.execute("SELECT id, excludes FROM topics").fetchall())
    assert rows["iron"] == ["高铁", "地铁"] and rows["calcium"] == []
    assert named("坐高铁去上海") == [] and named("高铁上能补铁吗") == ["iron"]

    with duckdb.connect(str(tiny.artifact)) as con:  # as an artifact written before the column was
        con.execute("ALTER TABLE topics DROP COLUMN excludes")
        con.execute("DELETE FROM schema_migrations WHERE version = ?", [version])
    assert named("坐高铁去上海") == ["iron"]  # opens; no excludes, so 高铁 names iron as before


def test_the_report_lists_the_topics_no_unit_carries_and_a_unit_taking_one_removes_it(tiny) -> None:
    import re

    from unitrag.cli.output import report_markdown

    report = tiny.build(dry_run=True)
    assert "zinc" in report.gaps and report.to_dict()["gaps"] == report.gaps
    carried = {t for rule in (tiny.content / "rules").iterdir()
               for t in re.search(r"^topics: \[(.*)\]$", rule.read_text(encoding="utf-8"), re.M).group(1).split(", ")}
    assert carried and not carried & set(report.gaps)
    assert "Declared gaps (topics no unit carries): " in report_markdown(report)
    rule = next((tiny.content / "rules").iterdir())
    rule.write_text(re.sub(r"^topics: \[", "topics: [zinc, ", rule.read_text(encoding="utf-8"), count=1, flags=re.M),
                    encoding="utf-8")
    assert "zinc" not in tiny.build(dry_run=True).gaps


def test_the_report_names_red_flag_rules_without_examples(tiny) -> None:
    import yaml

    assert tiny.build(dry_run=True).red_flags_without_examples == []  # every sample red flag has examples
    guard = tiny.content / "guard.yaml"
    rules = yaml.safe_load(guard.read_text(encoding="utf-8"))
    stroke = next(r for r in rules if r["id"] == "red-flag-stroke")
    stroke.pop("examples")
    guard.write_text(yaml.safe_dump(rules, allow_unicode=True, sort_keys=False), encoding="utf-8")
    report = tiny.build(dry_run=True)
    assert report.red_flags_without_examples == ["red-flag-stroke"]
    assert report.to_dict()["red_flags_without_examples"] == ["red-flag-stroke"]
