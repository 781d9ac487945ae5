"""Reading files and frontmatter: parse_unit, read_text, load_content."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from unitrag.content.files import display_path, read_text
from unitrag.content.loader import load_content, parse_unit
from unitrag.content.models import Rule, Scene, Story
from unitrag.content.problems import Problem

X = Path("x.md")


def only(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, problems
    return problems[0]


# --- parse_unit -----------------------------------------------------------------------------


def test_parse_valid_unit_body_and_lines(samples):
    loaded, problems = parse_unit(X, samples.SCENE)
    assert problems == []
    assert isinstance(loaded.unit, Scene) and loaded.id == "scene-one"
    assert loaded.meta["story"] == "story-one"
    # the closing '---' is line 9; the body starts on line 10
    assert loaded.body_line == 10
    body_lines = loaded.body.split("\n")
    assert body_lines[10 - loaded.body_line].startswith("Scene text")
    assert loaded.line_of("order") == 6
    assert loaded.line_of("citationIds", 1) == 8


def test_body_line_with_blank_lines_after_frontmatter():
    text = "---\nkind: story\n---\n\n\nHello\n"
    loaded, _ = parse_unit(X, text)
    lines = loaded.body.split("\n")
    idx = next(i for i, line in enumerate(lines) if line == "Hello")
    assert loaded.body_line + idx == 6


def test_no_frontmatter():
    p = only(parse_unit(X, "just text\n---\n")[1])
    assert (p.line, p.field) == (1, "frontmatter") and "no YAML frontmatter" in p.message
    assert parse_unit(X, "just text")[0] is None


def test_unterminated_frontmatter():
    loaded, problems = parse_unit(X, "---\nkind: story\nid: s\n")
    p = only(problems)
    assert loaded is None
    assert (p.line, p.field) == (1, "frontmatter") and "not closed" in p.message


def test_yaml_syntax_error_points_at_its_line():
    text = "---\nkind: story\nid: s\ntitle: a: b\nlang: en\n---\nbody\n"
    loaded, problems = parse_unit(X, text)
    p = only(problems)
    assert loaded is None
    assert (p.path, p.line, p.field) == ("x.md", 4, "frontmatter")
    assert p.message.startswith("YAML syntax error: mapping values are not allowed")


@pytest.mark.parametrize("fm", ["- a\n- b\n", "", "just a string\n"])
def test_frontmatter_must_be_a_mapping(fm):
    p = only(parse_unit(X, f"---\n{fm}---\nbody\n")[1])
    assert (p.line, p.field) == (1, "frontmatter") and "mapping" in p.message


def test_missing_kind():
    p = only(parse_unit(X, "---\nid: s\n---\nbody\n")[1])
    assert (p.line, p.field) == (1, "kind") and "required field is missing" in p.message


def test_unknown_kind_on_its_line():
    loaded, problems = parse_unit(X, "---\nid: s\ntitle: t\nkind: article\n---\nbody\n")
    p = only(problems)
    assert loaded is not None and loaded.unit is None  # kept: its fields are cross-checked all the same
    assert (p.line, p.field) == (4, "kind")
    assert "unknown kind 'article'" in p.message


def test_schema_errors_keep_meta_for_cross_checks(samples):
    text = samples.SCENE.replace("order: 1", 'order: "x"')
    loaded, problems = parse_unit(X, text)
    assert loaded is not None and loaded.unit is None
    assert loaded.meta["story"] == "story-one"
    p = only(problems)
    assert (p.line, p.field) == (6, "order")
    assert "valid integer" in p.message and "(got 'x')" in p.message


def test_every_schema_error_in_one_file_is_reported():
    text = (
        "---\n"                 # 1
        "kind: scene\n"         # 2
        "id: Bad_Id\n"          # 3
        "story: story-one\n"    # 4
        "order: 0\n"            # 5
        "lang: fr\n"            # 6
        "titel: typo\n"         # 7
        "topics: [a]\n"         # 8
        "---\nbody\n"
    )
    _, problems = parse_unit(X, text)
    got = {(p.line, p.field) for p in problems}
    assert got == {(3, "id"), (5, "order"), (6, "lang"), (7, "titel"), (2, "title")}
    by_field = {p.field: p.message for p in problems}
    assert by_field["title"] == "required field is missing"
    assert by_field["titel"] == "unknown field: did you mean 'title'? (the fields are in docs/authoring.md)"
    assert "'zh' or 'en'" in by_field["lang"] and "(got 'fr')" in by_field["lang"]


def test_nested_trigger_error_line_and_field(samples):
    text = samples.RULE.replace("threshold: 200", "threshold: abc")
    _, problems = parse_unit(X, text)
    # the union member names (float, tuple[...]) are stripped from the field
    assert {(p.line, p.field) for p in problems} == {(11, "trigger.threshold")}
    # one mistake, one problem: not "a valid number" and again "a valid tuple" (a new team's `threshold: 40cm`)
    assert [p.message for p in problems] == ["Input should be a valid number or a valid tuple (got 'abc')"]


def test_value_error_prefix_is_stripped(samples):
    text = samples.RULE.replace('comparison: "<"', "comparison: between")
    p = only(parse_unit(X, text)[1])
    assert p.message == "'between' needs threshold: [low, high]"


def test_crlf_line_endings(samples):
    text = samples.RULE.replace('comparison: "<"', "comparison: '=='").replace("\n", "\r\n")
    loaded, problems = parse_unit(X, text)
    p = only(problems)
    assert (p.line, p.field) == (10, "trigger.comparison")
    assert loaded.meta["id"] == "rule-one"


# --- read_text ------------------------------------------------------------------------------


def test_read_text_utf8_and_bom(tmp_path):
    path = tmp_path / "a.md"
    path.write_bytes("\ufeff---\nkind: story\n".encode("utf-8"))
    problems: list[Problem] = []
    assert read_text(path, problems) == "---\nkind: story\n"
    assert problems == []


def test_read_text_not_utf8_reports_line_and_byte(tmp_path):
    path = tmp_path / "a.md"
    path.write_bytes(b"---\nkind: story\ntitle: caf\xe9\n---\n")
    problems: list[Problem] = []
    assert read_text(path, problems) is None
    p = only(problems)
    assert (p.line, p.field) == (3, "file")
    assert "not UTF-8" in p.message and "0xe9" in p.message


def test_read_text_oserror_is_a_problem(tmp_path):
    # tests may run as root, where chmod 000 does not stop reading: a directory does
    path = tmp_path / "dir.md"
    path.mkdir()
    problems: list[Problem] = []
    assert read_text(path, problems) is None
    p = only(problems)
    assert (p.line, p.field) == (1, "file") and p.message.startswith("cannot read the file")


def test_read_text_dangling_symlink(tmp_path):
    path = tmp_path / "link.md"
    path.symlink_to(tmp_path / "missing")
    problems: list[Problem] = []
    assert read_text(path, problems) is None
    assert "cannot read the file" in only(problems).message


def test_display_path_is_relative_to_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert display_path(tmp_path / "content" / "a.md") == os.path.join("content", "a.md")


# --- load_content ---------------------------------------------------------------------------


def test_load_valid_tree(tree):
    content = load_content(tree.root)
    assert content.problems == [] and content.ok and content.complete
    kinds = sorted(type(lu.unit).__name__ for lu in content.units)
    assert kinds == ["Document", "Rule", "Scene", "Story"]
    assert set(content.citations) == {"cit-a", "cit-b"}
    assert [t.id for t in content.taxonomy.topics] == ["vitamin-b12", "folate"]
    assert [g.id for g in content.taxonomy.groups] == ["b-vitamins"]
    assert [g.id for g in content.guard_rules] == ["red-flag-chest-pain"]
    assert content.invalid_units == []
    paths = {lu.path for lu in content.units}
    assert "content/scenes/story-one/01-scene-one.md" in paths


def test_invalid_unit_makes_content_incomplete(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("severity: warning\n", ""))
    content = load_content(tree.root)
    assert content.complete is False
    assert [lu.path for lu in content.invalid_units] == ["content/rules/rule-one.md"]
    assert "rule-one" not in {lu.id for lu in content.units}
    assert [(p.path, p.field) for p in content.problems] == [("content/rules/rule-one.md", "severity")]


@pytest.mark.parametrize("text", ["no frontmatter\n", "---\nkind: story\n", "---\nkind: nope\n---\n"])
def test_unparsable_unit_makes_content_incomplete(tree, text):
    tree.write("stories/broken.md", text)
    content = load_content(tree.root)
    assert content.complete is False
    assert [p.path for p in content.problems] == ["content/stories/broken.md"]


def test_non_utf8_unit_makes_content_incomplete(tree, samples):
    tree.write("stories/latin1.md", samples.STORY.encode("utf-8").replace(b"Story one", b"Caf\xe9"))
    content = load_content(tree.root)
    assert content.complete is False
    assert [(p.path, p.line, p.field) for p in content.problems] == [("content/stories/latin1.md", 4, "file")]


def test_unreadable_unit_makes_content_incomplete(tree, monkeypatch, samples):
    from unitrag.content import files

    broken = tree.write("stories/locked.md", samples.STORY.replace("story-one", "story-locked"))
    real = files.read_regular

    def read_regular(path: Path, max_bytes: int | None = None) -> bytes:
        if path.name == broken.name:
            raise PermissionError(13, "Permission denied")
        return real(path, max_bytes)

    monkeypatch.setattr(files, "read_regular", read_regular)
    content = load_content(tree.root)
    assert content.complete is False
    assert [str(p) for p in content.problems] == ["content/stories/locked.md:1: file: cannot read the file: Permission denied"]


def test_non_markdown_file_is_reported(tree):
    tree.write("notes.txt", "hello")
    tree.write("stories/extra.yaml", "a: 1\n")
    tree.write("citations/nested/c.yaml", "[]\n")
    content = load_content(tree.root)
    got = sorted((p.path, p.line, p.field) for p in content.problems)
    assert got == [
        ("content/citations/nested/c.yaml", 1, "file"),
        ("content/notes.txt", 1, "file"),
        ("content/stories/extra.yaml", 1, "file"),
    ]
    assert all("not a Markdown file" in p.message for p in content.problems)


def test_hidden_files_and_readme_are_skipped(tree):
    tree.write(".git/config", "x")
    tree.write("stories/.draft.md", "no frontmatter")
    tree.write("README.md", "# About this folder\n")
    tree.write("scenes/readme.MD", "notes")
    content = load_content(tree.root)
    assert content.problems == [] and content.complete


def test_markdown_extension_is_a_unit(tree, samples):
    tree.write("stories/two.markdown", samples.STORY.replace("story-one", "story-two"))
    content = load_content(tree.root)
    assert "story-two" in {lu.id for lu in content.units}


def test_missing_content_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    content = load_content(tmp_path / "nope")
    assert content.complete is False
    p = only(content.problems)
    assert (p.path, p.line, p.field) == ("nope", 1, "content")


def test_bom_unit_is_valid(tree, samples):
    tree.write("stories/story-one.md", "\ufeff" + samples.STORY)
    content = load_content(tree.root)
    assert content.problems == []
    assert isinstance(next(lu.unit for lu in content.units if lu.id == "story-one"), Story)
    assert any(isinstance(lu.unit, Rule) for lu in content.units)


def test_a_unit_over_the_size_limit_is_a_problem_naming_it(tree, samples):
    from unitrag.content.validate import validate_content

    big = samples.DOCUMENT + ("一段不断延续下去的纯文本。" * 250 + "\n\n") * 10  # ~100 KB, in the unit's lang (zh)
    tree.write("documents/doc-one.md", big)
    size = len(big.encode())
    problems = validate_content(tree.root, max_unit_bytes=50_000).problems
    assert [(p.path, p.line, p.field) for p in problems] == [(tree.shown("documents/doc-one.md"), 1, "file")]
    assert f"{size:,} bytes" in problems[0].message and "max_unit_bytes" in problems[0].message
    assert validate_content(tree.root, max_unit_bytes=size).problems == []
    assert validate_content(tree.root).problems == []  # no limit unless one is given


def test_an_unreadable_folder_is_a_problem_and_makes_content_incomplete(tree, monkeypatch):
    import os

    from unitrag.content import files

    real = os.scandir

    def scandir(path):
        if str(path).endswith("rules"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(files.os, "scandir", scandir)
    content = load_content(tree.root)
    assert content.complete is False  # the rules in it may be in the artifact: nothing is swept
    assert [str(p) for p in content.problems] == ["content/rules:1: file: cannot read the folder: Permission denied"]
    assert "rule-one" not in {lu.id for lu in content.units} and "story-one" in {lu.id for lu in content.units}


@pytest.mark.parametrize("rel", ["citations/big.yaml", "topics.yaml", "guard.yaml", "eval/questions.yaml"])
def test_a_registry_file_over_max_file_bytes_is_a_problem_naming_it(tree, samples, rel):
    """300,000 citations (48 MB) built in 102 s at 2.1 GB before any limit: every registry file now has one."""
    from unitrag.content.validate import validate_content

    texts = {"citations/big.yaml": samples.CITATIONS.replace("cit-", "big-"), "topics.yaml": samples.TOPICS,
             "guard.yaml": samples.GUARD}
    text = texts.get(rel, "[]\n")
    padded = text + "# padding\n" * 5_000
    tree.write(rel, padded)
    size = len(padded.encode())
    problems = validate_content(tree.root, max_file_bytes=size - 1).problems
    over = [p for p in problems if p.path == tree.shown(rel)]
    assert [(p.line, p.field) for p in over] == [(1, "file")]
    assert f"registry file is {size:,} bytes, over the limit of {size - 1:,} (max_file_bytes)" in over[0].message
    assert validate_content(tree.root, max_file_bytes=size).problems == []


def test_the_config_limits_every_registry_file_by_default():
    from unitrag.config import Config

    assert Config().max_file_bytes == 5_000_000


def test_a_missing_content_folder_outside_a_knowledge_base_says_where_to_run(tmp_path, monkeypatch):
    """A new team's audit: `unitrag validate` in the wrong folder said only "content folder not found"."""
    from unitrag.content.loader import load_content

    monkeypatch.chdir(tmp_path)
    message = load_content(tmp_path / "content").problems[0].message
    assert "no unitrag.toml here" in message and "unitrag init" in message
    (tmp_path / "unitrag.toml").write_text("[unitrag]\n")
    assert "unitrag.toml" not in load_content(tmp_path / "content").problems[0].message


def test_an_unknown_field_name_is_shown_escaped_when_it_hides_characters_and_many_are_summed_up():
    """A second attacker's audit: a key "ti\\u200btle" printed as "title: unknown field: did you mean 'title'?"; 20,000
    unknown keys printed 20,000 lines."""
    from unitrag.content.errors import MAX_UNKNOWN_FIELDS

    many = "".join(f"k{i}: 1\n" for i in range(MAX_UNKNOWN_FIELDS + 7))
    text = f'---\nkind: rule\nid: r\ntitle: T\nlang: en\nseverity: warning\n"ti\u200btle": y\n{many}---\nbody\n'
    _, problems = parse_unit(X, text)
    fields = [p.field for p in problems]
    assert "'ti\\u200btle'" in fields and "ti\u200btle" not in fields
    assert len([f for f in fields if f.startswith("k")]) == MAX_UNKNOWN_FIELDS - 1
    assert problems[-1].message == "8 more unknown fields, not listed"
