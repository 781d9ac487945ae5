"""Cross-file checks: the things no single file can know about itself.

They run on the raw frontmatter of every unit, including units that failed their
schema, so one run reports everything: a bad ``order`` does not hide an unknown
story in the same file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .loader import ContentSet, LoadedUnit, load_content
from .problems import Problem

CITE_TAG = re.compile(r"<Cite\s+id=\"([^\"]*)\"\s*/>")
CITE_LIKE = re.compile(r"<\s*cite\b[^>]*>?", re.IGNORECASE)


def cited_ids(body: str) -> list[str]:
    """Ids of every well-formed ``<Cite id="..."/>`` in a body, in order."""
    return CITE_TAG.findall(body)


def validate_content(root: Path) -> ContentSet:
    """Load ``root`` and run every check; ``result.problems`` is empty when the content is good."""
    content = load_content(root)
    problems = content.problems
    topic_ids = {t.id for t in content.taxonomy.topics} | {g.id for g in content.taxonomy.groups}
    every = sorted(content.units + content.invalid_units, key=lambda lu: lu.path)
    stories = {lu.meta.get("id") for lu in every if lu.meta.get("kind") == "story"}
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
            if topic not in topic_ids:
                problems.append(Problem(lu.path, lu.line_of("topics", i), "topics", f"unknown topic {topic!r} (not in topics.yaml)"))
        for i, cid in _strings(meta.get("citationIds")):
            if cid not in content.citations:
                problems.append(Problem(lu.path, lu.line_of("citationIds", i), "citationIds", f"citation {cid!r} is not in the registry (content/citations/*.yaml)"))
        _check_body(lu, problems)
        if meta.get("kind") == "scene":
            story, order = meta.get("story"), meta.get("order")
            if isinstance(story, str) and story not in stories:
                problems.append(Problem(lu.path, lu.line_of("story"), "story", f"story {story!r} does not exist"))
            if isinstance(story, str) and isinstance(order, int):
                if (story, order) in scene_orders:
                    problems.append(Problem(lu.path, lu.line_of("order"), "order", f"order {order} is already used by {scene_orders[(story, order)].path}"))
                scene_orders[(story, order)] = lu
    for lq in content.questions:
        for i, unit_id in enumerate(lq.question.expected_units):
            if unit_id not in first_seen:
                problems.append(Problem(lq.path, lq.line_of("expected_units", i), f"{lq.question.id}.expected_units", f"unit {unit_id!r} does not exist"))
    problems.sort()
    return content


def _strings(value: Any) -> list[tuple[int, str]]:
    return [(i, v) for i, v in enumerate(value) if isinstance(v, str)] if isinstance(value, list) else []


def _check_body(lu: LoadedUnit, problems: list[Problem]) -> None:
    body = lu.body
    if not body.strip() and lu.meta.get("kind") != "story":
        problems.append(Problem(lu.path, lu.body_line, "body", "empty body: write the text of this unit below the frontmatter"))
        return
    declared = {cid for _, cid in _strings(lu.meta.get("citationIds"))}
    reported: set[str] = set()
    for offset, text in enumerate(body.split("\n")):
        line = lu.body_line + offset
        good = {m.start() for m in CITE_TAG.finditer(text)}
        for m in CITE_LIKE.finditer(text):
            if m.start() not in good:
                problems.append(Problem(lu.path, line, "body", f"malformed citation tag {m.group(0)!r}: write <Cite id=\"...\"/>"))
        for cid in CITE_TAG.findall(text):
            if cid not in declared and cid not in reported:
                reported.add(cid)
                problems.append(Problem(lu.path, line, "body", f"<Cite id=\"{cid}\"/> is not declared in citationIds"))
