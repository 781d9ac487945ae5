"""Author YAML refuses aliases: a "billion laughs" file is one problem at its line, in bounded time and memory."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from unitrag.content.safe_yaml import AliasRefused, load_yaml, yaml_problem
from unitrag.content.source_map import SourceMap

LEVELS, WIDTH = 9, 9  # 9**9 ≈ 387 million leaves once expanded


def bomb_items(indent: str = "") -> str:
    """List items, each an anchored list of WIDTH aliases of the one before."""
    lines = [f"{indent}- &a0 [" + ", ".join(['"lol"'] * WIDTH) + "]"]
    for level in range(1, LEVELS + 1):
        lines.append(f"{indent}- &a{level} [" + ", ".join([f"*a{level - 1}"] * WIDTH) + "]")
    return "\n".join(lines) + "\n"


def bomb_tree(root: Path) -> dict[str, int]:
    """A content tree with a bomb in a unit's frontmatter and in every registry; file → line of the first alias."""
    files = {
        "stories/bomb.md": "---\nkind: story\nid: bomb\ntitle: Bomb\nlang: en\nsummary: s\ntopics:\n" + bomb_items("  ") + "---\nBody.\n",
        "topics.yaml": "topics:\n" + bomb_items("  "),
        "citations/bomb.yaml": bomb_items(),
        "guard.yaml": bomb_items(),
        "eval/questions.yaml": bomb_items(),
    }
    first_alias = {}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        first_alias[f"content/{rel}"] = next(i for i, line in enumerate(text.split("\n"), 1) if "*a0" in line)
    return first_alias


CHILD = textwrap.dedent("""
    import json, resource, sys, time, tracemalloc
    from pathlib import Path
    limit = 1536 * 2**20  # fail with MemoryError rather than take the machine down
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from unitrag.content.validate import validate_content
    tracemalloc.start()
    start = time.perf_counter()
    content = validate_content(Path("content"))
    peak = tracemalloc.get_traced_memory()[1]
    print(json.dumps({"seconds": time.perf_counter() - start, "peak": peak,
                      "problems": [p.to_dict() for p in content.problems]}))
""")


