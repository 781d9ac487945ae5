"""Reading author files: control characters are problems at their line; line endings are normalised."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.content.validate import validate_content


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\u202e", "\u2066"])
def test_a_control_character_in_a_body_is_a_problem_at_its_line(tree, samples, char) -> None:
    text = samples.RULE.replace("Your B12 is low", f"Your B12{char} is low")
    tree.write("rules/rule-one.md", text)
    line = text.split("\n").index(next(ln for ln in text.split("\n") if char in ln)) + 1
    problems = validate_content(tree.root).problems
    assert [(p.path, p.line, p.field) for p in problems] == [(tree.shown("rules/rule-one.md"), line, "file")]
    assert f"U+{ord(char):04X}" in problems[0].message


def test_control_characters_in_frontmatter_and_registries_are_named_too(tree, samples) -> None:
    tree.write("rules/rule-one.md", samples.RULE.replace('title: "Low B12"', 'title: "Low\x00B12"'))
    tree.write("citations/a.yaml", samples.CITATIONS.replace("Paper B", "Paper\x07B"))
    found = {(p.path, p.line) for p in validate_content(tree.root).problems if p.field == "file"}
    assert found == {(tree.shown("rules/rule-one.md"), 4), (tree.shown("citations/a.yaml"), 7)}


@pytest.mark.parametrize("escape", ["\\e[2J", "\\x1b]0;title\\a", "\\0", "\\u202efdp.exe", "\\x9b"])
def test_a_control_character_written_as_a_yaml_escape_is_a_problem_at_its_line(tree, samples, escape) -> None:
    """The bytes are clean, the value is not: ``title: "\\e[2J…"`` would clear the screen of whoever runs ``ask``."""
    tree.write("rules/rule-one.md", samples.RULE.replace('title: "Low B12"', f'title: "Low {escape} B12"'))
    tree.write("citations/a.yaml", samples.CITATIONS.replace("Paper B", f"Paper {escape} B"))
    found = {(p.path, p.line) for p in validate_content(tree.root).problems if "control character" in p.message}
    assert found == {(tree.shown("rules/rule-one.md"), 4), (tree.shown("citations/a.yaml"), 7)}


def test_tabs_are_fine(tree, samples) -> None:
    tree.write("rules/rule-one.md", samples.RULE.replace("Your B12 is low", "Your B12\tis low"))
    assert validate_content(tree.root).problems == []


@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_line_endings_never_change_what_is_read(tree, samples, ending) -> None:
    before = validate_content(tree.root)
    for rel in ("rules/rule-one.md", "topics.yaml", "citations/a.yaml"):
        text = (tree.root / rel).read_text(encoding="utf-8")
        tree.write(rel, text.replace("\n", ending).encode("utf-8"))
    after = validate_content(tree.root)
    assert after.problems == []
    rule = lambda content: next(u for u in content.units if u.id == "rule-one")  # noqa: E731
    assert (rule(after).body, rule(after).meta, rule(after).body_line) == (rule(before).body, rule(before).meta, rule(before).body_line)
    assert after.citations == before.citations and after.taxonomy == before.taxonomy


# -- bounded reads (issue 22, item 8) ------------------------------------------------------------


def _limit(size: int):
    from unitrag.content.files import SizeLimit

    return SizeLimit(size, "max_file_bytes", "registry file", "split it")


def test_a_file_over_its_limit_is_a_problem_naming_it_size_limit_and_key(tmp_path, monkeypatch) -> None:
    from unitrag.content.files import read_bytes

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "citations.yaml"
    path.write_bytes(b"x" * 10_000)
    problems: list = []
    assert read_bytes(path, problems, _limit(9_999)) is None
    assert [(p.path, p.line, p.field) for p in problems] == [("citations.yaml", 1, "file")]
    assert "registry file is 10,000 bytes, over the limit of 9,999 (max_file_bytes)" in problems[0].message
    assert read_bytes(path, problems, _limit(10_000)) == b"x" * 10_000 and len(problems) == 1


def test_a_file_that_says_it_is_small_is_still_read_no_further_than_its_limit() -> None:
    from unitrag.content.files import read_bytes

    problems: list = []  # /proc files report a size of 0 and hold kilobytes: the read itself stops at limit + 1
    assert read_bytes(Path("/proc/self/maps"), problems, _limit(100)) is None
    assert "more than 100 bytes, over the limit of 100 (max_file_bytes)" in problems[0].message


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_fifo_device_or_folder_is_refused_before_any_read(tmp_path, kind) -> None:
    import os

    from unitrag.content.files import read_bytes

    path = {"fifo": tmp_path / "guard.yaml", "device": Path("/dev/zero"), "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking open used to wait forever
    problems: list = []
    assert read_bytes(path, problems) is None  # no limit given: /dev/zero would have been read without end
    assert "not a regular file" in problems[0].message


def test_a_fifo_among_the_units_is_a_problem_not_a_hang(tree) -> None:
    import os

    os.mkfifo(tree.root / "rules" / "pipe.md")
    problems = validate_content(tree.root).problems
    assert [(p.path, p.field) for p in problems] == [(tree.shown("rules/pipe.md"), "file")]
    assert "not a regular file" in problems[0].message


def test_a_utf16_file_is_named_as_utf16() -> None:
    """A new team's audit: a unit saved as UTF-16 by a Windows editor was only "not UTF-8 text (byte 0xff)"."""
    from unitrag.content.files import decode_text

    problems: list = []
    assert decode_text("---\nid: x\n".encode("utf-16"), "u.md", problems) is None
    assert "it is UTF-16" in problems[0].message and "save the file as UTF-8" in problems[0].message


def test_a_link_whose_target_cannot_be_resolved_is_outside_not_a_traceback(tmp_path, monkeypatch):
    """An attacker's link to /proc/1/cwd/x.md made `validate` raise PermissionError from realpath."""
    import os

    from unitrag.content.files import link_outside

    (tmp_path / "content").mkdir()
    link = tmp_path / "content" / "bad.md"
    link.symlink_to("/proc/1/cwd/x.md")

    def refused(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied", "/proc/1/cwd")

    monkeypatch.setattr(os.path, "realpath", refused)
    assert link_outside(tmp_path / "content", link) == "/proc/1/cwd/x.md"
