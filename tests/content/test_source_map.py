"""SourceMap: 1-based lines for keys, nested keys and list items."""

from __future__ import annotations

import yaml

from unitrag.content.source_map import SourceMap, yaml_error_line

DOC = """\
kind: rule
id: r
trigger:
  marker: m
  threshold:
    - 1
    - 5
topics: [a, b]
citationIds:
  - x
  -
    nested: 1
"""


def test_top_level_keys():
    m = SourceMap(DOC)
    assert m.line(("kind",)) == 1
    assert m.line(("id",)) == 2
    assert m.line(("trigger",)) == 3
    assert m.line(("topics",)) == 8
    assert m.line(("citationIds",)) == 9


def test_nested_keys():
    m = SourceMap(DOC)
    assert m.line(("trigger", "marker")) == 4
    assert m.line(("trigger", "threshold")) == 5


def test_block_list_items():
    m = SourceMap(DOC)
    assert m.line(("trigger", "threshold", 0)) == 6
    assert m.line(("trigger", "threshold", 1)) == 7
    assert m.line(("citationIds", 0)) == 10
    assert m.line(("citationIds", 1, "nested")) == 12


def test_flow_list_items_are_on_the_key_line():
    m = SourceMap(DOC)
    assert m.line(("topics", 0)) == 8
    assert m.line(("topics", 1)) == 8


def test_unknown_path_falls_back_to_deepest_known_prefix():
    m = SourceMap(DOC)
    assert m.line(("trigger", "no-such-key")) == 3
    assert m.line(("trigger", "threshold", 9)) == 5
    assert m.line(("missing",)) == 1  # the document start
    assert m.line() == 1


def test_first_line_offset():
    m = SourceMap(DOC, first_line=10)
    assert m.line(("kind",)) == 10
    assert m.line(("trigger", "threshold", 1)) == 16


def test_leading_blank_line_counts():
    # frontmatter text starts with the newline after the opening '---'
    m = SourceMap("\nkind: story\nid: s\n")
    assert m.line(("kind",)) == 2
    assert m.line(("id",)) == 3


def test_top_level_list_items():
    m = SourceMap("- id: a\n  title: A\n- id: b\n  title: B\n")
    assert m.line((0, "id")) == 1
    assert m.line((1, "id")) == 3
    assert m.line((1, "title")) == 4


def test_broken_yaml_gives_first_line():
    m = SourceMap("a: [1, 2\nb: c: d\n", first_line=4)
    assert m.line(("b",)) == 4
    assert m.line() == 4


def test_empty_text():
    assert SourceMap("", first_line=3).line(("x",)) == 3


def test_yaml_error_line():
    text = "a: 1\nb: 2\nc: d: e\n"
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        assert yaml_error_line(exc) == 3
        assert yaml_error_line(exc, first_line=10) == 12
    else:  # pragma: no cover
        raise AssertionError("expected a YAML error")


def test_yaml_error_line_without_mark():
    assert yaml_error_line(yaml.YAMLError("no mark"), first_line=7) == 7
