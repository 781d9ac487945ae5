"""Prompt templates checked at build: parse, no include/import/extends, one sandboxed render per language."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.compiler.prompts import check_template, read_prompts
from unitrag.errors import ContentInvalid

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"

BROKEN = {
    "syntax": ("Hello\n\n{{ question | }}", 3, "syntax error"),
    "include": ("Intro\n{% include 'other.j2' %}", 2, "{% include %}"),
    "import": ("{% import 'macros.j2' as m %}{{ m.x() }}", 1, "{% import %}"),
    "from-import": ("\n{% from 'macros.j2' import x %}", 2, "{% import %}"),
    "extends": ("{% extends 'base.j2' %}", 1, "{% extends %}"),
    "recursion": ("{% macro f(n) %}{{ f(n) }}{% endmacro %}\n{{ f(1) }}", 1, "recursion"),
    "undefined": ("{{ question }}\n{{ no_such_variable }}", 2, "does not render"),
    "sandbox": ("{{ ''.__class__.__mro__[1].__subclasses__() }}", 1, "does not render"),
    "division": ("{{ 1 / 0 }}", 1, "does not render"),
    "unknown filter": ("{{ question }}\n{{ question | no_such_filter }}", 2, "No filter named 'no_such_filter'"),
    "unknown test": ("{% if question is no_such_test %}x{% endif %}", 1, "No test named 'no_such_test'"),
}


@pytest.mark.parametrize(("source", "line", "message"), BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_template_is_a_problem_at_its_line(source: str, line: int, message: str) -> None:
    problems = check_template("prompts/user.j2", "user", source)
    assert [(p.path, p.line, p.field) for p in problems][:1] == [("prompts/user.j2", line, "template")]
    assert message in problems[0].message


def test_a_template_that_runs_forever_is_stopped() -> None:
    loop = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}"
    problems = check_template("prompts/user.j2", "user", loop, seconds=0.5)
    assert problems and "loops and calls run over 10,000 times" in problems[0].message  # a bound, before the clock


def test_a_slow_template_within_every_bound_meets_the_deadline() -> None:
    slow = "{% for i in range(9000) %}{% set n = range(100000) | sum %}{% endfor %}"
    problems = check_template("prompts/user.j2", "user", slow, seconds=0.5)
    assert problems and "too long" in problems[0].message


#: Over the prompt budget (max_prompt_chars): each is a problem at the line that asked for it. Before the bounded
#: sandbox they rendered (20 MB, 4 MB of output); the issue's ``'a' * 1500000000`` took 53 s and 10.4 GB.
OVER_BUDGET = {
    "repetition": ("Intro\n{{ 'a' * 20000000 }}", 2, "'*' would make about 20,000,000 characters"),
    "padding": ("Intro\n\n{{ question | center(20000000) }}", 3, "center filter"),
    "output": ("{{ lang }}\n{% for s in range(100000) %}\n{{ question }}{% endfor %}", 3, "rendered prompt is over"),
}


@pytest.mark.parametrize(("source", "line", "message"), OVER_BUDGET.values(), ids=OVER_BUDGET.keys())
def test_a_template_over_the_prompt_budget_is_a_problem_at_its_line(source: str, line: int, message: str) -> None:
    problems = check_template("prompts/user.j2", "user", source)
    assert [(p.path, p.line, p.field) for p in problems] == [("prompts/user.j2", line, "template")]
    assert message in problems[0].message and "max_prompt_chars" in problems[0].message


def test_the_issue_template_is_refused_in_a_moment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from unitrag.compiler.prompts import prompt_problems

    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "user.j2").write_text("Hello\n{{ 'a' * 1500000000 }}\n", encoding="utf-8")
    started = time.perf_counter()
    count, problems = prompt_problems(tmp_path / "prompts")
    assert time.perf_counter() - started < 5
    assert (count, [(p.path, p.line) for p in problems]) == (0, [("prompts/user.j2", 2)])
    assert "1,500,000,000 characters" in problems[0].message


def test_the_budget_is_the_one_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "user.j2").write_text("{{ question * 100 }}", encoding="utf-8")  # 3,600 characters
    assert [row["name"] for row in read_prompts(tmp_path / "prompts", max_chars=4_000)] == ["user"]
    with pytest.raises(ContentInvalid) as caught:
        read_prompts(tmp_path / "prompts", max_chars=3_000)
    assert "3,000 (max_prompt_chars" in caught.value.problems[0].message


def test_a_template_file_over_the_budget_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "user.j2").write_text("{# long #}" + "x" * 5_000, encoding="utf-8")
    with pytest.raises(ContentInvalid) as caught:
        read_prompts(tmp_path / "prompts", max_chars=4_000)
    [problem] = caught.value.problems
    assert (problem.path, problem.line, problem.field) == ("prompts/user.j2", 1, "file")
    assert "prompt template is 5,010 bytes, over the limit of 4,000 (max_prompt_chars)" in problem.message


def test_the_bundled_templates_pass() -> None:
    for path in PROMPTS.glob("*.j2"):
        assert check_template(str(path), path.stem, path.read_text(encoding="utf-8")) == [], path


def test_read_prompts_reports_every_broken_file_and_bad_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "system.j2").write_text("fine {{ lang }}", encoding="utf-8")
    (folder / "user.j2").write_text("{{ question }}\n{% include 'x' %}", encoding="utf-8")
    (folder / "refusal.j2").write_bytes(b"ok\n\xff\xfe bad bytes")
    with pytest.raises(ContentInvalid) as caught:
        read_prompts(folder)
    assert sorted((p.path, p.line) for p in caught.value.problems) == [("prompts/refusal.j2", 2), ("prompts/user.j2", 2)]
    (folder / "refusal.j2").write_text("sorry", encoding="utf-8")
    (folder / "user.j2").write_text("{{ question }}", encoding="utf-8")
    assert [row["name"] for row in read_prompts(folder)] == ["refusal", "system", "user"]


def test_an_outer_alarm_survives_the_render_deadline() -> None:
    import signal

    signal.setitimer(signal.ITIMER_REAL, 60)
    try:
        assert check_template("prompts/user.j2", "user", "{{ question }}") == []
        remaining = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 50 < remaining <= 60
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _prompts_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A prompts folder with one good template, and a folder beside it (outside it) holding a valid one."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "user.j2").write_text("{{ question }}", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "system.j2").write_text("SECRET {{ lang }}", encoding="utf-8")  # renders fine
    return folder


def test_a_link_out_of_the_prompts_folder_is_a_problem_and_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                     ) -> None:
    folder = _prompts_folder(tmp_path, monkeypatch)
    (folder / "system.j2").symlink_to(tmp_path / "outside" / "system.j2")  # a file, as in the audit's /etc/passwd
    (folder / "refusal.j2").symlink_to(tmp_path / "outside", target_is_directory=True)  # a folder
    with pytest.raises(ContentInvalid) as caught:
        read_prompts(folder)
    found = sorted((p.path, p.line, p.field, p.message) for p in caught.value.problems)
    assert [(path, line, field) for path, line, field, _ in found] == [
        ("prompts/refusal.j2", 1, "file"), ("prompts/system.j2", 1, "file")]
    outside = str((tmp_path / "outside").resolve())
    assert found[0][3] == (f"a link to {outside}, outside the prompts folder: not read "
                           "(copy the file into the prompts folder)")
    assert f"a link to {outside}/system.j2, outside the prompts folder: not read" in found[1][3]
    assert all("SECRET" not in p.message for p in caught.value.problems)


def test_a_link_inside_the_prompts_folder_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _prompts_folder(tmp_path, monkeypatch)
    (folder / "texts").mkdir()
    (folder / "texts" / "system.txt").write_text("fine {{ lang }}", encoding="utf-8")
    (folder / "system.j2").symlink_to(folder / "texts" / "system.txt")
    assert [(row["name"], row["template"]) for row in read_prompts(folder)] == [
        ("system", "fine {{ lang }}"), ("user", "{{ question }}")]


def test_a_template_the_runtime_never_renders_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _prompts_folder(tmp_path, monkeypatch)
    (folder / "notes.j2").write_text("my notes {{ lang }}", encoding="utf-8")  # would render: only the name is wrong
    (folder / "user.jinja").write_text("{{ question }}", encoding="utf-8")  # a second 'user'
    (folder / ".#user.j2").symlink_to("someone@host.1234")  # an editor's lock link: hidden, not a template
    with pytest.raises(ContentInvalid) as caught:
        read_prompts(folder)
    notes, twice = sorted(caught.value.problems)
    assert (notes.path, notes.line, notes.field) == ("prompts/notes.j2", 1, "file")
    assert notes.message.startswith("not a template the runtime renders (it renders system.j2, user.j2, not_found.j2,")
    assert (twice.path, twice.message) == ("prompts/user.jinja", "a second 'user' template (the first is "
                                                                 "prompts/user.j2): keep one of them")


def test_validate_counts_the_good_templates_beside_a_broken_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second audit: one broken template of five made the summary say "0 prompt templates"."""
    from unitrag.compiler.prompts import prompt_problems

    monkeypatch.chdir(tmp_path)
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "user.j2").write_text("Hello {{ question }\n", encoding="utf-8")
    (tmp_path / "prompts" / "system.j2").write_text("You answer from the sources.\n", encoding="utf-8")
    count, problems = prompt_problems(tmp_path / "prompts")
    assert count == 1 and [p.path for p in problems] == ["prompts/user.j2"]
