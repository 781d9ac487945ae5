"""`unitrag eval --questions` reads a labelled-question file as the build reads content: bounded, one clear problem."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


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
