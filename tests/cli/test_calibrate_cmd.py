"""`unitrag calibrate`: a few lines saying which gate was kept and why; the full table behind --verbose;
a fresh scaffold's handful of questions keeps the default gate, with a message, and writes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.rag.calibrate.test_calibration import questions, scored
from unitrag.cli.calibrate_cmd import _print_candidates, _print_verdict
from unitrag.rag.calibrate.calibration import run_calibration


def test_the_summary_says_which_gate_was_kept_and_why(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    qs = questions(20, 12)
    result = run_calibration(scored(qs, (0.92, 0.96), (0.84, 0.88)), qs)
    _print_verdict(result, tmp_path / "calibration.json", tmp_path / "calibration.json")
    lines = capsys.readouterr().out.splitlines()
    text = " ".join(lines)
    assert "20 answerable, 12 unanswerable" in text
    assert "kept the default gate" in text and "(the default)" in text and "wrote the default gate to" in text
    assert len(lines) <= 12 and "per language" not in text  # no table without --verbose
    assert "the gate alone: `unitrag eval` also answers an author's own question" in " ".join(text.split())
    # the default kept, and the gate's strongest input unused: what to do about it, without --verbose
    assert "exemplar not a candidate: split the dev questions over two or more files" in " ".join(text.split())


def test_a_fit_kept_on_few_questions_says_to_check_it_on_the_test_set(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """A campground's fit won 0.957 to 0.870 out of sample on 29 dev questions, and lost 1.00 → 0.86 on its test set;
    nothing said that a few dozen questions are a few dozen questions."""
    qs = questions(20, 12)
    result = run_calibration(scored(qs, (0.80, 0.85), (0.60, 0.70)), qs)
    assert result.verdict.kept == "fitted"
    _print_verdict(result, tmp_path / "calibration.json", tmp_path / "calibration.json")
    text = " ".join(capsys.readouterr().out.split())
    assert "check a fit on 32 questions" in text and "delete calibration.json and rebuild" in text
    kept_default = run_calibration(scored(qs, (0.92, 0.96), (0.84, 0.88)), qs)
    _print_verdict(kept_default, None, None)
    assert "check" not in capsys.readouterr().out  # the default gate needs no such check


def test_verbose_marks_the_chosen_candidate_and_says_why_a_feature_is_none(capsys: pytest.CaptureFixture[str]):
    qs = questions(12, 10)
    result = run_calibration(scored(qs, (0.82, 0.86), (0.76, 0.80)), qs)
    _print_candidates(result)
    out = capsys.readouterr().out
    chosen = [line for line in out.splitlines() if "◀ chosen" in line]
    assert len(chosen) == 1 and "gap" in chosen[0]
    assert "not a candidate: exemplar" in out and "two or more files" in out


@pytest.mark.e2e
def test_a_fresh_scaffold_keeps_the_default_gate_with_a_message(tmp_path: Path):
    def unitrag(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                              timeout=600, check=False)

    assert unitrag("init", "kb", cwd=tmp_path).returncode == 0
    kb = tmp_path / "kb"
    built = unitrag("build", cwd=kb)
    assert built.returncode == 0, built.stderr
    result = unitrag("calibrate", "--write", "calibration.json", cwd=kb)
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "too few questions to fit a gate" in text and "at least 10 of each" in text
    assert "the default gate stays in use" in text and "nothing written to calibration.json" in text
    assert not (kb / "calibration.json").exists()


def test_write_into_a_missing_folder_is_said_before_any_fit(tmp_path: Path):
    (tmp_path / "questions.yaml").write_text("- id: q\n  question: x\n  lang: en\n  unanswerable: true\n")
    result = subprocess.run([sys.executable, "-m", "unitrag", "calibrate", "--questions", "questions.yaml",
                             "--write", str(tmp_path / "nowhere" / "c.json")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "--write" in result.stderr and "nowhere not found" in result.stderr


def test_verbose_says_whose_cross_language_corrections_it_prints(capsys: pytest.CaptureFixture[str]):
    """A new team read "en>zh +0.0882" here and 0.0888 in calibration.json: the fit's, and the default gate's it kept."""
    from dataclasses import replace

    qs = questions(20, 12)
    result = run_calibration(scored(qs, (0.92, 0.96), (0.84, 0.88)), qs)
    assert result.gate is not None and result.fitted is not None and result.gate is not result.fitted
    result.fitted = replace(result.fitted, lang_offsets={"en>zh": 0.0882})
    result.gate = replace(result.gate, lang_offsets={"en>zh": 0.0888})
    _print_candidates(result)
    out = " ".join(capsys.readouterr().out.split())
    assert "the fit's cross-language cosine corrections en>zh +0.0882 (the gate kept has its own: en>zh +0.0888)" in out
