"""The starter content: about no domain of the sample's, marked ``starter: true``, and replaced by an ordinary build."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from unitrag.compiler.pipeline import build
from unitrag.config import load_config
from unitrag.errors import UserError
from unitrag.scaffold.starter import starter_question

REPO = Path(__file__).resolve().parents[2]

#: Words of the sample's domain (health and nutrition) that a new knowledge base must not inherit.
SAMPLE_DOMAIN = ("nutrition", "nutrient", "health", "vitamin", "hydration", "diet", "calorie", "protein", "blood",
                 "clinician", "medical", "patient", "营养", "健康", "维生素")


def _frontmatter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])


def _units(content: Path) -> list[Path]:
    return sorted(p for p in content.rglob("*.md"))


@pytest.mark.parametrize("languages", ["en,zh", "zh,en"])  # the template, and its Chinese starter content
def test_a_fresh_init_mentions_neither_the_samples_domain_nor_its_unit_ids(tmp_path: Path, languages: str) -> None:
    from unitrag.scaffold import init_knowledge_base
    from unitrag.scaffold.identity import KnowledgeBaseIdentity

    sample_ids = {_frontmatter(path)["id"] for path in _units(REPO / "content")}
    assert len(sample_ids) > 20  # read from the repository's own content, as it is today
    fresh_kb = tmp_path / "kb"
    init_knowledge_base(fresh_kb, identity=KnowledgeBaseIdentity.checked("Kb", "", languages))
    files = [p for p in fresh_kb.rglob("*") if p.is_file()]
    assert len(files) > 15
    for path in files:
        text = path.read_text(encoding="utf-8").lower()
        assert not [word for word in SAMPLE_DOMAIN if word in text], path
        assert not [unit_id for unit_id in sample_ids if unit_id in text], path


def test_every_starter_unit_is_marked_as_such(fresh_kb: Path) -> None:
    units = _units(fresh_kb / "content")
    assert {_frontmatter(path)["kind"] for path in units} == {"story", "scene", "rule", "document"}
    assert all(_frontmatter(path).get("starter") is True for path in units)


@pytest.mark.parametrize("value", ["maybe", "1", '"true"'])
def test_starter_is_a_boolean(fresh_kb: Path, value: str) -> None:
    from unitrag.content.validate import validate_content

    rule = fresh_kb / "content" / "rules" / "en-unit-too-large.md"
    rule.write_text(rule.read_text(encoding="utf-8").replace("starter: true", f"starter: {value}"), encoding="utf-8")
    problems = validate_content(fresh_kb / "content").problems
    assert [(p.line, p.field) for p in problems] == [(6, "starter")], problems


def test_the_suggested_question_is_labelled_with_starter_units(fresh_kb: Path) -> None:
    question = starter_question()
    entries = yaml.safe_load((fresh_kb / "content" / "eval" / "questions.yaml").read_text(encoding="utf-8"))
    expected = next(entry["expected_units"] for entry in entries if entry["question"] == question)
    ids = {_frontmatter(path)["id"] for path in _units(fresh_kb / "content")}
    assert expected and set(expected) <= ids


_OWN_RULE = """---
kind: rule
id: en-unit-too-small
title: "A unit with one sentence"
lang: en
topics: [writing-units]
severity: info
trigger: {marker: unit_sentences, comparison: "<", threshold: 2, unit: sentences}
citationIds: [unitrag-authoring-guide]
---
A unit of one sentence rarely answers a question on its own <Cite id="unitrag-authoring-guide"/>.
"""


def _add_an_own_rule(kb: Path) -> None:
    (kb / "content" / "rules" / "en-unit-too-small.md").write_text(_OWN_RULE, encoding="utf-8")


def _replace_the_starter_units(kb: Path) -> None:
    """What README.md's "Make it yours" says: the starter units go, with the questions labelled with them."""
    for path in _units(kb / "content"):
        if _frontmatter(path).get("starter"):
            path.unlink()
    for questions in (kb / "content" / "eval").glob("questions*.yaml"):
        kept = [entry for entry in yaml.safe_load(questions.read_text(encoding="utf-8")) if "expected_units" not in entry]
        questions.write_text(yaml.safe_dump(kept, allow_unicode=True), encoding="utf-8")
    _add_an_own_rule(kb)


def test_validate_counts_the_starter_units_left(fresh_kb: Path) -> None:
    def validate() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "unitrag", "validate", "--json"], cwd=fresh_kb,
                              capture_output=True, text=True, timeout=120, check=False)

    assert json.loads(validate().stdout)["starter_units"] == 5
    _replace_the_starter_units(fresh_kb)
    after = json.loads(validate().stdout)
    assert after["ok"] and (after["units"], after["starter_units"]) == (1, 0)


