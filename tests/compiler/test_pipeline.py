"""The build on a tiny workspace with a fake embedder: what it refuses, and what it never re-embeds."""

from __future__ import annotations

import pytest

from unitrag.errors import UserError


def test_converting_a_unit_to_crlf_plans_no_change(tiny) -> None:
    assert tiny.build().written
    for unit in (tiny.content / "rules").iterdir():
        unit.write_bytes(unit.read_bytes().replace(b"\n", b"\r\n"))
    plan = tiny.build(dry_run=True).plan
    assert plan.is_noop and len(plan.unchanged) == 2, plan.to_dict()
