"""Reading and checking the prompt templates at build, so a broken one never reaches ``ask``.

Each template must be UTF-8 text of at most ``max_prompt_chars`` bytes, parse, use no
``{% include %}`` / ``{% import %}`` / ``{% extends %}`` (the artifact stores templates
alone, by name: there is nothing to load), and render once per language with sample data
in the runtime's bounded sandbox, within a few seconds and the prompt budget: an undefined
variable, a sandbox violation, a value or prompt over ``max_prompt_chars``, runaway
recursion or a loop that never ends is a problem at its line, and nothing is written.
A template is named for what the runtime renders (``system``, ``user``, ``not_found``, ``refusal``, ``broaden``):
another name is a problem (a misspelt one would leave the runtime without its template), and so is a link
out of the folder, as in the content folder: it is not read, let alone copied into the artifact.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from jinja2 import TemplateSyntaxError, nodes

from ..artifact.bounded_sandbox import MAX_PROMPT_CHARS, PromptTooLarge, render_bounded
from ..artifact.prompts import TEMPLATE_ENV, TEMPLATE_VARIABLES
from ..content.files import SizeLimit, display_path, link_outside, read_text
from ..content.problems import Problem
from ..errors import ContentInvalid

PROMPT_SUFFIXES = {".j2", ".jinja", ".jinja2"}
RENDER_SECONDS = 5.0  # a real prompt renders in milliseconds

_SAMPLE: dict[str, Any] = {
    "question": "How much vitamin B12 do adults need?",
    "sources": [
        {"index": 1, "title": "Vitamin B12", "citation_ids": ["cit-a"], "text": "Adults need 2.4 µg a day.",
         "kind": "scene", "unit_id": "unit-a"},
        {"index": 2, "title": "Folate", "citation_ids": [], "text": "Folate works with B12.", "kind": "rule",
         "unit_id": "unit-b"},
    ],
    "allowed_ids": ["cit-a"],
    "group": "B vitamins",
    "members": ["Vitamin B12", "Folate"],
    "kb_name": "Sample knowledge base",
    "kb_description": "What a sample knowledge base covers.",
}
_LOADING = {nodes.Include: "include", nodes.Import: "import", nodes.FromImport: "import", nodes.Extends: "extends"}


def read_prompts(prompts_dir: Path, max_chars: int = MAX_PROMPT_CHARS) -> list[dict[str, Any]]:
    """Every template in the folder as ``{name, template}`` rows; ContentInvalid listing every broken one.

    ``max_chars`` (config ``max_prompt_chars``) bounds what each renders, and the bytes of its file. Hidden files
    (an editor's ``.#user.j2`` lock link) are not templates; a file the runtime never renders is a problem, as is a
    link out of the folder (not read: a pull request's link to a CI secret must not reach the artifact).
    """
    if not prompts_dir.is_dir():
        return []
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    limit = SizeLimit(max_chars, "max_prompt_chars", "prompt template", "a template is a few KB: shorten it")
    real_root = Path(os.path.realpath(prompts_dir))
    seen: dict[str, str] = {}
    for path in sorted(p for p in prompts_dir.iterdir() if p.suffix in PROMPT_SUFFIXES and not p.name.startswith(".")):
        shown = display_path(path)
        refused = _not_a_template(real_root, path, shown, seen)
        if refused is not None:
            problems.append(refused)
            continue
        text = read_text(path, problems, limit)
        if text is None:
            continue
        found = check_template(shown, path.stem, text, max_chars=max_chars)
        problems += found
        if not found:
            rows.append({"name": path.stem, "template": text})
    if problems:
        raise ContentInvalid(sorted(problems))
    return rows


def _not_a_template(real_root: Path, path: Path, shown: str, seen: dict[str, str]) -> Problem | None:
    """Why ``path`` is not read as a template, or None: a link out of the folder (``content.files.link_outside``,
    the content folder's rule), a name the runtime never renders, or a second file of a name (``seen``: name →
    the first one's path)."""
    target = link_outside(real_root, path)
    if target is not None:
        return Problem(shown, 1, "file", f"a link to {target}, outside the prompts folder: not read "
                                         "(copy the file into the prompts folder)")
    name = path.stem
    if name not in TEMPLATE_VARIABLES:
        known = ", ".join(f"{known}.j2" for known in TEMPLATE_VARIABLES)
        return Problem(shown, 1, "file", f"not a template the runtime renders (it renders {known}): rename it to one "
                                         "of those, or move it out of the prompts folder")
    if name in seen:
        return Problem(shown, 1, "file", f"a second {name!r} template (the first is {seen[name]}): keep one of them")
    seen[name] = shown
    return None


def prompt_problems(prompts_dir: Path, max_chars: int = MAX_PROMPT_CHARS) -> tuple[int, list[Problem]]:
    """How many templates the folder holds and their problems: what ``unitrag validate`` reports."""
    try:
        return len(read_prompts(prompts_dir, max_chars)), []
    except ContentInvalid as exc:  # the good ones still count: one broken template is not "0 prompt templates"
        broken = {problem.path for problem in exc.problems}
        files = sorted(prompts_dir.glob("*.j2")) if prompts_dir.is_dir() else []
        return max(0, len(files) - len(broken)), list(exc.problems)


def check_template(shown: str, name: str, source: str, seconds: float = RENDER_SECONDS,
                   max_chars: int = MAX_PROMPT_CHARS) -> list[Problem]:
    """The problems of one template (empty when it is good), each at its line."""
    try:
        tree = TEMPLATE_ENV.parse(source)
    except TemplateSyntaxError as exc:
        return [Problem(shown, exc.lineno or 1, "template", f"syntax error: {exc.message}")]
    loading = [
        Problem(shown, node.lineno, "template",
                f"{{% {_LOADING[type(node)]} %}} is not allowed: a template is stored alone in the artifact "
                "and cannot load another; write the text into this template")
        for node in tree.find_all(tuple(_LOADING))
    ]
    if loading:
        return loading
    try:
        template = TEMPLATE_ENV.from_string(source)
    except TemplateSyntaxError as exc:  # found only when compiling: an unknown filter or test
        return [Problem(shown, exc.lineno or 1, "template", f"{exc.message}")]
    wanted = TEMPLATE_VARIABLES.get(name)
    for lang in ("en", "zh"):
        variables = {**_SAMPLE, "lang": lang}
        if wanted is not None:
            variables = {key: variables[key] for key in wanted}
        try:
            with _deadline(seconds):
                render_bounded(template, variables, max_chars)
        except _TooLong as exc:
            return [Problem(shown, _line(exc), "template", f"takes too long to render (over {seconds:g} s): a loop that never ends?")]
        except RecursionError as exc:
            return [Problem(shown, _line(exc), "template", "runaway recursion: a macro that calls itself without end")]
        except PromptTooLarge as exc:
            return [Problem(shown, _line(exc), "template", f"{exc}; rendered with sample data, lang={lang}")]
        except Exception as exc:  # noqa: BLE001 - any failure of an author's template is a problem to report
            return [Problem(shown, _line(exc), "template", f"does not render with sample data (lang={lang}): {type(exc).__name__}: {exc}")]
    return []


class _TooLong(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise ``_TooLong`` in the render after ``seconds`` (main thread on POSIX; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _TooLong

    outer = signal.getitimer(signal.ITIMER_REAL)  # someone else's alarm (pytest-timeout...) is put back after
    if outer[0] and outer[0] <= seconds:  # it fires first anyway
        yield
        return
    previous = signal.signal(signal.SIGALRM, expire)
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer[0]:
            signal.setitimer(signal.ITIMER_REAL, max(outer[0] - (time.monotonic() - started), 0.001), outer[1])


def _line(exc: BaseException) -> int:
    """The template line an exception was raised on: Jinja's traceback frames are named ``<template>``."""
    line = getattr(exc, "lineno", None) or 1  # set where the render was stopped for its size (render_bounded)
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
