"""Cross-file checks: the things no single file can know about itself.

They run on the raw frontmatter of every unit, including units that failed their
schema, so one run reports everything: a bad ``order`` does not hide an unknown
story in the same file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..access import DEFAULT_ROLE, PUBLIC, access_levels
from ..languages import LANGS
from .body_script import lang_contradiction, unit_scripts
from .defined_ids import DefinedIds
from .errors import nearest
from .full_width import to_ascii
from .body_markup import markup_notes
from .instructions import instruction_notes
from .second_frontmatter import second_frontmatter_note
from .text.citation_tags import find_tags
from .text.scripts import HAN, LATIN
from .loader import ContentSet, LoadedUnit, body_problems, load_content
from .registry import LoadedQuestion, stale_starter, too_long
from .problems import Problem
from .unit_cache import UnitCache
from .unit_kind import kind_meant


#: What to do about a question naming a unit that is gone (a deleted unit breaks the build through the test set,
#: whose questions are otherwise never edited to pass).
GONE_UNIT_HINT = (" (removed or renamed? point the question at the unit that answers it now, or label it "
                  "`unanswerable: true` if none does)")
#: The type ``question_id_problems`` takes a guard rule id to have when any type will do (an id written twice).
ANY_TYPE = "*"


def cited_ids(body: str) -> list[str]:
    """Ids of every canonical ``<Cite id="..."/>`` in a body, in order."""
    return [t.id for t in find_tags(body) if t.canonical and t.id is not None]


def validate_content(
    root: Path, max_unit_bytes: int | None = None, cache: UnitCache | None = None, max_file_bytes: int | None = None,
    languages: Sequence[str] | None = None, max_question_chars: int | None = None, restricted_role: str = DEFAULT_ROLE,
) -> ContentSet:
    """Load ``root`` and run every check; ``result.problems`` is empty when the content is good.

    ``max_unit_bytes`` (config ``max_unit_bytes``) refuses larger units, ``max_file_bytes`` larger registry
    and eval files; None: no limit. ``cache`` spares re-reading unchanged unit files; the checks between
    files run over every unit all the same. ``languages`` (config ``languages``): a unit in another language
    is a problem (a typo'd ``lang``, or a language the prompts and the page were not set up for), except the
    starter units ``unitrag init`` writes in English whatever the languages (``starter: true``); None: any.
    They are also the languages every topic name and guard response must be written in (None: both).
    ``max_question_chars`` (config): a labelled question longer than ``ask`` accepts is a problem here, at its line,
    not an abort in the middle of ``eval``. ``restricted_role`` (config): the one access level besides ``public``
    a unit may have, and the one role a labelled question's user may hold.
    """
    content = load_content(root, max_unit_bytes, cache, max_file_bytes, languages)
    problems = content.problems
    topic_ids = DefinedIds([*(t.id for t in content.taxonomy.topics), *(g.id for g in content.taxonomy.groups)],
                           content.invalid_ids)
    citation_ids = DefinedIds(content.citations, content.invalid_ids)
    # topics.yaml missing or unreadable (a full-width colon stops YAML): its one problem says so, and every topic a unit
    # names would be "unknown" too, burying it under dozens of lines
    unread = topic_ids.empty and any(p.path.endswith("topics.yaml") for p in problems)
    by_name = _ids_by_name(content)
    every = sorted(content.units + content.invalid_units, key=lambda lu: lu.path)
    # keyed by id as written: a story whose id is no string (``id: [a]``) is its schema's problem, and no key. A kind
    # written wrong is taken for the one meant (``unit_kind``); a unit whose kind nothing tells may be the story a scene
    # names: its kind is its own problem, not the scene's
    stories_by_id = {lu.meta["id"]: lu.meta for lu in every
                     if kind_meant(lu.meta) == "story" and isinstance(lu.meta.get("id"), str)}
    stories = set(stories_by_id) | {lu.meta["id"] for lu in every
                                    if kind_meant(lu.meta) is None and isinstance(lu.meta.get("id"), str)}
    story_langs = {sid: meta.get("lang") for sid, meta in stories_by_id.items()}
    story_access = {sid: meta.get("access", "public") for sid, meta in stories_by_id.items()}
    first_seen: dict[str, LoadedUnit] = {}
    scene_orders: dict[tuple[str, int], LoadedUnit] = {}
    for lu in every:
        meta = lu.meta
        uid = meta.get("id")
        if isinstance(uid, str):
            if uid in first_seen:
                other = first_seen[uid]
                problems.append(Problem(lu.path, lu.line_of("id"), "id", f"duplicate id {uid!r} (also in {other.path}:{other.line_of('id')})"))
            else:
                first_seen[uid] = lu
        for i, topic in _strings(meta.get("topics")):
            if topic not in topic_ids and not unread:
                problems.append(Problem(lu.path, lu.line_of("topics", i), "topics",
                                        f"unknown topic {topic!r} (not in topics.yaml)"
                                        f"{_named(topic, by_name) or did_you_mean(topic, topic_ids)}"))
        unregistered = False  # an id the registry lacks, even one of a failed entry (``DefinedIds.valid``)
        for i, cid in _strings(meta.get("citationIds")):
            unregistered = unregistered or cid not in citation_ids.valid
            if cid not in citation_ids:
                problems.append(Problem(lu.path, lu.line_of("citationIds", i), "citationIds",
                                        f"citation {cid!r} is not in the registry (content/citations/*.yaml)"
                                        f"{did_you_mean(cid, citation_ids)}"))
        # found per file by the loader (and cached with it); again, against the registry, for a unit declaring an id
        # the registry lacks: a tag's "did you mean" must not name that id
        problems.extend(body_problems(lu, citation_ids) if unregistered else lu.body_problems)
        content.notes.extend(instruction_notes(lu.path, lu.body, lu.body_line))
        content.notes.extend(markup_notes(lu.path, lu.body, lu.body_line))
        content.notes.extend(curly_quoted_notes(lu))
        second = second_frontmatter_note(lu.path, lu.body, lu.body_line)
        if second is not None:
            content.notes.append(second)
        _check_access(lu, restricted_role, problems)
        _check_lang(lu, story_langs, problems)
        _check_declared_lang(lu, languages, problems)
        if kind_meant(meta) == "scene":
            story, order = meta.get("story"), meta.get("order")
            if isinstance(story, str) and story not in stories:
                problems.append(Problem(lu.path, lu.line_of("story"), "story",
                                        f"story {story!r} does not exist{did_you_mean(story, stories)}"))
            _check_scene_access(lu, story_access, problems)
            if isinstance(story, str) and isinstance(order, int):
                if (story, order) in scene_orders:
                    problems.append(Problem(lu.path, lu.line_of("order"), "order", f"order {order} is already used by {scene_orders[(story, order)].path}"))
                scene_orders[(story, order)] = lu
    content.notes.extend(_restricted_order_notes(scene_orders, story_access))
    _check_questions(content, first_seen, topic_ids, problems, story_access, max_question_chars, restricted_role)
    problems.sort()
    content.notes.sort()
    return content


def _check_access(lu: LoadedUnit, role: str, problems: list[Problem]) -> None:
    """A unit's ``access`` is ``public`` or this knowledge base's restricted role: another name would restrict the
    unit to a role no caller can hold (it would never be shown), or be a typo of one. The schema leaves a text that is
    no level to this check, which names the levels (``员工``, ``Staff``); a value of another type is the schema's."""
    access = lu.meta.get("access")
    levels = access_levels(role)
    if not isinstance(access, str) or access in levels:
        return
    meant = next((level for level in levels if to_ascii(access).strip().casefold() == level), None)  # Staff, ｓｔａｆｆ
    fix = (f"write {meant} (the levels are {PUBLIC} and {role}: restricted_role in unitrag.toml)" if meant else
           f"write {PUBLIC} (every reader) or {role} (readers with that role: restricted_role in unitrag.toml)")
    problems.append(Problem(lu.path, lu.line_of("access"), "access", f"unknown access level {access!r}: {fix}"))


def _check_scene_access(lu: LoadedUnit, story_access: dict[Any, Any], problems: list[Problem]) -> None:
    """A scene may be more restricted than its story, never less: a public scene of a restricted story would
    show every caller the story's id (``story_id``), and its text reads as part of a restricted article."""
    access, story = lu.meta.get("access"), _story_of(lu.meta)
    level = story_access.get(story, "public")
    if access == "public" and isinstance(level, str) and level != "public":  # a story's level of no type: its own problem
        problems.append(Problem(lu.path, lu.line_of("access"), "access",
                                f"this scene is public but its story {story!r} is {level}-only: remove "
                                f"`access:` to take the story's, or make the story public"))


def _restricted_order_notes(scene_orders: dict[tuple[str, int], LoadedUnit],
                            story_access: dict[Any, Any]) -> list[Problem]:
    """A note for a restricted scene numbered before a public scene of the same story: the public scenes' ``order``
    is served as written, so a public reader sees the gap (1, 3) where a scene they may not read stands (an attacker
    of the page read it off ``/v1/units/{id}``)."""
    public = {key for key, lu in scene_orders.items() if lu.meta.get("access", story_access.get(key[0], "public")) == "public"}
    notes = []
    for (story, order), lu in sorted(scene_orders.items(), key=lambda item: item[0]):
        after = sorted(o for s, o in public if s == story and o > order)
        if (story, order) not in public and after:
            notes.append(Problem(lu.path, lu.line_of("order"), "order",
                                 f"this restricted scene is number {order} of story {story!r}, before a public scene "
                                 f"(number {after[0]}): public readers see the scenes' numbers, and the gap tells them "
                                 "a scene they may not read is there; give restricted scenes the story's last numbers"))
    return notes


def _story_of(meta: dict[str, Any]) -> str | None:
    """A scene's ``story`` when it is an id at all: ``story: [a, b]`` is its schema's problem, and must not end the run
    (a list is no key of the story maps)."""
    story = meta.get("story")
    return story if isinstance(story, str) else None


def _effective_access(unit: LoadedUnit, units: dict[str, LoadedUnit], story_access: dict[Any, Any]) -> Any:
    """A unit's access as the build stores it: its own, else (a scene) its story's, else public."""
    meta = unit.meta
    if meta.get("access") is not None:
        return meta["access"]
    if kind_meant(meta) == "scene":
        return story_access.get(_story_of(meta), "public")
    return "public"


def _check_questions(content: ContentSet, units: dict[str, LoadedUnit], topic_ids: Collection[str], problems: list[Problem],
                     story_access: dict[Any, Any] | None = None, max_question_chars: int | None = None,
                     role: str = DEFAULT_ROLE) -> None:
    """Every id a labelled question names exists, has the right kind, and is visible to the one asking.

    A starter question (``starter: true``, written by ``unitrag init``) that names a unit or rule no longer
    there is about the starter content its team replaced: it is left out (``content.stale_starters``), so
    replacing the starter content stays an ordinary build.
    """
    rule_types: dict[str, Any] = {rule.id: rule.type for rule in content.guard_rules}
    # an id written twice is reported once, at the second rule: any type is taken for it here
    rule_types.update({rule_id: ANY_TYPE for rule_id in content.guard_ids_twice})
    kept = []
    for lq in content.questions:
        if stale_starter(lq.question, units.__contains__, rule_types.__contains__):
            content.stale_starters.append(lq)
            continue
        _check_question(lq, units, rule_types, topic_ids, problems, story_access or {}, role, content.unreadable_unit_ids)
        problems.extend(too_long([lq], max_question_chars))
        kept.append(lq)
    content.questions = kept


def _check_question(lq: LoadedQuestion, units: dict[str, LoadedUnit], rule_types: dict[str, str], topic_ids: Collection[str],
                    problems: list[Problem], story_access: dict[Any, Any], role: str,
                    unreadable: Collection[str] = ()) -> None:
    """``unreadable``: ids of unit files that could not be read (already a problem each): a question naming one is
    not told the unit does not exist, nor judged on its kind or access, which nobody can know until it reads."""
    def kind_of(unit_id: str) -> Any:
        if unit_id in units:  # a kind that is none: the one meant, else any (the unit's own problem)
            return kind_meant(units[unit_id].meta) or ANY_TYPE
        return ANY_TYPE if unit_id in unreadable else None

    def restricted(unit_id: str) -> bool:  # an access no caller holds is the unit's own problem, reported there
        return unit_id in units and _effective_access(units[unit_id], units, story_access) == role

    problems.extend(question_id_problems(lq, kind_of, restricted, rule_types, topic_ids, role))


def _question_lang_problems(lq: LoadedQuestion) -> list[Problem]:
    """A question whose ``lang`` its text plainly contradicts: letters of the other script and none of its own (an English
    question marked ``zh`` was scored as a cross-language one). A mixed question ("pregnant 16周 有bleeding") is the
    writer's call: it passes."""
    q = lq.question
    han, latin = bool(HAN.search(q.question)), bool(LATIN.search(q.question))
    other = "English" if q.lang == "zh" and latin and not han else "Chinese" if q.lang == "en" and han and not latin else ""
    if not other:
        return []
    return [Problem(lq.path, lq.line_of("lang"), f"{q.id}.lang",
                    f"lang is {q.lang!r} but the question is written in {other}: set `lang: {'en' if q.lang == 'zh' else 'zh'}` "
                    "(eval scores a question by its language: same-language or cross-language)")]


def question_id_problems(lq: LoadedQuestion, kind_of: Callable[[str], str | None], restricted: Callable[[str], bool],
                         rule_types: Mapping[str, Any], topic_ids: Collection[str],
                         role: str = DEFAULT_ROLE) -> list[Problem]:
    """Every id a labelled question names, against a knowledge base: its content (``validate``) or an artifact
    (``eval`` of a file outside content/eval). ``kind_of``: a unit's kind, None when it is not there; ``restricted``:
    a unit that is there is not public; ``role``: the knowledge base's restricted role, the one a user may hold."""
    q = lq.question
    problems: list[Problem] = _question_lang_problems(lq)
    # pass: the rule it looks like; caution: the red flag whose note it gets
    allowed = {"red_flag", "out_of_scope"} if q.guard == "pass" else {"red_flag"} if q.guard == "caution" else {q.guard}
    if q.guard_rule is not None and rule_types.get(q.guard_rule) not in allowed | {ANY_TYPE}:
        problems.append(Problem(lq.path, lq.line_of("guard_rule"), f"{q.id}.guard_rule",
                                f"{q.guard_rule!r} is not a guard.yaml rule of type {' or '.join(sorted(allowed))}"))
    privileged = q.user is not None and role in q.user.roles
    hidden: list[tuple[int, str]] = []  # expected units the one asking cannot see
    visible = False
    for i, unit_id in enumerate(q.expected_units):
        if kind_of(unit_id) is None:
            problems.append(Problem(lq.path, lq.line_of("expected_units", i), f"{q.id}.expected_units",
                                    f"unit {unit_id!r} does not exist{GONE_UNIT_HINT}"))
        elif restricted(unit_id) and not privileged:
            hidden.append((i, unit_id))
        else:
            visible = True
    if hidden and not visible:  # any one expected unit answers a question: a problem only when none can
        others = "" if len(q.expected_units) == 1 else " (and no other expected unit is visible to this question)"
        problems.extend(Problem(lq.path, lq.line_of("expected_units", i), f"{q.id}.expected_units",
                                f"unit {unit_id!r} is {role}-only{others}: add `user: {{roles: [{role}]}}` "
                                "to this question") for i, unit_id in hidden)
    if q.user is None:
        return problems
    problems.extend(Problem(lq.path, lq.line_of("user", "roles", i), f"{q.id}.user.roles",
                            f"unknown role {name!r}: this knowledge base's restricted role is {role!r} (restricted_role "
                            "in unitrag.toml)") for i, name in enumerate(q.user.roles) if name != role)
    if q.user.current_topic is not None and q.user.current_topic not in topic_ids:
        problems.append(Problem(lq.path, lq.line_of("user", "current_topic"), f"{q.id}.user.current_topic",
                                f"unknown topic {q.user.current_topic!r} (not in topics.yaml)"))
    for field_name, kind in (("triggered_rules", "rule"), ("recent_scenes", "scene")):
        for i, unit_id in enumerate(getattr(q.user, field_name)):
            if kind_of(unit_id) not in (kind, ANY_TYPE):
                problems.append(Problem(lq.path, lq.line_of("user", field_name, i), f"{q.id}.user.{field_name}",
                                        f"{unit_id!r} is not a {kind} id"))
    return problems


def _check_lang(lu: LoadedUnit, story_langs: dict[Any, Any], problems: list[Problem]) -> None:
    """The unit's text against its ``lang`` (a scene without one: its story's), reported on the ``lang:`` line."""
    meta = lu.meta
    lang, inherited = meta.get("lang"), None
    if lang is None and kind_meant(meta) == "scene":
        lang = inherited = story_langs.get(_story_of(meta))
    if lang not in ("en", "zh"):
        return  # missing or not a language: the schema says so
    wrong = lang_contradiction(lu.scripts if lu.scripts is not None else unit_scripts(meta, lu.body), lang)
    if wrong is None:
        return
    if inherited is not None:
        problems.append(Problem(lu.path, lu.body_line, "lang", f"{wrong} (this scene takes lang {inherited!r} from "
                                f"story {meta.get('story')!r}: add its own `lang:` line, or fix the story's)"))
    else:
        problems.append(Problem(lu.path, lu.line_of("lang"), "lang", wrong))


def _check_declared_lang(lu: LoadedUnit, languages: Sequence[str] | None, problems: list[Problem]) -> None:
    """A unit's own ``lang`` against the knowledge base's declared languages (a scene's inherited one is its story's)."""
    lang = lu.meta.get("lang")
    if languages is None or lang not in LANGS or lang in languages or lu.meta.get("starter") is True:
        return
    declared = ", ".join(json.dumps(code) for code in languages)
    problems.append(Problem(lu.path, lu.line_of("lang"), "lang", f"{lang!r} is not one of this knowledge base's "
                            f"languages (unitrag.toml: languages = [{declared}]): add it there, or fix this unit's lang"))


def _ids_by_name(content: ContentSet) -> dict[str, str]:
    """Each topic's names and synonyms (case folded) → its id: an author who writes ``topics: [读者证]`` means one."""
    found: dict[str, str] = {}
    for topic in (*content.taxonomy.topics, *content.taxonomy.groups):
        names = [getattr(topic.names, lang, None) for lang in LANGS] if topic.names is not None else []
        synonyms = [s for lang in LANGS for s in getattr(topic.synonyms, lang, None) or []]
        for name in (*names, *synonyms):
            if isinstance(name, str) and name:
                found.setdefault(name.casefold(), topic.id)
    return found


def did_you_mean(written: str, known: Collection[str]) -> str:
    """``: did you mean 'x'?`` for the one id ``written`` is a slip of (a letter or two, a year), else nothing."""
    near = nearest(written, known, 0.8)
    return f": did you mean {near!r}?" if near else ""


def _named(written: str, by_name: dict[str, str]) -> str:
    found = by_name.get(written.casefold())
    return f": {written!r} names the topic {found!r}, write its id" if found else ""


#: Typographic quote pairs an input method types for '"': YAML keeps them as part of the text.
CURLY_QUOTES = (("“", "”"), ("‘", "’"), ("「", "」"), ("『", "』"), ("＂", "＂"))


def curly_quoted_notes(lu: LoadedUnit) -> list[Problem]:
    """A note for each title, summary or question wrapped whole in typographic quotes (``title: “废电池怎么扔”``):
    valid YAML, but the quotes become part of the text the reader sees and the question the gate compares."""
    meta, notes = lu.meta, []
    fields = [(("title",), meta.get("title")), (("summary",), meta.get("summary"))]
    for i, question in enumerate(meta.get("questions") or [] if isinstance(meta.get("questions"), list) else []):
        fields.append((("questions", i), question.get("q") if isinstance(question, dict) else question))
    for where, value in fields:
        text = value.strip() if isinstance(value, str) else ""
        if len(text) > 2 and any(text.startswith(a) and text.endswith(b) for a, b in CURLY_QUOTES):
            notes.append(Problem(lu.path, lu.line_of(*where), where[0],
                                 f"{text[:40]!r} is wrapped in typographic quotes, which YAML keeps as part of the text: "
                                 "remove them, or quote with ASCII \" \""))
    return notes


def _strings(value: Any) -> list[tuple[int, str]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, str)] if isinstance(value, list) else []
