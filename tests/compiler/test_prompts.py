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
    assert problems and "too long" in problems[0].message


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
