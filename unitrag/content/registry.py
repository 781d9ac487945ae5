"""The YAML registries beside the units: citations, the topic taxonomy, guard rules, labelled questions."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from .body_markup import MARKUP
from .defined_ids import DefinedIds
from .errors import problems_from_validation
from .files import SizeLimit, display_path, read_text
from .guard_rules import pattern_problem
from .text.excerpt import excerpt
from .models import Citation, Taxonomy, Topic, TopicGroup
from .guard_model import GuardRule
from .labelled_question import LabelledQuestion
from .problems import Problem
from .safe_yaml import load_yaml, yaml_problem
from .source_map import SourceMap
from .text.scripts import HAN

REGISTRY_FILES = ("citations", "topics", "guard", "questions")
M = TypeVar("M", bound=BaseModel)
#: Where an author reads the fields of each registry entry (None: the rest).
FIELDS_DOC: dict[type[BaseModel] | None, str] = {LabelledQuestion: "docs/evaluation.md", None: "docs/authoring.md"}


def _read_yaml(path: Path, problems: list[Problem], limit: SizeLimit | None) -> tuple[Any, SourceMap, str] | None:
    text = read_text(path, problems, limit)
    if text is None:
        return None
    shown = display_path(path)
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        problems.append(yaml_problem(exc, shown, "yaml", text=text))
        return None
    return data, SourceMap(text), shown


def _validate_items(model: type[M], items: Any, lines: SourceMap, shown: str, problems: list[Problem],
                    prefix: tuple[Any, ...] = (), invalid_ids: set[str] | None = None) -> list[tuple[int, M]]:
    """Valid entries with their index in the file (for line numbers); problems for the rest, each named by its
    entry's id. ``invalid_ids`` collects the ids of the entries that failed: they are defined, only wrong, so what
    names them is not reported as naming something unknown (one bad entry, one problem)."""
    if not isinstance(items, list):
        problems.append(Problem(shown, lines.line(prefix) if prefix else 1, ".".join(map(str, prefix)) or "yaml",
                                "expected a list of entries"))
        return []
    valid: list[tuple[int, M]] = []
    for i, item in enumerate(items):
        try:
            valid.append((i, model.model_validate(item)))
        except ValidationError as exc:
            item_id = item.get("id") if isinstance(item, dict) else None
            name = _entry_name(item, i)
            if invalid_ids is not None and isinstance(item_id, str):
                invalid_ids.add(item_id)
            for p in problems_from_validation(exc, shown, lines, prefix=(*prefix, i), whole="", model=model,
                                              doc=FIELDS_DOC.get(model, FIELDS_DOC[None])):
                problems.append(Problem(p.path, p.line, f"{name}.{p.field}" if p.field else name, p.message))
    return valid


def _entries(model: type[M], paths: list[Path], problems: list[Problem], limit: SizeLimit | None,
             invalid_ids: set[str] | None = None) -> Iterator[tuple[int, M, str, SourceMap]]:
    """Every valid entry of every file, with its index, shown path and line map; problems for the rest."""
    for path in paths:
        loaded = _read_yaml(path, problems, limit)
        if loaded is None:
            continue
        data, lines, shown = loaded
        for i, item in _validate_items(model, data or [], lines, shown, problems, invalid_ids=invalid_ids):
            yield i, item, shown, lines


def _unique_entries(model: type[M], paths: list[Path], problems: list[Problem], noun: str, limit: SizeLimit | None,
                    invalid_ids: set[str] | None = None) -> Iterator[tuple[int, M, str, SourceMap]]:
    """``_entries`` without repeated ids: a second definition is a problem at its own line, and is dropped."""
    where: dict[str, str] = {}
    for i, item, shown, lines in _entries(model, paths, problems, limit, invalid_ids):
        item_id = item.id  # type: ignore[attr-defined]
        line = lines.line((i, "id"))
        if item_id in where:
            problems.append(Problem(shown, line, "id", f"duplicate {noun} id {item_id!r} (also at {where[item_id]})"))
            continue
        where[item_id] = f"{shown}:{line}"
        yield i, item, shown, lines


def load_citations(paths: list[Path], problems: list[Problem], limit: SizeLimit | None = None,
                   invalid_ids: set[str] | None = None) -> dict[str, Citation]:
    """Merge every citations/*.yaml; an id defined twice is an error at its second place; a file over ``limit`` is a
    problem. ``invalid_ids``: the ids of entries that failed their schema (``_validate_items``)."""
    return {citation.id: citation
            for _, citation, _, _ in _unique_entries(Citation, paths, problems, "citation", limit, invalid_ids)}


#: The languages a text is written in, in the order problems name them (``languages.LANGS`` is the config's order).
TEXT_LANGS = ("en", "zh")


def required_languages(languages: Sequence[str] | None) -> tuple[str, ...]:
    """The languages every topic name and guard response must be written in: the knowledge base's own (config
    ``languages``), or both when it declares none."""
    return TEXT_LANGS if languages is None else tuple(lang for lang in TEXT_LANGS if lang in languages)


def missing_languages(texts: Any, key: tuple[Any, ...], field: str, shown: str, lines: SourceMap,
                      languages: Sequence[str] | None) -> list[Problem]:
    """A problem for each of the knowledge base's languages (``required_languages``) that the mapping ``texts``
    (``{en: ..., zh: ...}`` at ``key``) leaves out, at its line, as ``field.<lang>``. Read from the file as written,
    so an entry that fails its schema for another reason is still told the languages it lacks; a ``texts`` that is
    missing, not a mapping or empty is the schema's to report."""
    if not isinstance(texts, dict) or all(texts.get(lang) is None for lang in TEXT_LANGS):
        return []  # none at all: the schema's "in at least one language" says so, once
    if languages is None:
        why = "required field is missing"
    else:
        why = f"required: this knowledge base's languages are {', '.join(languages)} (unitrag.toml)"
    return [Problem(shown, lines.line(key), f"{field}.{lang}", why)
            for lang in required_languages(languages) if texts.get(lang) is None]


def _entry_name(item: Any, i: int) -> str:
    """How a problem names an entry: its id, else its place in the list."""
    item_id = item.get("id") if isinstance(item, dict) else None
    return str(item_id or f"[{i}]")


def _unwritten_languages(items: Any, prefix: tuple[Any, ...], sections: tuple[str, ...], shown: str, lines: SourceMap,
                         languages: Sequence[str] | None) -> list[Problem]:
    """``missing_languages`` of each entry's ``sections`` (``{en: ..., zh: ...}`` mappings), read from the list
    ``items`` as written (at ``prefix`` in the file)."""
    return [problem for i, item in enumerate(items if isinstance(items, list) else []) if isinstance(item, dict)
            for section in sections
            for problem in missing_languages(item.get(section), (*prefix, i, section), f"{_entry_name(item, i)}.{section}",
                                             shown, lines, languages)]


def load_taxonomy(paths: list[Path], root: Path, problems: list[Problem], limit: SizeLimit | None = None,
                  invalid_ids: set[str] | None = None, languages: Sequence[str] | None = None) -> Taxonomy:
    """topics.yaml, with group members and duplicates checked against the topics; an entry that fails its schema is
    left out, its id in ``invalid_ids`` (``_validate_items``). Every topic and group is named in each of
    ``languages`` (config ``languages``; None: both)."""
    if not paths:
        problems.append(Problem(display_path(root / "topics.yaml"), 1, "topics", "topics.yaml is missing"))
        return Taxonomy(topics=[])
    loaded = _read_yaml(paths[0], problems, limit)
    if loaded is None:
        return Taxonomy(topics=[])
    data, lines, shown = loaded
    if isinstance(data, dict):
        for section in ("topics", "groups"):
            problems.extend(_unwritten_languages(data.get(section), (section,), ("names",), shown, lines, languages))
    try:
        taxonomy = Taxonomy.model_validate(data or {})
    except ValidationError as exc:
        taxonomy = _valid_entries(data, exc, shown, lines, problems, invalid_ids)
    seen: set[str] = set()
    for section, entries in (("topics", taxonomy.topics), ("groups", taxonomy.groups)):
        for i, entry in enumerate(entries):
            if entry.id in seen:
                problems.append(Problem(shown, lines.line((section, i, "id")), "id", f"duplicate topic id {entry.id!r}"))
            seen.add(entry.id)
    topic_ids = DefinedIds((t.id for t in taxonomy.topics), invalid_ids or ())
    for i, group in enumerate(taxonomy.groups):
        for j, member in enumerate(group.members):
            if member not in topic_ids:
                problems.append(
                    Problem(shown, lines.line(("groups", i, "members", j)), f"{group.id}.members", f"unknown topic {member!r}")
                )
    return taxonomy


def _valid_entries(data: Any, exc: ValidationError, shown: str, lines: SourceMap, problems: list[Problem],
                   invalid_ids: set[str] | None) -> Taxonomy:
    """The topics and groups valid on their own: one bad entry must not turn every unit naming a good topic into an
    "unknown topic" problem."""
    sections = ("topics", "groups")
    if not isinstance(data, dict) or not isinstance(data.get("topics"), list):
        problems.extend(problems_from_validation(exc, shown, lines))
        return Taxonomy(topics=[])
    # a key of the file's own (a typo'd section): the whole file's problems say so
    problems.extend(p for p in problems_from_validation(exc, shown, lines) if p.field.split(".")[0] not in sections)
    topics = [t for _, t in _validate_items(Topic, data["topics"], lines, shown, problems, ("topics",), invalid_ids)]
    groups = [g for _, g in _validate_items(TopicGroup, data.get("groups") or [], lines, shown, problems, ("groups",),
                                            invalid_ids)]
    return Taxonomy.model_construct(topics=topics, groups=groups)


def too_long(questions: list[LoadedQuestion], max_chars: int | None) -> list[Problem]:
    """Labelled questions longer than ``ask`` accepts (config ``max_question_chars``), each at its line: found when
    the file is read, not as an abort halfway through ``eval``."""
    if max_chars is None:
        return []
    return [Problem(lq.path, lq.line_of("question"), f"{lq.question.id}.question",
                    f"{len(lq.question.question):,} characters, over the {max_chars:,} that ask accepts "
                    f"(max_question_chars): shorten it")
            for lq in questions if len(lq.question.question) > max_chars]


#: A red-flag rule's examples must cover each language this well, or similarity has too little to go on.
MIN_RED_FLAG_EXAMPLES_PER_LANG = 6
#: Examples are questions, not documents: longer text would dilute what makes them an emergency.
MAX_GUARD_TEXT_CHARS = 300
_LATIN = re.compile(r"[A-Za-z]")


def load_guard_rules(paths: list[Path], problems: list[Problem], limit: SizeLimit | None = None,
                     languages: Sequence[str] | None = None, notes: list[Problem] | None = None,
                     twice: set[str] | None = None) -> list[GuardRule]:
    """guard.yaml; every pattern must compile, end in time and not match every question, since a broken red flag is
    a silent safety hole and an empty pattern stops everything. A rule's response (and caution note, if it has one)
    is written in each of ``languages`` (config ``languages``; None: both), and a red flag's examples, if it has any,
    count enough in each of them. A rule id written twice is one problem at the second rule, which is left out (the
    artifact keys rules by id); ``twice`` collects such ids, so what names one is not reported as well. Markup in a
    response or caution note (``markup_note``) is a note in ``notes``."""
    rules: list[GuardRule] = []
    texts: dict[str, str] = {}  # every example and near-miss → where it was first written
    where: dict[str, str] = {}  # every rule id → where it was first written
    for path in paths:
        loaded = _read_yaml(path, problems, limit)
        if loaded is None:
            continue
        data, lines, shown = loaded
        problems.extend(_unwritten_languages(data, (), ("response", "caution"), shown, lines, languages))
        for i, rule in _validate_items(GuardRule, data or [], lines, shown, problems):
            line = lines.line((i, "id"))
            if rule.id in where:
                problems.append(Problem(shown, line, f"{rule.id}.id",
                                        f"guard rule id {rule.id!r} is already used at {where[rule.id]}: give this "
                                        "rule an id of its own, or merge the two"))
                if twice is not None:
                    twice.add(rule.id)
                continue  # one cause, one problem: its texts would repeat the first rule's
            where[rule.id] = f"{shown}:{line}"
            _check_rule(rule, i, shown, lines, texts, problems, languages)
            if notes is not None:
                notes.extend(_markup_notes(rule, i, shown, lines))
            rules.append(rule)
    return rules


def markup_note(text: str) -> str | None:
    """What in a guard rule's response or caution note is markup (``body_markup.MARKUP``), for a note; None when it is
    plain text."""
    found = MARKUP.search(text)
    if found is None:
        return None
    return (f"{excerpt(found.group(0), 40)!r} is markup: `unitrag ask` prints a rule's text as written and the HTTP API returns it as is, "
            "so an app that renders it as HTML or Markdown would run it; write plain text (the page shows it as text)")


def _markup_notes(rule: GuardRule, i: int, shown: str, lines: SourceMap) -> list[Problem]:
    """A note for each response or caution text of ``rule`` that holds markup, at its line."""
    found = []
    for section in ("response", "caution"):
        texts = getattr(rule, section)
        for lang in TEXT_LANGS:
            text = getattr(texts, lang, None) if texts is not None else None
            message = markup_note(text) if text else None
            if message is not None:
                found.append(Problem(shown, lines.line((i, section, lang)), f"{rule.id}.{section}.{lang}", message))
    return found


def _check_rule(rule: GuardRule, i: int, shown: str, lines: SourceMap, texts: dict[str, str], problems: list[Problem],
                languages: Sequence[str] | None) -> None:
    """One valid rule's patterns, examples and near-misses."""
    for lang in ("en", "zh"):
        for j, pattern in enumerate(getattr(rule.patterns, lang)):
            # one that does not compile, or backtracks without end (it would hang the build, and match nothing at runtime)
            message = pattern_problem(pattern, [*rule.examples.en, *rule.examples.zh])
            if message is not None:
                problems.append(Problem(shown, lines.line((i, "patterns", lang, j)), f"{rule.id}.patterns.{lang}", message))
    _check_guard_texts(rule, i, shown, lines, texts, problems, languages)


def _check_guard_texts(rule: GuardRule, i: int, shown: str, lines: SourceMap, seen: dict[str, str], problems: list[Problem],
                       languages: Sequence[str] | None = None) -> None:
    """Examples and near-misses: in their language, short, each written once across all rules, enough of them in each
    of ``languages`` (None: both)."""
    for section in ("examples", "near_misses"):
        for lang in ("en", "zh"):
            for j, text in enumerate(getattr(getattr(rule, section), lang)):
                line = lines.line((i, section, lang, j))
                where = (shown, line, f"{rule.id}.{section}.{lang}")
                key = " ".join(text.split()).casefold()
                if not key:
                    problems.append(Problem(*where, "empty text"))
                elif len(text) > MAX_GUARD_TEXT_CHARS:
                    problems.append(Problem(*where, f"{len(text)} characters: keep it a question of at most {MAX_GUARD_TEXT_CHARS}"))
                elif not (HAN if lang == "zh" else _LATIN).search(text):
                    problems.append(Problem(*where, f"not {'Chinese' if lang == 'zh' else 'English'}: put it under the other language"))
                elif key in seen:
                    problems.append(Problem(*where, f"written twice (also at {seen[key]}): one text, one label"))
                else:
                    seen[key] = f"{shown}:{line}"
    if rule.type == "red_flag" and (rule.examples.en or rule.examples.zh):
        of = "" if languages is None else f" (this knowledge base's languages are {', '.join(languages)}: unitrag.toml)"
        for lang in required_languages(languages):
            count = len(getattr(rule.examples, lang))
            if count < MIN_RED_FLAG_EXAMPLES_PER_LANG:
                problems.append(Problem(shown, lines.line((i, "examples")), f"{rule.id}.examples.{lang}",
                                        f"{count} example(s): a red-flag rule needs at least {MIN_RED_FLAG_EXAMPLES_PER_LANG} "
                                        f"per language{of}"))


@dataclass(frozen=True)
class LoadedQuestion:
    """A labelled question with where it was written (for line numbers in cross-checks)."""

    question: LabelledQuestion
    path: str
    lines: SourceMap
    index: int

    def line_of(self, *key: Any) -> int:
        return self.lines.line((self.index, *key))


def stale_starter(q: LabelledQuestion, has_unit: Callable[[str], bool], has_rule: Callable[[str], bool]) -> bool:
    """A question ``unitrag init`` wrote (``starter: true``) about a starter unit or rule that has since been
    removed: left out of validation, eval and calibration rather than failing them, since replacing the
    starter content is what a new team is meant to do."""
    if not q.starter:
        return False
    named = [*q.expected_units, *(q.user.triggered_rules + q.user.recent_scenes if q.user is not None else [])]
    return any(not has_unit(u) for u in named) or (q.guard_rule is not None and not has_rule(q.guard_rule))


def stale_starter_note(left_out: list["LoadedQuestion"]) -> str | None:
    """One line on the starter questions left out, naming their files; None when there are none."""
    if not left_out:
        return None
    files = sorted({lq.path for lq in left_out})
    return (f"{len(left_out)} starter question(s) (starter: true) name starter units or guard rules that were removed, "
            f"and are left out: delete them and write questions about your own content in {', '.join(files)}")


def is_held_out(path: Path) -> bool:
    """A test set (``questions_test.yaml``, ``test-guard.yaml``: "test" is one of the name's ``_``/``-`` parts, or
    the folder is named ``test``): eval reports on it; the gate and the guard are never fitted on it."""
    return "test" in re.split(r"[_\-.]", path.stem.lower()) or path.parent.name.lower() == "test"


def dev_question_files(content_dir: Path) -> list[Path]:
    """The dev sets calibration fits on by default: every ``eval/*.yaml`` but the held-out ones, in name order."""
    folder = content_dir / "eval"
    return sorted(p for p in folder.glob("*.yaml") if p.is_file() and not is_held_out(p)) if folder.is_dir() else []


def load_questions(paths: list[Path], problems: list[Problem], limit: SizeLimit | None = None) -> list[LoadedQuestion]:
    """eval/*.yaml, the labelled questions eval and calibration run on; an id defined twice is an error."""
    return [LoadedQuestion(q, shown, lines, i)
            for i, q, shown, lines in _unique_entries(LabelledQuestion, paths, problems, "question", limit)]
