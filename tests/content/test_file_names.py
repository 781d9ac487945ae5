"""File names under content/ come with a pull request: one holding a control character or bytes that are not UTF-8
is one problem, printed escaped, and never read as a unit, a cache key or a line of a reviewer's terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from unitrag.content.files import name_fault
from unitrag.content.problems import UNPRINTABLE, Problem, printable
from unitrag.content.unit_cache import UnitCache
from unitrag.content.validate import validate_content

#: A name that is not UTF-8, as Python lists it (byte 0xff is U+DCFF under ``surrogateescape``).
NOT_UTF8 = os.fsdecode(b"ok\xff.md")

NAMES = {  # name on disk → how problems show it
    "e\x1b]0;PWNED\x07\x1b[2J\x1b[31mred.md": "e\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mred.md",
    "new\nline.md": "new\\nline.md",
    "tab\there.md": "tab\\there.md",
    "csi\x9b2J.md": "csi\\x9b2J.md",
    "fdp\u202edm.md": "fdp\\u202edm.md",
    "line\u2028sep.md": "line\\u2028sep.md",  # a line break in many viewers and in JavaScript
    NOT_UTF8: "ok\\xff.md",
}


def _write(tree, rel: str, text: str) -> None:
    """``tree.write``, or a skip where the file system refuses the name (macOS refuses names that are not UTF-8)."""
    try:
        tree.write(rel, text)
    except (OSError, UnicodeEncodeError) as exc:
        pytest.skip(f"this file system refuses the name {rel!r}: {exc}")


@pytest.mark.parametrize("name", NAMES, ids=ascii)
def test_a_file_named_with_a_control_character_or_not_utf8_is_one_problem_shown_escaped(tree, samples, name) -> None:
    _write(tree, f"documents/{name}", samples.DOCUMENT.replace("id: doc-one", "id: doc-two"))
    content = validate_content(tree.root)
    assert [(p.path, p.line, p.field) for p in content.problems] == [(tree.shown(f"documents/{name}"), 1, "file")]
    shown = str(content.problems[0])
    assert shown.startswith(f"{tree.shown('documents/' + NAMES[name])}:1: file: the file name ")
    assert UNPRINTABLE.search(shown) is None
    assert "rename it" in shown and ("not UTF-8" in shown if name == NOT_UTF8 else "control character U+" in shown)
    assert "doc-two" not in {lu.id for lu in content.units + content.invalid_units}  # not read as a unit
    assert not content.complete  # it may have been built before names were checked: nothing is swept


def test_a_refused_file_holding_an_id_in_use_is_not_a_duplicate_id_too(tree, samples) -> None:
    """The tester's case: the refused file's name is the one problem, not a ``duplicate id`` line that prints it."""
    name = next(iter(NAMES))
    _write(tree, f"documents/{name}", samples.DOCUMENT)
    problems = validate_content(tree.root).problems
    assert len(problems) == 1 and "duplicate" not in problems[0].message


def test_a_folder_named_with_a_control_character_is_named_as_the_fault(tree, samples) -> None:
    _write(tree, "documents/dir\x1b[2J/doc-two.md", samples.DOCUMENT.replace("id: doc-one", "id: doc-two"))
    [problem] = validate_content(tree.root).problems
    assert str(problem).startswith(f"{tree.shown('documents/dir')}\\x1b[2J/doc-two.md:1: file: the folder name holds "
                                   "control character U+001B: rename it")


def test_a_name_that_is_not_utf8_is_saved_in_no_cache(tree, samples, tmp_path: Path) -> None:
    """It crashed ``validate`` and ``build`` in the unit cache's ``save`` (a cache key cannot be a lone surrogate)."""
    _write(tree, f"documents/{NOT_UTF8}", samples.DOCUMENT.replace("id: doc-one", "id: doc-two"))
    for _ in range(2):  # written, then read back
        cache = UnitCache(tmp_path / "cache")
        assert len(validate_content(tree.root, cache=cache).problems) == 1
        cache.save()


@pytest.mark.parametrize("rel", ["documents/doc-one.md", "documents/维生素.md", "a b/c-d_e.f.md"])
def test_ordinary_names_have_no_fault(rel) -> None:
    assert name_fault(rel) is None


def test_a_problem_never_prints_a_control_character_wherever_it_is() -> None:
    problem = Problem("content/a\x1b[2J.md", 3, "id\x07", f"duplicate id (also in {NOT_UTF8}\nforged: line \u202e)")
    assert str(problem) == "content/a\\x1b[2J.md:3: id\\x07: duplicate id (also in ok\\xff.md\\nforged: line \\u202e)"
    assert problem.to_dict() == {"path": "content/a\\x1b[2J.md", "line": 3, "field": "id\\x07",
                                 "message": "duplicate id (also in ok\\xff.md\\nforged: line \\u202e)"}


def test_printable_leaves_ordinary_text_as_it_is() -> None:
    text = "content/documents/维生素 B12.md:4: title: 'Low B12' — ok"
    assert printable(text) == text
