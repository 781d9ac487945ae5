"""The starter content in the knowledge base's main language: Chinese-first gets Chinese units, English-first the template's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from unitrag.compiler.pipeline import build
from unitrag.config import load_config
from unitrag.content.validate import validate_content
from unitrag.scaffold import OVERLAYS, TEMPLATE, UNIT_FOLDERS, init_knowledge_base, overlay_languages, template_sources
from unitrag.scaffold.identity import KnowledgeBaseIdentity
from unitrag.scaffold.starter import starter_question

REPO = Path(__file__).resolve().parents[2]
SHARED = ("prompts", "github", "gitignore", "unitrag.toml", "content/guard.yaml", "content/citations")
HAN = re.compile(r"[\u4e00-\u9fff]")


def _frontmatter(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])


def _units(kb: Path) -> dict[str, dict]:
    """unit id → frontmatter, of every unit under content/."""
    return {meta["id"]: meta for meta in map(_frontmatter, sorted((kb / "content").rglob("*.md")))}


def _questions(kb: Path, name: str) -> list[dict]:
    return yaml.safe_load((kb / "content" / "eval" / name).read_text(encoding="utf-8"))


def _init(tmp_path: Path, languages: str, name: str = "城市生活垃圾分类") -> Path:
    kb = tmp_path / "kb"
    init_knowledge_base(kb, identity=KnowledgeBaseIdentity.checked(name, "", languages))
    return kb


def _unit_questions(meta: dict) -> list[str]:
    return [q if isinstance(q, str) else q["q"] for q in meta.get("questions", [])]


@pytest.mark.parametrize("languages", ["zh,en", "zh"])
def test_a_chinese_first_init_writes_chinese_starter_units(tmp_path: Path, languages: str) -> None:
    kb = _init(tmp_path, languages)
    units = _units(kb)
    assert {meta["kind"] for meta in units.values()} == {"story", "scene", "rule", "document"}
    assert all(unit_id.startswith("zh-") and meta.get("starter") is True for unit_id, meta in units.items())
    stories = {unit_id: meta for unit_id, meta in units.items() if meta["kind"] == "story"}
    for meta in units.values():  # a scene's language is its story's
        assert (meta.get("lang") or stories[meta["story"]]["lang"]) == "zh", meta["id"]
        assert HAN.search(meta["title"]), meta["id"]
    asked = [q for meta in units.values() for q in _unit_questions(meta)]
    assert sum(bool(HAN.search(q)) for q in asked) >= 2 * len(units)  # Chinese first, a few in English too
    assert 2 <= sum(not HAN.search(q) for q in asked) < len(asked) / 2
    for name in ("questions.yaml", "questions_test.yaml", "guard_test.yaml"):
        entries = _questions(kb, name)
        assert entries and all(e["lang"] == "zh" and HAN.search(e["question"]) and e["starter"] for e in entries), name
        assert {u for e in entries for u in e.get("expected_units", [])} <= set(units), name
    assert not list((kb / "content").rglob("en-*"))


@pytest.mark.parametrize("languages", ["zh,en", "zh"])
def test_a_chinese_first_init_validates_and_builds_in_its_languages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     embedder, languages: str) -> None:
    kb = _init(tmp_path, languages)
    monkeypatch.chdir(kb)
    config = load_config()
    assert config.languages == tuple(languages.split(","))
    assert validate_content(config.content_dir, languages=config.languages).problems == []
    assert build(config, embedder=embedder).written


def test_the_chinese_starter_units_need_no_exemption_from_a_zh_only_knowledge_base(tmp_path: Path) -> None:
    """Starter units are exempt from the language check; Chinese-first ones pass it as any unit of the team's would."""
    kb = _init(tmp_path, "zh")
    for path in (kb / "content").rglob("*.md"):
        path.write_text(re.sub(r"^starter: true.*\n", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE),
                        encoding="utf-8")
    assert not any(meta.get("starter") for meta in _units(kb).values())
    assert validate_content(kb / "content", languages=("zh",)).problems == []