def test_an_alias_bomb_in_every_yaml_is_refused_fast_and_small(tmp_path: Path) -> None:
    expected = bomb_tree(tmp_path / "content")
    try:
        result = subprocess.run([sys.executable, "-c", CHILD], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("validating an alias bomb did not finish in 60 s")
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["seconds"] < 10 and out["peak"] < 50 * 2**20, out | {"problems": None}
    aliases = {(p["path"], p["line"]) for p in out["problems"] if "alias" in p["message"]}
    assert aliases == set(expected.items())
    assert all(len(p["message"]) < 300 for p in out["problems"])


def test_load_yaml_names_the_line_of_the_first_alias() -> None:
    with pytest.raises(AliasRefused) as caught:
        load_yaml("a: &x 1\nb: 2\nc: *x\n")
    assert caught.value.problem_mark.line + 1 == 3
    assert isinstance(caught.value, yaml.YAMLError)


def test_anchors_without_aliases_and_stars_in_strings_are_fine() -> None:
    assert load_yaml('a: &x 1\nb: "2 * 3"\nc: "*not-an-alias"\n') == {"a": 1, "b": "2 * 3", "c": "*not-an-alias"}


def test_source_map_of_a_bomb_is_bounded() -> None:
    lines = SourceMap(bomb_items(), first_line=1)
    assert lines.line((LEVELS, 3)) == 1  # no line map for a refused document: the document start


def test_a_key_given_twice_is_refused_at_the_second() -> None:
    from unitrag.content.safe_yaml import DuplicateKey

    with pytest.raises(DuplicateKey) as caught:
        load_yaml("title: a\ntopics:\n  - x\ntitle: b\n")
    assert caught.value.problem_mark.line + 1 == 4 and "'title' is given twice" in caught.value.problem
    with pytest.raises(DuplicateKey):
        load_yaml("- id: q1\n  answers: [a]\n  answers: [b]\n")  # nested mappings too
    assert load_yaml("a: 1\nb: {a: 2}\n") == {"a": 1, "b": {"a": 2}}  # the same key in two mappings is fine


def test_a_unit_with_a_repeated_field_is_a_problem_at_its_line(tmp_path: Path) -> None:
    from unitrag.content.validate import validate_content

    (tmp_path / "content" / "rules").mkdir(parents=True)
    (tmp_path / "content" / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (tmp_path / "content" / "rules" / "r.md").write_text("---\nkind: rule\nid: r\ntitle: x\ntitle: y\n---\nbody\n", encoding="utf-8")
    problems = [p for p in validate_content(tmp_path / "content").problems if p.path.endswith("r.md")]
    assert [(p.line, p.field) for p in problems] == [(5, "frontmatter")] and "given twice" in problems[0].message


# -- syntax errors at their cause: where a quote or bracket was opened, not where the parser gave up ------------

UNCLOSED_QUOTE_UNIT = (
    "---\n"                         # 1
    "kind: rule\n"                  # 2
    "id: r\n"                       # 3
    "title: T\n"                    # 4
    "lang: en\n"                    # 5
    'summary: "never closed\n'      # 6  the cause
    "severity: info\n"              # 7
    "trigger:\n"                    # 8
    "  marker: a\n"                 # 9
    "---\nbody\n"                   # 10: where PyYAML gives up
)


def test_an_unclosed_quote_in_a_unit_is_reported_on_its_own_line(tmp_path: Path) -> None:
    from unitrag.content.validate import validate_content

    (tmp_path / "content" / "rules").mkdir(parents=True)
    (tmp_path / "content" / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (tmp_path / "content" / "rules" / "r.md").write_text(UNCLOSED_QUOTE_UNIT, encoding="utf-8")
    problems = [p for p in validate_content(tmp_path / "content").problems if p.path.endswith("r.md")]
    assert [(p.line, p.field) for p in problems] == [(6, "frontmatter")]
    assert problems[0].message.startswith("YAML syntax error: a quoted value opened on this line is never closed")


@pytest.mark.parametrize(("name", "text", "line", "says"), [
    ("guard.yaml", "- id: g\n  type: red_flag\n  response:\n    en: 'call now\n    zh: x\n", 4, "quoted value"),
    ("topics.yaml", "topics:\n  - id: a\n    names: {en: A, zh: 甲\n  - id: b\n", 3, "'{' mapping"),
    ("eval/questions.yaml", "- id: q1\n  question: \"what\n  expected_units: [a]\n", 2, "quoted value"),
    ("citations/c.yaml", "- id: c\n  authors: [A, B\n  year: 2000\n", 2, "'[' list"),
])
def test_an_unclosed_quote_or_bracket_in_a_registry_is_reported_where_it_opens(
        tmp_path: Path, name: str, text: str, line: int, says: str) -> None:
    from unitrag.content.validate import validate_content

    (tmp_path / "content" / name).parent.mkdir(parents=True, exist_ok=True)
    if name != "topics.yaml":
        (tmp_path / "content" / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (tmp_path / "content" / name).write_text(text, encoding="utf-8")
    problems = [p for p in validate_content(tmp_path / "content").problems if p.path.endswith(name)]
    assert [(p.line, p.field) for p in problems] == [(line, "yaml")]
    assert says in problems[0].message


CLOSED_BY_A_LATER_QUOTE = (
    "---\n"                                      # 1
    "kind: rule\n"                               # 2
    "id: r\n"                                    # 3
    'title: "Pour-over grind: and time\n'        # 4  the cause: YAML lets a quoted value run on...
    "lang: en\n"                                 # 5
    "questions:\n"                               # 6
    '  - "How fine should I grind for a V60?"\n'  # 7  ...to this quote, and the parser complains here
    "---\nbody\n"
)


def test_a_quote_left_open_is_reported_on_its_line_even_when_a_later_quote_closes_it(tmp_path: Path) -> None:
    from unitrag.content.validate import validate_content

    (tmp_path / "content" / "rules").mkdir(parents=True)
    (tmp_path / "content" / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (tmp_path / "content" / "rules" / "r.md").write_text(CLOSED_BY_A_LATER_QUOTE, encoding="utf-8")
    problems = [p for p in validate_content(tmp_path / "content").problems if p.path.endswith("r.md")]
    assert [(p.line, p.field) for p in problems] == [(4, "frontmatter")]
    assert "a quoted value opened on this line is not closed on it" in problems[0].message
    assert "line 7" in problems[0].message


@pytest.mark.parametrize("text", [
    'a: "closed"\nb: \'it\'\'s\'\nc: "an \\" escaped quote"\nd: [x\n',  # quotes all closed; the bracket is the error
    "a: plain: colon\n",
])
def test_closed_quotes_are_never_blamed(text: str) -> None:
    from unitrag.content.safe_yaml import quote_left_open

    assert quote_left_open(text, len(text.splitlines())) is None


def test_an_error_the_parser_finds_where_it_is_stays_there() -> None:
    from unitrag.content.safe_yaml import yaml_problem

    for text, line in (("kind: rule\n\tid: a\n", 2), ("a: 'x' y\n", 1), ("a: [x, y] z\nb: 1\n", 1)):
        with pytest.raises(yaml.YAMLError) as caught:
            load_yaml(text)
        assert yaml_problem(caught.value, "f.yaml", "yaml").line == line, text


@pytest.mark.parametrize(("frontmatter", "line", "says"), [
    ('kind: rule\nid: r\ntitle："废电池怎么扔"\nlang: zh\n', 4, "full-width colon"),  # the parser gives up on line 5
    ('kind：rule\nid: r\nlang: zh\n', 2, "full-width colon"),
    ('kind: rule\nid: r\nlang: zh\nquestions:\n\u3000- "电池扔哪"\n', 6, "full-width space (U+3000)"),
    ('kind: rule\nid: r\nlang: zh\nquestions:\n  - "药扔哪"\n  － "电池扔哪"\n  - "纸扔哪"\n', 7, "full-width dash"),
    ('kind: rule\nid: r\ntopics: [a, b］\nlang: zh\n', 4, "full-width bracket ('］'"),
])
def test_full_width_syntax_a_chinese_input_method_types_is_named_on_its_line(
        tmp_path: Path, frontmatter: str, line: int, says: str) -> None:
    """YAML reads `title："x"` as one plain value and fails on a later line with a message naming neither the line nor
    the character: the author is told which line holds the full-width character and what to type instead."""
    from unitrag.content.validate import validate_content

    (tmp_path / "content" / "rules").mkdir(parents=True)
    (tmp_path / "content" / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (tmp_path / "content" / "rules" / "r.md").write_text(f"---\n{frontmatter}---\n正文\n", encoding="utf-8")
    problems = [p for p in validate_content(tmp_path / "content").problems if p.path.endswith("r.md")]
    assert [(p.line, p.field) for p in problems] == [(line, "frontmatter")]
    assert says in problems[0].message and "YAML syntax error" in problems[0].message


@pytest.mark.parametrize("text", ['title: "时间：十分钟"\n', "a: 1\nb: [x\n", "note: 说明：见下文 — 注意\n",
                                  'title: "见[附录］"\n'])
def test_full_width_punctuation_inside_a_value_is_never_blamed(text: str) -> None:
    from unitrag.content.safe_yaml import full_width_syntax

    assert full_width_syntax(text, len(text.splitlines())) is None


def test_a_tab_that_stops_the_parser_is_named_as_a_tab() -> None:
    """A new team's audit: "found character that cannot start any token" for a tab indenting a list never said tab."""
    text = "id: x\nquestions:\n\t- a\n"
    with pytest.raises(yaml.YAMLError) as raised:
        load_yaml(text)
    problem = yaml_problem(raised.value, "u.md", "frontmatter", first_line=2, text=text)
    assert problem.line == 4 and "a tab: YAML indents with spaces only" in problem.message


@pytest.mark.parametrize(("text", "said"), [
    ("order: " + "9" * 5000, "a number of 5,000 characters"),  # int() refuses past 4,300 digits: it was a traceback
    ("title: !!binary aGVsbG8=", "!!binary"),
])
def test_a_value_content_never_holds_is_a_yaml_problem_at_its_line(text: str, said: str) -> None:
    with pytest.raises(yaml.YAMLError) as caught:
        load_yaml("id: x\n" + text)
    assert said in caught.value.problem and caught.value.problem_mark.line == 1