def test_replacing_every_starter_unit_is_an_ordinary_build(fresh_kb: Path, embedder) -> None:
    config = load_config()
    assert build(config, embedder=embedder).written
    _replace_the_starter_units(fresh_kb)
    report = build(config, embedder=embedder)  # no allow_empty
    assert report.written and report.units == 1 and report.plan.new and len(report.plan.deleted) >= 5


def test_a_build_left_with_no_units_is_still_refused(fresh_kb: Path, embedder) -> None:
    config = load_config()
    assert build(config, embedder=embedder).written
    before = config.artifact.read_bytes()
    _replace_the_starter_units(fresh_kb)
    for path in _units(fresh_kb / "content"):
        path.unlink()
    with pytest.raises(UserError, match="has no units.*--allow-empty"):
        build(config, embedder=embedder)
    assert config.artifact.read_bytes() == before


def _remove_the_starter_units_only(kb: Path) -> None:
    """A team that deletes the starter units and the example guard rules, and has not reached the questions yet."""
    for path in _units(kb / "content"):
        if _frontmatter(path).get("starter"):
            path.unlink()
    (kb / "content" / "guard.yaml").write_text("[]\n", encoding="utf-8")
    _add_an_own_rule(kb)


def test_starter_questions_about_removed_starter_content_are_left_out_with_a_note(fresh_kb: Path, embedder) -> None:
    _remove_the_starter_units_only(fresh_kb)
    result = subprocess.run([sys.executable, "-m", "unitrag", "validate"], cwd=fresh_kb, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "starter question(s) (starter: true) name starter units or guard rules that were removed" in result.stdout
    assert "content/eval/questions.yaml" in result.stdout and "content/eval/guard_test.yaml" in result.stdout
    report = build(load_config(), embedder=embedder)
    assert report.written and report.units == 1 and "left out" in (report.starter_note or "")


def test_a_question_of_the_teams_own_naming_a_missing_unit_is_still_an_error(fresh_kb: Path) -> None:
    questions = fresh_kb / "content" / "eval" / "questions.yaml"
    entries = yaml.safe_load(questions.read_text(encoding="utf-8"))
    entries.append({"id": "own-question", "question": "How long is a page?", "lang": "en", "expected_units": ["no-such-unit"]})
    questions.write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "unitrag", "validate"], cwd=fresh_kb, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 1 and "own-question.expected_units: unit 'no-such-unit' does not exist" in result.stderr + result.stdout


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_one_language_init_validates_and_builds_with_its_guard_and_topics_in_that_language_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder, lang: str) -> None:
    """`unitrag init --languages zh`, then every English response, example and topic name deleted: still a build."""
    from unitrag.content.validate import validate_content
    from unitrag.scaffold import init_knowledge_base
    from unitrag.scaffold.identity import KnowledgeBaseIdentity

    kb = tmp_path / "kb"
    init_knowledge_base(kb, identity=KnowledgeBaseIdentity.checked("测试", "测试", lang))
    monkeypatch.chdir(kb)
    config = load_config()
    assert config.languages == (lang,)
    assert validate_content(config.content_dir, languages=config.languages).problems == []  # as written
    other = "en" if lang == "zh" else "zh"
    guard = yaml.safe_load((kb / "content" / "guard.yaml").read_text(encoding="utf-8"))
    topics = yaml.safe_load((kb / "content" / "topics.yaml").read_text(encoding="utf-8"))
    for entry in [*guard, *topics["topics"], *topics["groups"]]:
        for texts in entry.values():
            if isinstance(texts, dict):
                texts.pop(other, None)
    (kb / "content" / "guard.yaml").write_text(yaml.safe_dump(guard, allow_unicode=True), encoding="utf-8")
    (kb / "content" / "topics.yaml").write_text(yaml.safe_dump(topics, allow_unicode=True), encoding="utf-8")
    assert validate_content(config.content_dir, languages=config.languages).problems == []
    assert [p.field for p in validate_content(config.content_dir).problems if p.field.endswith(f"response.{other}")]
    assert build(config, embedder=embedder).written


def test_a_fresh_init_names_a_restricted_role_of_its_own(fresh_kb: Path) -> None:
    """The sample's `clinician` is health's word: a new team gets `staff`, said in its unitrag.toml beside how to use it."""
    from unitrag.config import load_config

    assert load_config(fresh_kb / "unitrag.toml").restricted_role == "staff"
    assert "access: staff" in (fresh_kb / "unitrag.toml").read_text(encoding="utf-8")
