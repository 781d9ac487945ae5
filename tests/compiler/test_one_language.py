"""A knowledge base of one language (unitrag.toml ``languages = ["zh"]``) writes its guard rules and topics in that one:
it builds, its guard classifier fits on Chinese examples alone, and the artifact's other-language columns hold the
text it has (every reader of them, the runtime's guard, broadening and /v1/about, finds one)."""

from __future__ import annotations

import dataclasses

import duckdb
import yaml

from unitrag.compiler.tables import topic_rows
from unitrag.content.guard_rules import compile_rule
from unitrag.content.models import Taxonomy


def _drop(mapping: dict, lang: str) -> None:
    for key in ("patterns", "response", "examples", "near_misses", "caution", "names", "synonyms"):
        if isinstance(mapping.get(key), dict):
            mapping[key].pop(lang, None)


def test_a_zh_only_knowledge_base_builds_and_fits_its_guard_on_chinese_examples(tiny) -> None:
    guard = yaml.safe_load((tiny.content / "guard.yaml").read_text(encoding="utf-8"))
    topics = yaml.safe_load((tiny.content / "topics.yaml").read_text(encoding="utf-8"))
    for rule in guard:
        _drop(rule, "en")
    for entry in [*topics["topics"], *topics.get("groups", [])]:
        _drop(entry, "en")
        entry["excludes"] = [e for e in entry.get("excludes", []) if any("\u4e00" <= c <= "\u9fff" for c in e)]
    (tiny.content / "guard.yaml").write_text(yaml.safe_dump(guard, allow_unicode=True), encoding="utf-8")
    (tiny.content / "topics.yaml").write_text(yaml.safe_dump(topics, allow_unicode=True), encoding="utf-8")
    for path in (tiny.content / "rules").glob("*.md"):  # the English rules stand for `unitrag init`'s starter units
        path.write_text(path.read_text(encoding="utf-8").replace("kind: rule\n", "kind: rule\nstarter: true\n", 1),
                        encoding="utf-8")
    red_flags = [rule for rule in guard if rule["type"] == "red_flag" and rule.get("examples")]
    assert red_flags and all("en" not in rule["response"] for rule in guard)

    report = tiny.build(dataclasses.replace(tiny.config, languages=("zh",)))

    assert report.written
    with duckdb.connect(str(tiny.artifact), read_only=True) as db:
        rows = [dict(zip([c[0] for c in db.description], r)) for r in db.execute("SELECT * FROM guard_rules").fetchall()]
        names = db.execute("SELECT name_en, name_zh FROM topics").fetchall()
        example_langs = {lang for (lang,) in db.execute("SELECT DISTINCT lang FROM guard_examples WHERE rule_id IS NOT NULL "
                                                        "AND role = 'example'").fetchall()}
        fitted = db.execute("SELECT count(*) FROM guard_model").fetchone()[0]
    assert example_langs == {"zh"} and fitted > 0
    assert names and all(en == zh for en, zh in names)
    for row in rows:
        assert row["response_en"] == row["response_zh"]
        compiled = compile_rule(row)
        assert compiled.response("en") == compiled.response("zh") == next(r for r in guard if r["id"] == row["id"])["response"]["zh"]


def test_topic_rows_give_a_topic_named_in_one_language_that_name_in_both_columns() -> None:
    taxonomy = Taxonomy.model_validate({"topics": [{"id": "iron", "names": {"zh": "铁"}},
                                                   {"id": "salt", "names": {"en": "Salt"}}]})
    assert [(row["name_en"], row["name_zh"]) for row in topic_rows(taxonomy)] == [("铁", "铁"), ("Salt", "Salt")]
