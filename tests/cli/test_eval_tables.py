"""The eval report's tables never cut a cell with "…": whole off a terminal (a file, a CI log), wrapped on one."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from unitrag.cli import eval_cmds, output
from unitrag.eval.report import EvalReport, VariantResult, category_rows

SETS = ["eval/questions.yaml", "eval/questions_test.yaml", "eval/questions_extra_test.yaml",
        "eval/context_dev_long_name.yaml"]


def report(dataset: str) -> EvalReport:
    """A labelled-question set whose category cell is long: ranked right 19 times of 22, 8 of them refused."""
    cat = {"questions": 22, "hits": 19, "ranked": 22, "not_found": 8, "asked": 22, "success@5": 0.864,
           "not_found_rate": 8 / 22}
    extra = {"not_found": {"questions": 30, "precision": 1.0, "recall": 0.9, "f1": 0.947}, "restricted_leaks": [],
             "by_category": {"cross_language_with_a_long_category_name": cat}}
    return EvalReport("questions", dataset, {"embedder": "e", "reranker": "fusion"},
                      {"full": VariantResult("full", "", {}, 22, 0.0)}, [], extra)


def printed(monkeypatch: pytest.MonkeyPatch, console: Console) -> str:
    """What ``eval`` prints of the category table for the four sets, on ``console``."""
    monkeypatch.setattr(output, "out", console)
    monkeypatch.setattr(eval_cmds, "out", console)
    eval_cmds._print_categories([report(d) for d in SETS])
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_off_a_terminal_every_cell_is_printed_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    text = printed(monkeypatch, Console(file=io.StringIO(), width=120, color_system=None))
    _, rows = category_rows([report(d) for d in SETS])
    assert "…" not in text
    for row in rows:
        assert re.search(r"\s*│\s*".join(map(re.escape, row)), text), row  # each row on one line, every cell whole
    assert 'S@5 0.864 (19/22), 8 answered "not found"' in text
    assert max(len(line) for line in text.splitlines()) > 120  # wider than the console: nothing cut to fit it


def test_on_a_narrow_terminal_cells_wrap_rather_than_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    text = printed(monkeypatch, Console(file=io.StringIO(), width=60, force_terminal=True, color_system=None))
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 60
    first_column = "".join(line.split("│")[1] for line in text.splitlines() if line.count("│") > 2)
    assert "cross_language_with_a_long_category_name" in "".join(first_column.split())  # folded, not cut


def test_off_a_terminal_a_cell_of_hundreds_of_characters_wraps_whole_within_the_log_width(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new team's build tables made 500-character lines of its CI log: a runaway cell now wraps in its column."""
    from rich.table import Table

    console = Console(file=io.StringIO(), width=120, color_system=None)
    monkeypatch.setattr(output, "out", console)
    table = Table("unit", "questions")
    ids = " ".join(f"en-unit-number-{n:03d}" for n in range(30))
    table.add_row("en-billing-plans", ids)
    output.print_table(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert max(len(line) for line in text.splitlines()) <= output.LOG_COLUMN_WIDTH + 30 and "…" not in text
    cells = "".join(line.split("│")[2] for line in text.splitlines() if line.count("│") == 3)
    assert "".join(cells.split()) == "".join(ids.split())  # every id, whole, in its column
