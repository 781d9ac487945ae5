"""The plan names every unit whose access changes, from → to; one becoming public stands out (the build alone
would show it only as metadata-only)."""

from __future__ import annotations

import io
import shutil

from rich.console import Console

from unitrag.cli import output
from tests.compiler.conftest import REPO

STORY = "en-vitamin-b12"


def _with_story(tiny) -> None:
    shutil.copy(REPO / "content" / "stories" / f"{STORY}.md", tiny.content / "stories" / f"{STORY}.md")
    shutil.copytree(REPO / "content" / "scenes" / STORY, tiny.content / "scenes" / STORY)


def _set_story_access(tiny, access: str | None) -> None:
    path = tiny.content / "stories" / f"{STORY}.md"
    text = "\n".join(line for line in path.read_text(encoding="utf-8").split("\n") if not line.startswith("access:"))
    if access is not None:
        text = text.replace("lang: en", f"lang: en\naccess: {access}", 1)
    path.write_text(text, encoding="utf-8")


def _printed(report, monkeypatch) -> str:
    buffer = io.StringIO()
    monkeypatch.setattr(output, "out", Console(file=buffer, width=400, color_system=None))
    output.print_report(report)
    return buffer.getvalue() + output.report_markdown(report)


def test_a_story_made_public_again_is_listed_with_its_scenes_and_stands_out(tiny, monkeypatch) -> None:
    (tiny.content / "stories").mkdir()
    (tiny.content / "scenes").mkdir()
    _with_story(tiny)
    _set_story_access(tiny, "clinician")
    tiny.build()
    _set_story_access(tiny, None)
    report = tiny.build(dry_run=True)
    scenes = ["en-b12-absorption", "en-b12-food-sources", "en-b12-testing", "en-b12-what-it-does",
              "en-b12-who-is-at-risk"]  # en-b12-treatment is clinician-only of its own: no change
    made_public = sorted([STORY, *scenes])
    assert report.plan.made_public == made_public and report.plan.made_restricted == []
    assert report.plan.access_changes == [{"unit": u, "from": "clinician", "to": "public"} for u in made_public]
    data = report.to_dict()["plan"]
    assert data["made_public"] == made_public and len(data["access_changes"]) == 6
    printed = _printed(report, monkeypatch)
    assert "MADE PUBLIC: 6 unit(s) that were restricted will be served to anyone: en-b12-absorption (clinician → public)" in printed
    assert "**MADE PUBLIC:** 6 unit(s)" in printed  # the Markdown for a CI summary says it too
    tiny.build()

    _set_story_access(tiny, "clinician")  # and back: restricting is listed too, not as made public
    report = tiny.build(dry_run=True)
    assert report.plan.made_restricted == made_public and report.plan.made_public == []
    printed = _printed(report, monkeypatch)
    assert "access changed: 6 unit(s): en-b12-absorption (public → clinician)" in printed
    assert "MADE PUBLIC" not in printed


def test_a_plan_without_access_changes_says_nothing_of_access(tiny, monkeypatch) -> None:
    tiny.build()
    rule = sorted((tiny.content / "rules").iterdir())[0]
    rule.write_text(rule.read_text(encoding="utf-8").replace("topics: [", "topics: [sodium, ", 1), encoding="utf-8")
    report = tiny.build(dry_run=True)
    assert report.plan.access_changes == [] and "access" not in _printed(report, monkeypatch).lower()
