"""`unitrag eval --questions` reads a labelled-question file as the build reads content: bounded, one clear problem."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.expect import one_error_line


def test_an_eval_file_over_max_file_bytes_is_refused_before_the_knowledge_base_is_opened(tmp_path: Path):
    (tmp_path / "unitrag.toml").write_text("[unitrag]\nmax_file_bytes = 1000\n", encoding="utf-8")
    question = "- id: q{}\n  question: How much salt should adults eat per day?\n  expected_units: [en-salt]\n"
    (tmp_path / "big.yaml").write_text("".join(question.format(i) for i in range(40)), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "unitrag", "eval", "--questions", "big.yaml", "--kb", str(tmp_path / "missing.duckdb")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"},
    )
    assert result.returncode == 1
    assert "big.yaml:1: file: registry file is" in result.stderr and "max_file_bytes" in result.stderr
    assert "Traceback" not in result.stderr and "missing.duckdb" not in result.stderr
    assert result.stderr.rstrip().endswith("nothing was evaluated")  # eval writes nothing in any case


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The command, with a timeout: a FIFO opened for reading with no writer would block forever."""
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"})


QUESTION = "- id: q1\n  question: How much salt should adults eat per day?\n  lang: en\n  expected_units: [{}]\n"


@pytest.mark.parametrize("command", ["eval", "calibrate"])
@pytest.mark.parametrize("kind, words", [("folder", "is a directory"), ("fifo", "is not a regular file"),
                                         ("/dev/zero", "is not a regular file"), ("/dev/null", "is not a regular file")])
def test_questions_that_are_not_a_regular_file_say_what_they_are(tmp_path: Path, command: str, kind: str,
                                                                 words: str) -> None:
    path = {"folder": tmp_path / "eval", "fifo": tmp_path / "q.yaml"}.get(kind, Path(kind))
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    line = one_error_line(_run(tmp_path, command, "--questions", str(path), "--kb", "missing.duckdb"), words)
    assert "not found" not in line


def test_eval_refuses_a_fifo_as_the_knowledge_base_before_opening_it(tmp_path: Path) -> None:
    (tmp_path / "q.yaml").write_text(QUESTION.format("en-salt"), encoding="utf-8")
    os.mkfifo(tmp_path / "kb.duckdb")
    one_error_line(_run(tmp_path, "eval", "--questions", "q.yaml", "--kb", "kb.duckdb"), "not a regular file")


@pytest.mark.parametrize("plot, words", [
    ("variants.txt", (".png, .svg, .pdf",)), ("variants", (".png, .svg, .pdf",)), ("folder", ("is a folder",)),
    ("missing/variants.png", ("folder missing not found",)), ("fifo.png", ("not a regular file",)),
])
def test_the_plot_path_is_checked_before_anything_runs(tmp_path: Path, plot: str, words: tuple[str, ...]) -> None:
    (tmp_path / "q.yaml").write_text(QUESTION.format("en-salt"), encoding="utf-8")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo.png")
    # the knowledge base is missing: the plot's fault must be said first, not after an evaluation
    one_error_line(_run(tmp_path, "eval", "--questions", "q.yaml", "--kb", "missing.duckdb", "--plot", plot),
                    "--plot", *words)


def test_eval_refuses_questions_naming_ids_the_artifact_does_not_hold(built_sample, tmp_path: Path) -> None:
    ws, _ = built_sample
    (tmp_path / "mine.yaml").write_text(
        QUESTION.format("en-b12-food-sources") + QUESTION.replace("q1", "q2").format("no-such-unit")
        + "- id: q3\n  question: I have crushing chest pain\n  lang: en\n  guard: red_flag\n  guard_rule: no-such-rule\n",
        encoding="utf-8")
    result = _run(tmp_path, "eval", "--questions", "mine.yaml", "--kb", str(ws.artifact))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert any(line.startswith("mine.yaml:8: q2.expected_units: unit 'no-such-unit' does not exist (removed or renamed?")
               for line in result.stderr.splitlines())
    assert "mine.yaml:13: q3.guard_rule: 'no-such-rule' is not a guard.yaml rule of type red_flag" in result.stderr
    assert "S@5" not in result.stdout and "nothing was run" in result.stderr


def test_eval_says_the_plot_file_it_wrote(built_sample, tmp_path: Path) -> None:
    ws, _ = built_sample
    (tmp_path / "q.yaml").write_text(QUESTION.format("en-b12-food-sources"), encoding="utf-8")
    result = _run(tmp_path, "eval", "--questions", "q.yaml", "--kb", str(ws.artifact), "--variants", "bm25",
                  "--plot", "variants.svg")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "wrote variants.svg" in result.stdout and (tmp_path / "variants.svg").read_bytes().startswith(b"<?xml")


@pytest.mark.parametrize("command", ["calibrate"])  # eval says first that there is no artifact here
def test_a_questions_file_given_twice_is_one_line_not_one_per_question(tmp_path, command):
    (tmp_path / "q.yaml").write_text("- id: a\n  question: x?\n  lang: en\n  unanswerable: true\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "unitrag", command, "--questions", "q.yaml", "--questions",
                             "./q.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "is given twice" in result.stderr and "duplicate question id" not in result.stderr


@pytest.mark.parametrize("flag", ["--min-ndcg", "--min-notfound-f1", "--min-guard-pass"])
@pytest.mark.parametrize("value", ["nan", "-1", "inf"])
def test_a_gate_that_is_no_share_is_refused_before_anything_runs(tmp_path: Path, flag: str, value: str) -> None:
    """An attacker's `--min-ndcg nan` failed the gate with "below nan"; -1 was taken as a gate."""
    (tmp_path / "q.yaml").write_text(QUESTION.format("en-salt"), encoding="utf-8")
    one_error_line(_run(tmp_path, "eval", "--questions", "q.yaml", "--kb", "missing.duckdb", flag, value),
                   flag, "share from 0 to 1")
