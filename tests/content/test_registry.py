"""The YAML registries: citations, topics, guard rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.content.problems import Problem
from unitrag.content.registry import load_citations, load_guard_rules, load_taxonomy


@pytest.fixture
def ydir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def triples(problems: list[Problem]) -> list[tuple[str, int, str]]:
    return sorted((p.path, p.line, p.field) for p in problems)


# --- citations ------------------------------------------------------------------------------


def test_citations_merge_across_files(ydir, samples):
    a = write(ydir / "citations/a.yaml", samples.CITATIONS)
    b = write(ydir / "citations/b.yaml", "- id: cit-c\n  title: C\n  year: 1999\n")
    problems: list[Problem] = []
    registry = load_citations([a, b], problems)
    assert problems == []
    assert set(registry) == {"cit-a", "cit-b", "cit-c"}
    assert registry["cit-a"].authors == ["Someone"] and registry["cit-b"].url is None


def test_duplicate_citation_across_files_names_both(ydir, samples):
    a = write(ydir / "citations/a.yaml", samples.CITATIONS)
    b = write(ydir / "citations/b.yaml", "- id: cit-c\n  title: C\n  year: 1999\n- id: cit-b\n  title: again\n  year: 2001\n")
    problems: list[Problem] = []
    registry = load_citations([a, b], problems)
    assert [str(p) for p in problems] == [
        "citations/b.yaml:4: id: duplicate citation id 'cit-b' (also at citations/a.yaml:6)"
    ]
    assert registry["cit-b"].title == "Paper B"  # the first definition wins


def test_duplicate_citation_within_one_file(ydir):
    a = write(ydir / "c.yaml", "- id: x\n  title: A\n  year: 2000\n- id: x\n  title: B\n  year: 2000\n")
    problems: list[Problem] = []
    load_citations([a], problems)
    assert [str(p) for p in problems] == ["c.yaml:4: id: duplicate citation id 'x' (also at c.yaml:1)"]


def test_duplicate_citation_line_after_an_invalid_entry(ydir, samples):
    a = write(ydir / "citations/a.yaml", samples.CITATIONS)
    b = write(ydir / "citations/b.yaml", "- id: broken\n  title: no year\n- id: cit-a\n  title: dup\n  year: 2001\n")
    problems: list[Problem] = []
    load_citations([a, b], problems)
    dup = next(p for p in problems if "duplicate" in p.message)
    assert dup.line == 3  # the '- id: cit-a' line; reported as 1 (the invalid entry's line)


def test_citation_entry_errors_name_the_entry(ydir):
    a = write(
        ydir / "c.yaml",
        "- id: ok\n  title: A\n  year: 2000\n"      # 1-3
        "- id: no-year\n  title: B\n"                # 4-5
        "- id: bad-url\n  title: C\n  year: 2000\n  url: ftp://x.org/c\n"  # 6-9
        "- title: D\n  year: 2000\n  venu: typo\n",  # 10-12
    )
    problems: list[Problem] = []
    registry = load_citations([a], problems)
    assert set(registry) == {"ok"}
    assert triples(problems) == [
        ("c.yaml", 4, "no-year.year"),
        ("c.yaml", 9, "bad-url.url"),
        ("c.yaml", 10, "[3].id"),
        ("c.yaml", 12, "[3].venu"),
    ]
    by_field = {p.field: p.message for p in problems}
    assert by_field["bad-url.url"] == "url must start with http:// or https://"
    assert by_field["no-year.year"] == "required field is missing"


def test_citations_yaml_syntax_error(ydir):
    a = write(ydir / "c.yaml", "- id: x\n  title: A\n  year: 2000\n- id: y\n  title: [B\n")
    problems: list[Problem] = []
    assert load_citations([a], problems) == {}
    p = problems[0]
    assert len(problems) == 1 and p.field == "yaml" and p.message.startswith("YAML syntax error")
    assert p.line == 5  # where the never-closed flow sequence opens, not the end of the file where the parser gave up
    assert "'[' list opened on this line is not closed" in p.message and "read on to line 6" in p.message


def test_citations_yaml_syntax_error_line(ydir):
    a = write(ydir / "c.yaml", "- id: x\n  title: A\n  year: a: b\n")
    problems: list[Problem] = []
    load_citations([a], problems)
    assert triples(problems) == [("c.yaml", 3, "yaml")]


def test_citations_not_a_list(ydir):
    a = write(ydir / "c.yaml", "id: x\ntitle: A\n")
    problems: list[Problem] = []
    assert load_citations([a], problems) == {}
    assert [str(p) for p in problems] == ["c.yaml:1: yaml: expected a list of entries"]


def test_empty_citations_file_is_fine(ydir):
    a = write(ydir / "c.yaml", "# nothing yet\n")
    problems: list[Problem] = []
    assert load_citations([a], problems) == {} and problems == []


def test_citations_file_not_utf8(ydir):
    a = ydir / "c.yaml"
    a.write_bytes(b"- id: x\n  title: \xff\n  year: 2000\n")
    problems: list[Problem] = []
    assert load_citations([a], problems) == {}
    assert triples(problems) == [("c.yaml", 2, "file")]


# --- topics ---------------------------------------------------------------------------------


def test_taxonomy_valid(ydir, samples):
    t = write(ydir / "topics.yaml", samples.TOPICS)
    problems: list[Problem] = []
    tax = load_taxonomy([t], ydir, problems)
    assert problems == []
    assert tax.topics[0].synonyms.zh == ["钴胺素"]
    assert tax.groups[0].members == ["vitamin-b12", "folate"]


def test_taxonomy_missing(ydir):
    problems: list[Problem] = []
    tax = load_taxonomy([], ydir, problems)
    assert tax.topics == []
    assert [str(p) for p in problems] == ["topics.yaml:1: topics: topics.yaml is missing"]


def test_duplicate_topic_ids_and_unknown_members(ydir):
    t = write(
        ydir / "topics.yaml",
        "topics:\n"                                    # 1
        "  - id: a\n    names: {en: A, zh: A}\n"       # 2-3
        "  - id: a\n    names: {en: A2, zh: A2}\n"     # 4-5
        "groups:\n"                                    # 6
        "  - id: g\n    names: {en: G, zh: G}\n"       # 7-8
        "    members:\n      - a\n      - ghost\n"     # 9-11
        "  - id: a\n    names: {en: G2, zh: G2}\n"     # 12-13
        "    members: [a]\n",                          # 14
    )
    problems: list[Problem] = []
    load_taxonomy([t], ydir, problems)
    assert triples(problems) == [
        ("topics.yaml", 4, "id"),
        ("topics.yaml", 11, "g.members"),
        ("topics.yaml", 12, "id"),
    ]
    msgs = {(p.line, p.message) for p in problems}
    assert (4, "duplicate topic id 'a'") in msgs
    assert (11, "unknown topic 'ghost'") in msgs


def test_group_member_must_be_a_topic_not_a_group(ydir):
    t = write(
        ydir / "topics.yaml",
        "topics:\n  - id: a\n    names: {en: A, zh: A}\n"
        "groups:\n  - id: g1\n    names: {en: G, zh: G}\n    members: [a]\n"
        "  - id: g2\n    names: {en: G, zh: G}\n    members: [g1]\n",
    )
    problems: list[Problem] = []
    load_taxonomy([t], ydir, problems)
    assert [(p.line, p.field, p.message) for p in problems] == [(10, "g2.members", "unknown topic 'g1'")]


def test_a_bad_exclude_is_reported_on_its_line_naming_the_topic(ydir):
    t = write(
        ydir / "topics.yaml",
        "topics:\n"                                      # 1
        "  - id: iron\n"                                 # 2
        "    names: {en: Iron, zh: 铁}\n"                # 3
        "    excludes:\n"                                # 4
        "      - 高铁\n"                                 # 5
        "      - 高速\n",                                # 6
    )
    problems: list[Problem] = []
    tax = load_taxonomy([t], ydir, problems)
    assert tax.topics == []
    [problem] = problems
    assert (problem.path, problem.line, problem.field) == ("topics.yaml", 6, "iron.excludes.1")
    assert problem.message.startswith("exclude '高速' of topic 'iron' contains none of its names or synonyms (Iron, 铁)")


def test_taxonomy_schema_error(ydir):
    t = write(ydir / "topics.yaml", "topics:\n  - id: a\n    names: {en: A, zh: ''}\n")
    problems: list[Problem] = []
    invalid: set[str] = set()
    tax = load_taxonomy([t], ydir, problems, invalid_ids=invalid)
    assert tax.topics == []
    assert triples(problems) == [("topics.yaml", 3, "a.names.zh")]
    assert invalid == {"a"}, "defined, only wrong: what names it is not reported as naming an unknown topic"


def test_one_bad_topic_keeps_the_others_and_a_group_naming_it_is_not_reported_too(ydir):
    t = write(ydir / "topics.yaml", "topics:\n  - id: a\n    names: {en: A, zh: ''}\n  - id: b\n    names: {en: B, zh: 乙}\n"
                                    "groups:\n  - id: g\n    names: {en: G, zh: 丙}\n    members: [a, b]\n")
    problems: list[Problem] = []
    tax = load_taxonomy([t], ydir, problems, invalid_ids=set())
    assert [topic.id for topic in tax.topics] == ["b"] and [group.id for group in tax.groups] == ["g"]
    assert triples(problems) == [("topics.yaml", 3, "a.names.zh")]


def test_taxonomy_yaml_error(ydir):
    t = write(ydir / "topics.yaml", "topics:\n  - id: a\n  names: b: c\n")
    problems: list[Problem] = []
    load_taxonomy([t], ydir, problems)
    assert len(problems) == 1 and problems[0].field == "yaml" and problems[0].line == 3


# --- guard ----------------------------------------------------------------------------------


def test_guard_rules_valid(ydir, samples):
    g = write(ydir / "guard.yaml", samples.GUARD)
    problems: list[Problem] = []
    rules = load_guard_rules([g], problems)
    assert problems == []
    assert rules[0].type == "red_flag" and rules[0].patterns.zh == ["胸痛"]


def test_guard_bad_regex_on_its_line(ydir):
    g = write(
        ydir / "guard.yaml",
        "- id: oos\n"                     # 1
        "  type: out_of_scope\n"          # 2
        "  patterns:\n"                   # 3
        "    en:\n"                       # 4
        "      - 'fine'\n"                # 5
        "      - '(unclosed'\n"           # 6
        "    zh: ['[a-']\n"               # 7
        "  response: {en: a, zh: b}\n",   # 8
    )
    problems: list[Problem] = []
    rules = load_guard_rules([g], problems)
    assert triples(problems) == [("guard.yaml", 6, "oos.patterns.en"), ("guard.yaml", 7, "oos.patterns.zh")]
    assert all(p.message.startswith("bad regular expression: ") for p in problems)
    assert [r.id for r in rules] == ["oos"]


def test_guard_schema_error(ydir):
    g = write(ydir / "guard.yaml", "- id: x\n  type: warning\n  patterns: {}\n  response: {en: a}\n")
    problems: list[Problem] = []
    assert load_guard_rules([g], problems) == []
    assert triples(problems) == [("guard.yaml", 2, "x.type"), ("guard.yaml", 4, "x.response.zh")]


def test_guard_bad_regex_line_after_an_invalid_rule(ydir):
    g = write(
        ydir / "guard.yaml",
        "- id: broken\n  type: nope\n  patterns: {en: ['x']}\n  response: {en: a, zh: b}\n"  # 1-4
        "- id: bad-re\n  type: out_of_scope\n  patterns:\n    en: ['(unclosed']\n"           # 5-8
        "  response: {en: a, zh: b}\n",
    )
    problems: list[Problem] = []
    load_guard_rules([g], problems)
    bad = next(p for p in problems if p.field == "bad-re.patterns.en")
    assert bad.line == 8  # reported as 3 (the invalid first rule's patterns line)


def test_dev_question_files_are_every_eval_yaml_but_the_held_out_ones(tmp_path):
    from unitrag.content.registry import dev_question_files, is_held_out

    folder = tmp_path / "eval"
    folder.mkdir()
    for name in ("questions.yaml", "context_dev.yaml", "questions_test.yaml", "guard2_test.yaml", "notes.txt"):
        (folder / name).write_text("[]\n", encoding="utf-8")
    assert [p.name for p in dev_question_files(tmp_path)] == ["context_dev.yaml", "questions.yaml"]
    assert is_held_out(folder / "questions3_test.yaml") and is_held_out(tmp_path / "test" / "q.yaml")
    assert not is_held_out(tmp_path / "test_calibration" / "latest.yaml") and not is_held_out(folder / "contest.yaml")
    assert dev_question_files(tmp_path / "missing") == []


def test_a_group_member_naming_a_topic_whose_id_failed_as_written_is_not_reported_too(ydir):
    """`id: A` fails (ids are lower-case); a group's `members: [a]` means it and is not a second problem."""
    t = write(ydir / "topics.yaml", "topics:\n  - id: A\n    names: {en: A, zh: 甲}\n  - id: b\n    names: {en: B, zh: 乙}\n"
                                    "groups:\n  - id: g\n    names: {en: G, zh: 丙}\n    members: [a, b]\n")
    problems: list[Problem] = []
    invalid: set[str] = set()
    load_taxonomy([t], ydir, problems, invalid_ids=invalid)
    assert triples(problems) == [("topics.yaml", 2, "A.id")] and invalid == {"A"}
