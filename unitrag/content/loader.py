"""Reading the content tree: every file becomes a unit, a registry entry or a problem.

Nothing here stops at the first error: each file is read on its own, and whatever
is wrong with it is reported, so an author sees everything in one run. What a unit
file gives on its own (its unit, its problems, its body's) is kept by the unit cache
(``unit_cache``): an unchanged file is neither read nor parsed again.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from .body_script import ScriptCount, unit_scripts
from .defined_ids import DefinedIds
from .errors import nearest
from .text.citation_tags import find_tags, line_of
from .models import UNIT_KINDS, Citation, Document, Rule, Scene, Story, Taxonomy
from .guard_model import GuardRule
from .files import (
    SizeLimit, decode_text, display_path, display_under, link_outside, name_fault, read_bytes, tree_files,
)
from .problems import Problem
from ..config import CONFIG_FILE
from ..regular_file import read_head
from .registry import (
    REGISTRY_FILES,
    LoadedQuestion,
    load_citations,
    load_guard_rules,
    load_questions,
    load_taxonomy,
    stale_starter_note,
)
from .safe_yaml import load_yaml, yaml_problem
from .source_map import SourceMap
from .unit_cache import CachedFile, UnitCache, revived_meta
from .unit_kind import check_fields, kind_meant

AnyUnit = Story | Scene | Rule | Document
#: A unit starts with a line of three or more dashes (python-frontmatter's rule, without importing it).
_OPENING = re.compile(r"^-{3,}\s*$", re.MULTILINE)
_DELIMITER = re.compile(r"^-{3,}\s*$")
#: What a unit file is named: any other file is a registry file or a problem.
UNIT_SUFFIXES = frozenset({".md", ".markdown"})


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
    #: SHA-256 of the file's bytes: the parse caches' key (no second read of the file).
    file_hash: str = ""
    #: What is wrong with the body on its own (empty, malformed or undeclared citation tags); validation reports them.
    body_problems: list[Problem] = field(default_factory=list)
    #: Han characters and Latin letters of its summary and body (``body_script``): counted when the file is read and
    #: kept in the unit cache, since counting every unit again took ~40% of a 5,000-unit validate.
    scripts: ScriptCount | None = None

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
    #: Ids of citations and topics whose entries failed their schema: defined, so what names them is not a problem too.
    invalid_ids: set[str] = field(default_factory=set)
    guard_rules: list[GuardRule] = field(default_factory=list)
    #: Guard rule ids written twice (the second rule is a problem and left out): what names one is not a problem too.
    guard_ids_twice: set[str] = field(default_factory=set)
    #: The labelled questions of eval/*.yaml (evaluation and calibration; not built into the artifact).
    questions: list[LoadedQuestion] = field(default_factory=list)
    #: Starter questions (``starter: true``) about starter units or rules that were removed: left out of ``questions``.
    stale_starters: list[LoadedQuestion] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: What an author should look at but may mean (``instructions``: text that reads as an instruction to a model).
    notes: list[Problem] = field(default_factory=list)
    complete: bool = True  # False when a file could not be read: deletes must not be swept
    #: Ids a unit file that could not be read at all may hold (its ``id:`` line, read leniently, and its file name):
    #: a labelled question naming one is about a unit already reported broken, not about a missing one.
    unreadable_unit_ids: set[str] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def stale_starter_note(self) -> str | None:
        """What validation left out of ``questions``: starter questions about removed starter content."""
        return stale_starter_note(self.stale_starters)

    @property
    def gap_topics(self) -> list[str]:
        """Topics of the taxonomy no unit carries: subjects the content declares it does not cover (the gate's ``gap``)."""
        carried = {topic for loaded in self.units if loaded.unit is not None for topic in loaded.unit.topics}
        return sorted(t.id for t in self.taxonomy.topics if t.id not in carried)


def parse_unit(path: Path, text: str, shown: str | None = None) -> tuple[LoadedUnit | None, list[Problem]]:
    """Frontmatter → a typed unit; body kept as Markdown with its first line number.

    A unit whose fields fail the schema (or whose ``kind`` is none: ``unit_kind``) comes back with ``unit=None``
    and its problems; a unit whose frontmatter cannot be read at all comes back as None.
    """
    shown = shown or display_path(path)  # how problems name it (the loader knows it already)
    if not _OPENING.match(text):
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
        return None, [yaml_problem(exc, shown, "frontmatter", first_line=2, text=fm_text)]
    if not isinstance(meta, dict):
        return None, [Problem(shown, 1, "frontmatter", "frontmatter must be a mapping of field: value")]
    last_line = len(all_lines) - (1 if text.endswith("\n") else 0)
    body_line = min(closing + 2, last_line)  # 1-based line after the closing '---' (or that line at the end)
    loaded = LoadedUnit(unit=None, path=shown, body=body, body_line=body_line, lines=lines, meta=meta,  # type: ignore[arg-type]
                        scripts=unit_scripts(meta, body))
    loaded.body_problems = body_problems(loaded)
    unit, problems = check_fields(meta, shown, lines)  # a wrong kind too: every other field is checked all the same
    loaded.unit = unit  # type: ignore[assignment]
    return loaded, problems


def load_content(
    root: Path, max_unit_bytes: int | None = None, cache: UnitCache | None = None, max_file_bytes: int | None = None,
    languages: Sequence[str] | None = None,
) -> ContentSet:
    """Read every file under ``root``; the result carries all problems found, none raised.

    A unit larger than ``max_unit_bytes``, or a registry or eval file larger than ``max_file_bytes``, is a
    problem and is not read (None: no limit); a file is never read past its limit.
    ``cache`` gives back what an unchanged unit file gave last time (``unitrag.content.unit_cache``).
    ``languages`` (config ``languages``; None: both): the languages topic names and guard responses are written in.
    """
    content = ContentSet(root=root)
    if not root.is_dir():
        content.problems.append(
            Problem(display_path(root), 1, "content", "content folder not found (set --content or content_dir)"
                    + ("" if Path(CONFIG_FILE).exists() else
                       f"; there is no {CONFIG_FILE} here: run unitrag in your knowledge base's folder, or start one "
                       "with `unitrag init`"))
        )
        content.complete = False
        return content
    registry: dict[str, list[Path]] = {name: [] for name in REGISTRY_FILES}
    unit_limit, file_limit = unit_size_limit(max_unit_bytes), registry_size_limit(max_file_bytes)
    shown_root = display_path(root)
    files, unreadable = tree_files(root)
    for rel, why in unreadable:
        shown = display_under(shown_root, rel) if rel else shown_root
        content.problems.append(Problem(shown, 1, "file", f"cannot read the folder: {why}"))
        content.complete = False  # its units may be in the artifact: don't sweep them
    real_root = Path(os.path.realpath(root))
    for rel in files:  # dangling links too: they are problems
        name = rel.rpartition("/")[2]
        if name.lower() == "readme.md":
            continue
        target = link_outside(real_root, root / rel)
        if target is not None:
            content.problems.append(Problem(
                display_under(shown_root, rel), 1, "file",
                f"a link to {target}, outside the content folder: not read (copy the file into the content folder)"))
            content.complete = False  # what it was may be in the artifact: don't sweep it
            continue
        suffix = os.path.splitext(name)[1].lower()
        if _refused_by_name(content, rel, display_under(shown_root, rel), suffix in UNIT_SUFFIXES, unit_limit):
            continue
        kind = _registry_kind(PurePosixPath(rel)) if suffix in {".yaml", ".yml"} else None
        if kind is not None:
            registry[kind].append(root / rel)
        elif suffix in UNIT_SUFFIXES:
            unit = _load_unit(root / rel, rel, display_under(shown_root, rel), unit_limit, cache, content.problems)
            if unit is not None and unit.unit is not None:
                content.units.append(unit)
            else:
                content.complete = False  # an unparsable unit may still be in the artifact: don't sweep it
                if unit is not None:
                    content.invalid_units.append(unit)
                else:
                    content.unreadable_unit_ids |= ids_it_may_hold(root / rel, unit_limit)
        else:
            content.problems.append(
                Problem(
                    display_under(shown_root, rel), 1, "file",
                    "not a Markdown file: units are .md files; registry files are citations/*.yaml, topics.yaml, guard.yaml, eval/*.yaml",
                )
            )
    content.citations = load_citations(registry["citations"], content.problems, file_limit, content.invalid_ids)
    content.taxonomy = load_taxonomy(registry["topics"], root, content.problems, file_limit, content.invalid_ids,
                                     languages)
    content.guard_rules = load_guard_rules(registry["guard"], content.problems, file_limit, languages, content.notes,
                                           content.guard_ids_twice)
    content.questions = load_questions(registry["questions"], content.problems, file_limit)
    return content


def _refused_by_name(content: ContentSet, rel: str, shown: str, unit_file: bool, limit: SizeLimit | None) -> bool:
    """True, with its one problem, when ``rel`` is named so that it may not be read (``name_fault``).

    Not read as the unit or registry file it is named: keys and messages are made of its name. A unit file's ids
    (``ids_it_may_hold``) are still taken, so that a question naming its unit is not a second problem."""
    fault = name_fault(rel)
    if fault is None:
        return False
    content.problems.append(Problem(shown, 1, "file", fault))
    content.complete = False  # built before names were checked, it may be in the artifact: don't sweep it
    if unit_file:
        content.unreadable_unit_ids |= ids_it_may_hold(content.root / rel, limit)
    return True


#: An ``id:`` line of a frontmatter, however broken the rest of it is.
_ID_LINE = re.compile(r"^id:[ \t]*[\"']?([^\s\"'#]+)", re.MULTILINE)
#: Bytes of a broken unit file read for its ``id:`` line (it comes first or near it).
_ID_SCAN_BYTES = 16_384


def ids_it_may_hold(path: Path, limit: SizeLimit | None) -> set[str]:
    """The ids a unit file that could not be read may hold: its name's stem, and an ``id:`` line of its first bytes in
    whatever encoding they decode (a UTF-16 file, bad YAML, a wrong kind). Never raises: it only quiets follow-ups."""
    ids = {path.stem}
    try:
        head = read_head(path, _ID_SCAN_BYTES if limit is None else min(_ID_SCAN_BYTES, limit.bytes))
    except OSError:  # a FIFO, a device, gone: its name is all there is
        return ids
    encoding = "utf-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
    ids.update(_ID_LINE.findall(head.decode(encoding, errors="replace")))
    return ids


def _load_unit(
    path: Path, rel: str, shown: str, limit: SizeLimit | None, cache: UnitCache | None, problems: list[Problem],
) -> LoadedUnit | None:
    """One unit file: from the cache when its stat or its bytes are the recorded ones, else read and checked."""
    try:
        stat: os.stat_result | None = path.stat()
    except OSError:
        stat = None  # read_bytes reports it
    if _over_size_limit(shown, stat, limit, problems):
        return None
    cached = cache.by_stat(rel, stat) if cache is not None else None
    raw = None
    if cached is None:
        raw = read_bytes(path, problems, limit)
        if raw is None:
            return None
        cached = cache.by_hash(rel, stat, hashlib.sha256(raw).hexdigest()) if cache is not None else None
    if cached is not None:
        try:
            return _replayed(cached, shown, rel, problems)
        except (KeyError, TypeError, ValueError):  # an entry damaged by hand (JSON that parses): read the file
            raw = raw if raw is not None else read_bytes(path, problems, limit)
            if raw is None:
                return None
    sha = hashlib.sha256(raw).hexdigest()
    unit, found = _read_unit(path, shown, raw)
    if unit is not None:
        unit.rel_path, unit.file_hash = rel, sha
    if cache is not None:
        cache.put(rel, stat, sha, _stored(unit), found)
    problems.extend(found)
    return unit


def _read_unit(path: Path, shown: str, raw: bytes) -> tuple[LoadedUnit | None, list[Problem]]:
    """What a unit file gives on its own: its unit (None when unreadable) and the problems of its text and fields."""
    found: list[Problem] = []
    text = decode_text(raw, shown, found)
    if text is None:
        return None, found
    return parse_unit(path, text, shown)


def _stored(lu: LoadedUnit | None) -> dict[str, Any] | None:
    """A unit as the unit cache keeps it: its frontmatter text and fields, body and body problems, no path."""
    if lu is None:
        return None
    return {"valid": lu.unit is not None, "meta": lu.meta, "fm": lu.lines.text, "body": lu.body, "body_line": lu.body_line,
            "body_problems": [[p.line, p.field, p.message] for p in lu.body_problems],
            "scripts": [lu.scripts.han, lu.scripts.latin] if lu.scripts is not None else None}


def _replayed(cached: CachedFile, shown: str, rel: str, problems: list[Problem]) -> LoadedUnit | None:
    """A cached reading given back as read today: problems at their lines, under today's display path."""
    found = [Problem(shown, line, field_name, message) for line, field_name, message in cached.problems]
    unit = None
    if cached.unit is not None:
        stored = cached.unit
        meta = revived_meta(stored["meta"]) if stored.get("dated") else stored["meta"]
        unit = LoadedUnit(
            unit=UNIT_KINDS[meta["kind"]].model_validate(meta) if stored["valid"] else None,  # type: ignore[arg-type]
            path=shown, body=stored["body"], body_line=stored["body_line"], lines=SourceMap(stored["fm"], first_line=2),
            meta=meta, rel_path=rel, file_hash=cached.sha,
            body_problems=[Problem(shown, line, name, message) for line, name, message in stored["body_problems"]],
            scripts=ScriptCount(*stored["scripts"]) if stored.get("scripts") else None,
        )
    problems.extend(found)
    return unit


def body_problems(lu: LoadedUnit, registry: DefinedIds | None = None) -> list[Problem]:
    """An empty body (but for a story), malformed citation tags, tags whose id the unit does not declare.

    A tag that is a slip of a declared id names that id. Read on its own (``registry`` None, what the unit cache
    keeps) every declared id may be named; validation calls again with the citation registry for a unit declaring
    an id it lacks, so that no suggestion names an id that is itself a problem: when the tag is the registered one
    and the declared id near it is not, citationIds is what to fix."""
    body = lu.body
    if not body.strip() and kind_meant(lu.meta) not in ("story", None):  # a story's text may be its summary alone
        return [Problem(lu.path, lu.body_line, "body", "empty body: write the text of this unit below the frontmatter")]
    citation_ids = lu.meta.get("citationIds")
    declared = {cid for cid in citation_ids if isinstance(cid, str)} if isinstance(citation_ids, list) else set()
    found: list[Problem] = []
    reported: set[str] = set()
    for tag in find_tags(body):  # the runtime's tokenizer: whatever looks like a citation is checked
        line = lu.body_line + line_of(body, tag.start)
        if not tag.canonical or tag.id is None:
            found.append(Problem(lu.path, line, "body", f"malformed citation tag {tag.written!r}: write <Cite id=\"...\"/>"))
        elif tag.id not in declared and tag.id not in reported:
            reported.add(tag.id)
            found.append(Problem(lu.path, line, "body", f"<Cite id=\"{tag.id}\"/> is not declared in citationIds: "
                                                        f"{_undeclared_fix(tag.id, declared, registry)}"))
    return found


def _undeclared_fix(cited: str, declared: set[str], registry: DefinedIds | None) -> str:
    """What to do about a tag citing an id citationIds lacks: the declared id it is a slip of, if that one is
    registered (``acme-it-handbok``); else citationIds' own slip, when the tag is the registered id; else declare it."""
    registered = declared if registry is None else {cid for cid in declared if cid in registry.valid}
    near = nearest(cited, registered, 0.8)
    if near:
        return f"did you mean {near!r}, which citationIds declares?"
    if registry is not None and cited in registry.valid:  # citationIds: [price-list-2024]; the registry, the tag: 2025
        meant = nearest(cited, {cid for cid in declared if cid not in registry}, 0.8)
        if meant:
            return f"citationIds should declare {cited!r} in place of {meant!r}, which is not in the registry"
    return f"add {cited!r} there (and to content/citations/*.yaml, if it is a new source)"


def unit_size_limit(max_unit_bytes: int | None) -> SizeLimit | None:
    """The size limit of a unit file (config ``max_unit_bytes``; None: no limit)."""
    return None if max_unit_bytes is None else SizeLimit(max_unit_bytes, "max_unit_bytes", "unit", "split it into several units")


def registry_size_limit(max_file_bytes: int | None) -> SizeLimit | None:
    """The size limit of a registry or eval file (config ``max_file_bytes``; None: no limit)."""
    return None if max_file_bytes is None else SizeLimit(
        max_file_bytes, "max_file_bytes", "registry file",
        "split it (citations/*.yaml and eval/*.yaml may be several files) or trim it")


def _over_size_limit(shown: str, stat: os.stat_result | None, limit: SizeLimit | None, problems: list[Problem]) -> bool:
    """True, with a problem, when a unit is larger than ``limit``: it is then not read at all."""
    if stat is None or limit is None or stat.st_size <= limit.bytes:
        return False  # no stat: read_bytes reports why (a file that grows past the limit too)
    problems.append(limit.problem(shown, stat.st_size))
    return True


def _registry_kind(rel: PurePosixPath) -> str | None:
    if rel.suffix.lower() not in {".yaml", ".yml"}:
        return None
    if len(rel.parts) == 2 and rel.parts[0] == "citations":
        return "citations"
    if len(rel.parts) == 1 and rel.stem in {"topics", "guard", "questions"}:
        return rel.stem
    if len(rel.parts) == 2 and rel.parts[0] == "eval":  # eval/questions.yaml and any other labelled set
        return "questions"
    return None