def test_the_suggested_question_is_chinese_and_answered_by_the_chinese_starter_units(tmp_path: Path) -> None:
    kb = _init(tmp_path, "zh,en")
    question = starter_question("zh")
    assert HAN.search(question)
    first = next(e for e in _questions(kb, "questions.yaml") if e.get("expected_units"))
    assert first["question"] == question and set(first["expected_units"]) <= set(_units(kb))
    readme = (kb / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# 城市生活垃圾分类\n") and f'unitrag ask "{question}"' in readme
    named = re.findall(r"content/scenes/[\w/.-]+\.md", readme)
    assert named and all((kb / path).is_file() for path in named)


@pytest.mark.parametrize("languages", ["en", "en,zh"])
def test_an_english_first_init_is_the_template_as_it_was(tmp_path: Path, languages: str) -> None:
    kb = _init(tmp_path, languages, name="Knowledge base")
    for stored, source in template_sources("en").items():
        assert source == TEMPLATE / stored
        if stored.parts[0] == "content":
            assert (kb / stored).read_bytes() == source.read_bytes(), stored
    assert set(_units(kb)) == {"en-writing-units", "en-writing-units-size", "en-writing-units-citations",
                               "en-unit-too-large", "en-new-unit-checklist"}
    assert starter_question("en") == starter_question() == "How long should a unit be?"
    assert f'unitrag ask "{starter_question()}"' in (kb / "README.md").read_text(encoding="utf-8")


def test_an_overlay_holds_only_what_its_language_changes() -> None:
    """Prompts, guard rules, citations, workflows and unitrag.toml are stored once, in the template."""
    assert "zh" in overlay_languages()
    for language in overlay_languages():
        overlay = OVERLAYS / language
        stored = [p.relative_to(overlay) for p in overlay.rglob("*") if p.is_file()]
        assert stored and not [p for p in stored if any(p.is_relative_to(shared) for shared in SHARED)], language
        assert not [p for p in stored if any(part.startswith(".") for part in p.parts)]  # package data skips dotfiles
        sources = template_sources(language)
        assert not [p for p in sources if any(p.is_relative_to(f) for f in UNIT_FOLDERS) and sources[p].is_relative_to(TEMPLATE)]


@pytest.mark.parametrize("language", ["zh"])
def test_an_overlay_has_the_templates_starter_content_in_its_language(language: str) -> None:
    """The same units (kinds, ids after the language prefix, stories) and the same labelled questions, one for one."""
    def units(sources: dict[Path, Path], prefix: str) -> dict[str, str]:
        metas = [_frontmatter(path) for stored, path in sources.items() if stored.suffix == ".md" and stored.parts[0] == "content"]
        assert all(m["id"].startswith(prefix) for m in metas)
        return {m["id"].removeprefix(prefix): m["kind"] for m in metas}

    def labels(sources: dict[Path, Path], prefix: str) -> dict[str, list]:
        return {name: [(e.get("guard"), e.get("guard_rule"), e.get("category"), e.get("unanswerable", False),
                        sorted(u.removeprefix(prefix) for u in e.get("expected_units", [])))
                       for e in yaml.safe_load(sources[Path("content/eval", name)].read_text(encoding="utf-8"))]
                for name in ("questions.yaml", "questions_test.yaml", "guard_test.yaml")}

    english, other = template_sources("en"), template_sources(language)
    assert units(other, f"{language}-") == units(english, "en-")
    assert labels(other, f"{language}-") == labels(english, "en-")
    topics = yaml.safe_load(other[Path("content/topics.yaml")].read_text(encoding="utf-8"))
    template_topics = yaml.safe_load(english[Path("content/topics.yaml")].read_text(encoding="utf-8"))
    for kind in ("topics", "groups"):
        assert [(t["id"], t["names"]) for t in topics[kind]] == [(t["id"], t["names"]) for t in template_topics[kind]]


def test_cli_init_chinese_first_suggests_a_chinese_question(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "unitrag", "init", "kb", "--languages", "zh,en", "--name", "城市生活垃圾分类"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert f'unitrag ask "{starter_question("zh")}"' in result.stdout
    assert "How long" not in result.stdout
    assert sorted(p.name for p in (tmp_path / "kb" / "content" / "stories").iterdir()) == ["zh-writing-units.md"]


@pytest.mark.e2e
def test_chinese_first_init_then_build_and_ask_in_chinese(tmp_path: Path) -> None:
    def unitrag(cwd: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                              timeout=300, check=False)

    assert unitrag(tmp_path, "init", "kb", "--languages", "zh,en", "--name", "城市生活垃圾分类").returncode == 0
    kb = tmp_path / "kb"
    validated = unitrag(kb, "validate")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    built = unitrag(kb, "build")
    assert built.returncode == 0, built.stderr
    answer = unitrag(kb, "ask", starter_question("zh"), "--json")
    assert answer.returncode == 0, answer.stderr
    got = json.loads(answer.stdout)
    assert not got["not_found"] and "zh-writing-units-size" in [s["unit_id"] for s in got["sources"]]
    assert "两千字" in got["answer"]
