"""A build over a file whose name is not UTF-8 or holds a control character: one problem, not a traceback (the caches
made keys of such a name), and the last artifact kept."""

from __future__ import annotations

import os
import shutil

import pytest

from unitrag.content.problems import UNPRINTABLE
from unitrag.errors import ContentInvalid

#: A name that is not UTF-8 (byte 0xff), and one whose escape codes would retitle and clear a reviewer's terminal.
NAMES = [os.fsdecode(b"ok\xff.md"), "e\x1b]0;PWNED\x07\x1b[2J\x1b[31mred.md"]


def _copy_rule(tiny, name: str) -> None:
    """A copy of a rule (its id too) under ``name``, or a skip where the file system refuses the name."""
    rule = tiny.content / "rules" / "en-blood-pressure-severe.md"
    try:
        shutil.copy(rule, tiny.content / "rules" / name)
    except (OSError, UnicodeEncodeError) as exc:
        pytest.skip(f"this file system refuses the name {name!r}: {exc}")


def test_a_badly_named_file_fails_the_build_and_its_dry_run_and_keeps_the_artifact(tiny) -> None:
    tiny.build()
    before, calls = tiny.artifact.read_bytes(), tiny.embedder.calls
    for name in NAMES:  # one build for both: a real one takes seconds
        _copy_rule(tiny, name)
        for dry_run in (True, False):
            with pytest.raises(ContentInvalid) as caught:
                tiny.build(dry_run=dry_run)
            [problem] = caught.value.problems  # no duplicate id besides: the file is not read as a unit
            assert (problem.path, problem.field) == (f"content/rules/{name}", "file")
            assert "rename it" in str(problem) and UNPRINTABLE.search(str(problem)) is None
        (tiny.content / "rules" / name).unlink()
    assert tiny.artifact.read_bytes() == before and tiny.embedder.calls == calls
