"""The answer's citations on the preview page, in a real browser (skipped, with the reason, without playwright or
chromium): only a number among the answer's references links to one, and an answer that cites none of its sources
says so. The server's citation check keeps both from the sample (an LLM's stray "[7]" is refused, and every sample
source carries citation ids), so the page's own ``render`` is given the server's real answer with that one field
changed, as an older server or another knowledge base would send it."""

from __future__ import annotations

import pytest

from .test_page import ask, base_url, browser, page, shot  # noqa: F401 (fixtures)

pytestmark = pytest.mark.e2e

QUESTION = "How is vitamin B12 deficiency treated?"


def test_only_a_number_among_the_references_links_to_one(page, tmp_path):  # noqa: F811
    ask(page, QUESTION)
    page.wait_for_function("() => document.getElementById('status').textContent === 'Done'")
    numbers = page.evaluate("lastAnswer.numbered.references.map((r) => r.number)")
    assert numbers and 99 not in numbers
    page.evaluate("render({...lastAnswer, numbered: {...lastAnswer.numbered,"
                  " text: lastAnswer.numbered.text + ' As trial [99] showed [1].'}})")
    links = page.locator("[data-testid=answer] a[data-testid=cite]").all()
    assert [link.inner_text() for link in links][-1] == "[1]"  # a reference: linked
    assert all(link.get_attribute("href") in {f"#ref-{n}" for n in numbers} for link in links)
    assert "As trial [99] showed" in page.inner_text("[data-testid=answer]")  # no reference 99: plain text
    shot(page, "unknown-number-en", tmp_path)


def test_an_answer_citing_none_of_its_sources_is_flagged_in_the_pages_language(page, tmp_path):  # noqa: F811
    ask(page, QUESTION)
    page.wait_for_function("() => document.getElementById('status').textContent === 'Done'")
    page.evaluate("render({...lastAnswer, extractive: false, llm_error: null,"
                  " faithfulness: {...lastAnswer.faithfulness, invalid_ids: [], uncited_long_answer: true}})")
    assert page.locator("[data-testid=banner]").is_visible()
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "warn"
    assert page.inner_text("[data-testid=banner]").startswith("This answer cites none of its sources")
    page.click("[data-testid=ui-lang]")
    assert page.inner_text("[data-testid=banner]").startswith("此回答没有引用任何资料")
    shot(page, "uncited-zh", tmp_path)
