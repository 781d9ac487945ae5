"""The library's warnings on the command line: one "warning: …" line on stderr, as the commands' own warnings are."""

from __future__ import annotations

import logging

import pytest

from unitrag.cli import _WarningLines, show_library_warnings


@pytest.fixture
def unitrag_logger():
    logger = logging.getLogger("unitrag")
    before = list(logger.handlers)
    yield logger
    logger.handlers[:] = before


def test_a_library_warning_is_a_warning_line_on_stderr_once(unitrag_logger, capsys) -> None:
    show_library_warnings("ask")
    show_library_warnings("ask")  # a second command in one process adds no second line
    logging.getLogger("unitrag.rag.calibration_file").warning("no answerability gate fitted on this knowledge base")
    assert capsys.readouterr().err == "warning: no answerability gate fitted on this knowledge base\n"


def test_serve_keeps_its_server_s_log_lines(unitrag_logger) -> None:
    show_library_warnings("serve")
    assert not any(isinstance(h, _WarningLines) for h in unitrag_logger.handlers)
