"""Reading the content tree: every file becomes a unit, a registry entry or a problem.

Nothing here stops at the first error: each file is read on its own, and whatever
is wrong with it is reported, so an author sees everything in one run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from pydantic import ValidationError

from .errors import problems_from_validation
from .models import UNIT_KINDS, Citation, Document, GuardRule, Rule, Scene, Story, Taxonomy
from .files import display_path, read_text
from .problems import Problem
from .registry import REGISTRY_FILES, LoadedQuestion, load_citations, load_guard_rules, load_questions, load_taxonomy
from .safe_yaml import load_yaml, yaml_problem
from .source_map import SourceMap

AnyUnit = Story | Scene | Rule | Document
_FM = frontmatter.YAMLHandler()
_DELIMITER = re.compile(r"^-{3,}\s*$")


@dataclass
class LoadedUnit:
    """A unit with where it came from (for line numbers), its raw fields and its Markdown body.

    ``unit`` is None when the fields failed their schema; the raw ``meta`` still
    lets the cross-file checks run, so an author sees every problem at once.
    """

    unit: AnyUnit
    path: str
    body: str
    body_line: int
    lines: SourceMap
    meta: dict[str, Any] = field(default_factory=dict)
    #: Path inside the content folder (POSIX); what the artifact records, independent of the working folder.
    rel_path: str = ""

    @property
    def id(self) -> str:
        return self.unit.id

    def line_of(self, *key: Any) -> int:
        return self.lines.line(tuple(key))


@dataclass
class ContentSet:
    """Everything read from a content folder, and every problem found while reading it."""

    root: Path
    units: list[LoadedUnit] = field(default_factory=list)
    #: Units whose fields failed their schema: not built, but still cross-checked.
    invalid_units: list[LoadedUnit] = field(default_factory=list)
    citations: dict[str, Citation] = field(default_factory=dict)
    taxonomy: Taxonomy = field(default_factory=lambda: Taxonomy(topics=[]))
    guard_rules: list[GuardRule] = field(default_factory=list)
    #: The labelled questions of eval/*.yaml (evaluation and calibration; not built into the artifact).
    questions: list[LoadedQuestion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    complete: bool = True  # False when a file could not be read: deletes must not be swept

    @property
    def ok(self) -> bool:
        return not self.problems


def parse_unit(path: Path, text: str) -> tuple[LoadedUnit | None, list[Problem]]:
    """Frontmatter → a typed unit; body kept as Markdown with its first line number.

    A unit whose fields fail the schema comes back with ``unit=None`` and its
    problems; a unit whose frontmatter cannot be read at all comes back as None.
    """
    shown = display_path(path)
    if not _FM.detect(text):
        return None, [
            Problem(shown, 1, "frontmatter", "no YAML frontmatter: a unit starts with '---', its fields, then '---'")
        ]
    all_lines = text.split("\n")
    closing = next((i for i in range(1, len(all_lines)) if _DELIMITER.match(all_lines[i])), None)
    if closing is None:
        return None, [Problem(shown, 1, "frontmatter", "frontmatter is not closed by a '---' line")]
    fm_text = "\n".join(all_lines[1:closing])
    body = "\n".join(all_lines[closing + 1:])
    lines = SourceMap(fm_text, first_line=2)
    try:
        meta = load_yaml(fm_text)
    except yaml.YAMLError as exc:
        return None, [yaml_problem(exc, shown, "frontmatter", first_line=2)]
    if not isinstance(meta, dict):
        return None, [Problem(shown, 1, "frontmatter", "frontmatter must be a mapping of field: value")]
    kind = meta.get("kind")
    if kind is None:
        return None, [Problem(shown, 1, "kind", f"required field is missing (one of {', '.join(UNIT_KINDS)})")]
    if kind not in UNIT_KINDS:
        return None, [
            Problem(shown, lines.line(("kind",)), "kind", f"unknown kind {kind!r} (expected one of {', '.join(UNIT_KINDS)})")
        ]
    last_line = len(all_lines) - (1 if text.endswith("\n") else 0)
    body_line = min(closing + 2, last_line)  # 1-based line after the closing '---' (or that line at the end)
    loaded = LoadedUnit(unit=None, path=shown, body=body, body_line=body_line, lines=lines, meta=meta)  # type: ignore[arg-type]
    try:
        loaded.unit = UNIT_KINDS[kind].model_validate(meta)  # type: ignore[assignment]
    except ValidationError as exc:
        return loaded, problems_from_validation(exc, shown, lines)
    return loaded, []


def load_content(root: Path, max_unit_bytes: int | None = None) -> ContentSet:
    """Read every file under ``root``; the result carries all problems found, none raised.

    A unit larger than ``max_unit_bytes`` is a problem and is not read (None: no limit).
    """
    content = ContentSet(root=root)
    if not root.is_dir():
        content.problems.append(
            Problem(display_path(root), 1, "content", "content folder not found (set --content or content_dir)")
        )
        content.complete = False
        return content
    registry: dict[str, list[Path]] = {name: [] for name in REGISTRY_FILES}
    for path in sorted(p for p in root.rglob("*") if not p.is_dir()):  # dangling links too: they are problems
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or path.name.lower() == "readme.md":
            continue
        kind = _registry_kind(rel)
        if kind is not None:
            registry[kind].append(path)
        elif path.suffix.lower() in {".md", ".markdown"}:
            over = _over_size_limit(path, max_unit_bytes, content.problems)
            text = None if over else read_text(path, content.problems)
            if text is None:
                content.complete = False
                continue
            unit, problems = parse_unit(path, text)
            content.problems.extend(problems)
            if unit is not None:
                unit.rel_path = rel.as_posix()
            if unit is not None and unit.unit is not None:
                content.units.append(unit)
            else:
                content.complete = False  # an unparsable unit may still be in the artifact: don't sweep it
                if unit is not None:
                    content.invalid_units.append(unit)
        else:
            content.problems.append(
                Problem(
                    display_path(path), 1, "file",
                    "not a Markdown file: units are .md files; registry files are citations/*.yaml, topics.yaml, guard.yaml, eval/*.yaml",
                )
            )
    content.citations = load_citations(registry["citations"], content.problems)
    content.taxonomy = load_taxonomy(registry["topics"], root, content.problems)
    content.guard_rules = load_guard_rules(registry["guard"], content.problems)
    content.questions = load_questions(registry["questions"], content.problems)
    return content


def _over_size_limit(path: Path, limit: int | None, problems: list[Problem]) -> bool:
    """True, with a problem, when a unit is larger than ``limit`` bytes: it is then not read at all."""
    try:
        size = path.stat().st_size
    except OSError:
        return False  # read_text reports it
    if limit is None or size <= limit:
        return False
    problems.append(Problem(
        display_path(path), 1, "file",
        f"unit is {size:,} bytes, over the limit of {limit:,} (max_unit_bytes): split it into several units, "
        "or raise max_unit_bytes in unitrag.toml if it really is one",
    ))
    return True


def _registry_kind(rel: Path) -> str | None:
    if rel.suffix.lower() not in {".yaml", ".yml"}:
        return None
    if len(rel.parts) == 2 and rel.parts[0] == "citations":
        return "citations"
    if len(rel.parts) == 1 and rel.stem in {"topics", "guard", "questions"}:
        return rel.stem
    if len(rel.parts) == 2 and rel.parts[0] == "eval":  # eval/questions.yaml and any other labelled set
        return "questions"
    return None
