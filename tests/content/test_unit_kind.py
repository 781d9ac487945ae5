"""A unit whose ``kind`` is not one: every other problem of the file is still reported in the same run."""

from __future__ import annotations

import pytest

from unitrag.content.unit_kind import kind_by_fields, kind_written
from unitrag.content.validate import validate_content


@pytest.mark.parametrize(("written", "meant"), [
    ("Story", "story"), ("ｓｔｏｒｙ", "story"), ("故事", "story"), ("規則", "rule"), ("文档", "document"),
    ("documents", "document"), ("doc", "document"), ("stroy", "story"), ("scenes", "scene"),
    ("nope", None), ("article", None), (["story"], None), (None, None),
])
def test_the_kind_written_another_way_is_the_one_meant(written, meant):
    assert kind_written(written) == meant


def test_the_kind_whose_own_fields_a_unit_has_is_the_one_meant():
    assert kind_by_fields({"story": "s", "order": 1}) == "scene"
    assert kind_by_fields({"trigger": {}, "severity": "info"}) == "rule"
    assert kind_by_fields({"id": "x", "title": "t"}) is None
    assert kind_by_fields({"source": "s", "summary": "s"}) is None  # a tie tells nothing


def test_a_kind_in_chinese_reports_every_other_problem_of_the_file_in_the_same_run(tree, samples):
    """A new team's audit: `kind: 文档` was the file's only problem; its `lang: 中文`, `access: 员工` and
    `topics: [绿茶]` were told on the next run."""
    document = (samples.DOCUMENT.replace("kind: document", "kind: 文档").replace("lang: zh", "lang: 中文\naccess: 员工")
                .replace("topics: [b-vitamins]", "topics: [绿茶]"))
    tree.write("documents/doc-one.md", document)
    problems = validate_content(tree.root, restricted_role="staff").problems
    assert [(p.path, p.line, p.field) for p in problems] == [
        ("content/documents/doc-one.md", line, field)
        for line, field in ((2, "kind"), (5, "lang"), (6, "access"), (7, "topics"), (7, "topics.0"))]
    messages = {p.field: p.message for p in problems}
    assert messages["kind"] == "unknown kind '文档' (expected one of story, scene, rule, document): write document"
    assert messages["lang"].endswith(": write zh")


def test_an_unknown_kind_is_told_the_kind_whose_fields_the_unit_has_and_checked_as_one(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("kind: rule", "kind: 提醒").replace("severity: warning", "severity: 高"))
    problems = {p.field: p.message for p in validate_content(tree.root).problems}
    assert set(problems) == {"kind", "severity"}
    assert "it has a rule's fields (severity, trigger): write rule if it is one" in problems["kind"]


def test_a_kind_nothing_tells_checks_the_fields_every_kind_has_where_they_are_written(tree, samples):
    tree.write("stories/story-one.md", "---\nkind: nope\nid: story-one\nlang: 中文\ntopics: [Folate]\n---\nText.\n")
    problems = {p.field: p.message for p in validate_content(tree.root).problems}
    # no "title: required field is missing": which fields a unit needs depends on its kind
    assert set(problems) == {"kind", "lang", "topics", "topics.0"}, problems
    assert problems["kind"] == "unknown kind 'nope' (expected one of story, scene, rule, document)"


def test_a_kind_that_is_no_text_is_a_problem_not_a_traceback(tree, samples):
    tree.write("stories/story-one.md", samples.STORY.replace("kind: story", "kind: [story]"))
    problems = [p for p in validate_content(tree.root).problems if p.path.endswith("story-one.md")]
    assert [(p.line, p.field) for p in problems] == [(2, "kind")]


def test_a_question_naming_a_unit_of_a_wrong_kind_is_not_told_the_unit_is_another_kind(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("kind: rule", "kind: 规则"))
    tree.write("eval/questions.yaml", "- id: q1\n  question: \"Is 150 low?\"\n  lang: en\n  expected_units: [rule-one]\n"
                                      "  user: {triggered_rules: [rule-one]}\n")
    assert [p.field for p in validate_content(tree.root).problems] == ["kind"]


def test_an_empty_body_is_a_problem_only_of_a_kind_that_needs_one(tree, samples):
    tree.write("stories/story-one.md", samples.STORY.replace("kind: story", "kind: 故事").split("---\nAn intro")[0] + "---\n")
    tree.write("stories/other.md", "---\nkind: nope\nid: other\n---\n")
    assert [p.field for p in validate_content(tree.root).problems] == ["kind", "kind"]
