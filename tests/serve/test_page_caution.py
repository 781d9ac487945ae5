"""A caution on the preview page, in a real browser: the answer as usual, the rule's safety note under it, styled
apart from the urgent red-flag banner and from the refusal (skipped, with the reason, without playwright or chromium)."""

from __future__ import annotations

import pytest

from .test_page import ask, base_url, browser, page, shot  # noqa: F401 (fixtures)

pytestmark = pytest.mark.e2e

PAST = "I took an overdose in 2015 and I'm fine now, how much vitamin B12 do I need a day?"
NOTE_STYLE = ("(() => { const n = document.getElementById('caution'), s = getComputedStyle(n);"
              " return [n.getAttribute('role'), s.backgroundColor, s.color, s.borderLeftColor]; })()")
BANNER_STYLE = ("(() => { const b = document.getElementById('banner'), s = getComputedStyle(b);"
                " return [b.getAttribute('role'), s.backgroundColor, s.color, s.borderLeftColor]; })()")


def test_a_caution_answers_with_the_note_apart_from_alarm_and_refusal(page, tmp_path):  # noqa: F811
    ask(page, PAST)
    assert page.locator("[data-testid=caution]").is_visible()
    assert page.inner_text("[data-testid=caution]").startswith("Safety note")
    assert page.get_attribute("[data-testid=banner]", "data-kind") != "red_flag"
    assert page.locator("[data-testid=source]").count() >= 1  # answered from the sources
    note = page.evaluate(NOTE_STYLE)
    shot(page, "caution-en", tmp_path)
    ask(page, "I have crushing chest pain and can't breathe")
    assert page.locator("[data-testid=caution]").is_hidden()  # nothing of the note stays
    urgent = page.evaluate(BANNER_STYLE)
    ask(page, "Should I buy bitcoin or index funds?")
    refusal = page.evaluate(BANNER_STYLE)
    assert note[0] == "note" and urgent[0] == "alert"
    assert note[1:] != urgent[1:] and note[1:] != refusal[1:], (note, urgent, refusal)
    page.click("[data-testid=ui-lang]")  # the label follows the interface language
    ask(page, PAST)
    assert page.inner_text("[data-testid=caution]").startswith("安全提示")
