"""The preview page in a real browser: Playwright for Python driving Debian's chromium (no browser download).

``.ci/run`` installs chromium with apt; without it (or without playwright) only this module is skipped,
with the reason. Set UNITRAG_SCREENSHOTS=<dir> to keep the screenshots for a look.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import urllib.request
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.serve import ServeSettings, create_app
from unitrag.serve.reload import KbHolder

from .conftest import CLINICIAN_KEY, CLINICIAN_KEYS, SlowLLM, live_server

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install unitrag[dev])")
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium); .ci/run installs it")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


#: A long reference URL and a long word: at 390 px they made the page 510 px wide (issue 24).
# a long unbreakable path (a link is a reference told in words, which the citation check refuses: stop 49)
LONG_PATH = "/".join(["supplementation-and-monitoring-recommendations"] * 5)
LONG_ANSWER = f"Treatment follows the cause, see {LONG_PATH} and Pneumonoultramicroscopicsilicovolcanoconiosis{'x' * 60}."
NAME, DESCRIPTION = "Sample health notes", "Plain answers about nutrition, each with its sources."


def _server(sample_kb: KnowledgeBase, llm=None):
    config = replace(sample_kb.config, name=NAME, description=DESCRIPTION)
    holder = KbHolder("sample", lambda _l, _p: KnowledgeBase(sample_kb.store, sample_kb.encoder, config, llm), 0)
    settings = ServeSettings(api_keys=CLINICIAN_KEYS, reload_poll_s=0)
    return live_server(create_app(settings, config=config, holder=holder))


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def base_url(sample_kb):
    with _server(sample_kb) as url:
        yield url


@contextmanager
def _opened(browser, url: str, **options):
    """The page at ``url`` in a new browser context, loaded; no console error may be logged while it is open."""
    context = browser.new_context(**options)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.problems = problems
    page.refusals_expected = False  # a test of errors: the browser logs each refused request
    page.goto(url + "/")
    page.wait_for_function("() => document.getElementById('kb-meta').textContent.length > 0")
    try:
        yield page
    finally:
        context.close()
    if page.refusals_expected:
        problems = [p for p in problems if not p.startswith(("Failed to load resource", "net::ERR_FAILED"))]
    assert problems == [], problems  # no console errors on any page


@pytest.fixture
def page(browser, base_url, tmp_path):
    with _opened(browser, base_url, viewport={"width": 1100, "height": 1400}, locale="en-US") as opened:
        yield opened


def shot(page, name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("UNITRAG_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / path.name)


def ask(page, question: str, keyboard: bool = False) -> None:
    page.fill("[data-testid=question]", question)
    if keyboard:
        page.focus("[data-testid=question]")
        page.keyboard.press("Enter")
    else:
        page.click("[data-testid=ask]")
    page.wait_for_function("() => !document.getElementById('ask').disabled && document.getElementById('answer-box').textContent.length > 0")


def ask_and_fail(page, question: str) -> None:
    """Ask, and wait for the status line to say it failed (no answer text to wait for)."""
    page.fill("[data-testid=question]", question)
    page.click("[data-testid=ask]")
    page.wait_for_function("() => !document.getElementById('ask').disabled && ['Failed', '失败'].includes("
                           "document.getElementById('status').textContent)")


def nothing_left(page) -> None:
    """No trace of an earlier answer: no source card (a clinician-only one least of all), no answer text, no references."""
    assert page.locator("[data-testid=source]").count() == 0
    assert page.locator(".tag.restricted").count() == 0
    assert page.inner_text("[data-testid=answer]") == ""
    assert page.locator("[data-testid=reference]").count() == 0
    assert page.locator("#sources-box").is_hidden() and page.locator("#timings-box").is_hidden()
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "error"


@pytest.mark.parametrize("question, ui", [("How is vitamin B12 deficiency treated?", "en"), ("缺铁性贫血的诊断标准是什么？", "zh")])
def test_an_answer_with_clickable_numbered_citations(page, question, ui, tmp_path):
    if ui == "zh":
        page.click("[data-testid=ui-lang]")
        assert page.inner_text("[data-testid=ask]") == "提问"
    ask(page, question, keyboard=ui == "zh")
    cites = page.locator("[data-testid=answer] a[data-testid=cite]")
    references = page.locator("[data-testid=reference]")
    assert cites.count() >= 1 and references.count() >= 1
    assert "<Cite" not in page.inner_text("[data-testid=answer]")
    assert page.locator("[data-testid=source]").count() >= 1
    assert "final" in page.inner_text("[data-testid=sources]") and page.locator("[data-testid=timings] .bar").count() >= 3
    cites.first.click()
    assert page.evaluate("location.hash") == "#ref-1"
    assert page.evaluate("document.querySelector(':target').dataset.testid") == "reference"
    shot(page, f"answer-{ui}", tmp_path)


def test_a_misspelled_question_says_how_it_was_read_and_the_next_one_does_not(page):
    ask(page, "is colesterol in eggs bad for me")
    assert page.inner_text("[data-testid=read-as]") == "Read as: is cholesterol in eggs bad for me"
    assert page.get_attribute("[data-testid=banner]", "data-kind") != "notfound"
    ask(page, "How is vitamin B12 deficiency treated?")
    assert page.locator("[data-testid=read-as]").is_hidden()


def test_an_off_topic_question_shows_not_found(page, tmp_path):
    ask(page, "Who won the last football World Cup?")
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "notfound"
    assert page.locator("[data-testid=reference]").count() == 0
    shot(page, "not-found", tmp_path)


def test_a_red_flag_shows_the_safety_message_and_no_sources(page, tmp_path):
    page.click("[data-testid=ui-lang]")  # Chinese UI
    ask(page, "我胸口剧痛，喘不上气")
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "red_flag"
    assert page.inner_text("[data-testid=banner]") == "紧急提示：请立即阅读"
    assert "120" in page.inner_text("[data-testid=answer]")
    assert page.locator("[data-testid=source]").count() == 0 and page.locator("[data-testid=reference]").count() == 0
    shot(page, "red-flag-zh", tmp_path)


def test_the_role_control_appears_only_for_a_key_that_grants_it(page, tmp_path):
    assert page.locator("[data-testid=role-restricted]").is_hidden()
    ask(page, "B12 injections hydroxocobalamin dose")
    assert "Treating B12 deficiency" not in page.inner_text("[data-testid=sources]")
    page.click("text=User context and access")
    page.fill("[data-testid=api-key]", CLINICIAN_KEY)
    page.keyboard.press("Tab")  # the change event checks the key with /v1/me
    page.wait_for_selector("[data-testid=role-restricted]", state="visible")
    assert page.inner_text("[data-testid=role-label]") == "Ask as clinician"  # the knowledge base's role, by name
    ask(page, "B12 injections hydroxocobalamin dose")
    assert "Treating B12 deficiency" in page.inner_text("[data-testid=sources]")
    assert page.locator("[data-testid=source] .tag.restricted").count() >= 1
    restricted = page.locator("[data-testid=source]", has=page.locator(".tag.restricted")).first
    restricted.locator("[data-testid=unit-link]").click()  # read with the key's header: the unit's text, not a 404
    assert "Treating B12 deficiency" in restricted.locator("[data-testid=unit-pane] h4").inner_text()
    assert "hydroxocobalamin" in restricted.locator("[data-testid=unit-text]").inner_text()
    shot(page, "clinician-en", tmp_path)


def test_streaming_shows_text_before_the_end(browser, sample_kb, tmp_path):
    text = "Vitamin B12 deficiency is treated according to its cause, with tablets or injections, and followed up. " * 2
    with _server(sample_kb, SlowLLM(text, 0.08)) as url, \
            _opened(browser, url, viewport={"width": 390, "height": 844}, locale="zh-CN", is_mobile=True) as page:
        page.fill("[data-testid=question]", "How is vitamin B12 deficiency treated?")
        page.click("[data-testid=ask]")
        page.wait_for_function("() => document.getElementById('answer-box').textContent.length > 10")
        partial = page.inner_text("[data-testid=answer]")
        assert len(partial) < len(text.strip()) and page.inner_text("[data-testid=status]") == "正在生成回答…"
        page.wait_for_function("() => document.getElementById('status').textContent === '完成'")
        assert page.inner_text("[data-testid=answer]").strip() == text.strip()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scrolling on a phone
        shot(page, "stream-phone-zh", tmp_path)


def test_the_header_placeholder_and_examples_come_from_the_knowledge_base(page, base_url, tmp_path):
    about = get_json(base_url + "/v1/about")
    english = [e["text"] for e in about["examples"] if e["lang"] == "en"]
    chinese = [e["text"] for e in about["examples"] if e["lang"] == "zh"]
    assert page.inner_text("[data-testid=kb-name]") == NAME and page.inner_text("[data-testid=kb-description]") == DESCRIPTION
    placeholder = page.get_attribute("[data-testid=question]", "placeholder")
    assert english[0] in placeholder and about["topics"][0]["name_en"] in placeholder
    assert page.locator("[data-testid=example]").all_inner_texts() == english[1:5]
    page.click("[data-testid=ui-lang]")
    assert chinese[0] in page.get_attribute("[data-testid=question]", "placeholder")
    assert page.locator("[data-testid=example]").all_inner_texts() == chinese[1:5]
    with urllib.request.urlopen(base_url + "/") as response:  # the page itself names no domain and no sample id
        html = response.read().decode()
    assert not re.search(r"B12|vitamin|nutrition|营养|缺铁|en-b12|en-low-serum", html, re.IGNORECASE)
    page.locator("[data-testid=example]").first.click()  # an example asks itself
    page.wait_for_function("() => document.getElementById('status').textContent === '完成'")
    assert page.input_value("[data-testid=question]") == chinese[1]
    assert page.locator("[data-testid=source]").count() >= 1
    shot(page, "examples-zh", tmp_path)


def test_an_error_leaves_nothing_of_the_previous_answer(page, tmp_path):
    page.refusals_expected = True
    page.click("text=User context and access")
    page.fill("[data-testid=api-key]", CLINICIAN_KEY)
    page.keyboard.press("Tab")
    page.wait_for_selector("[data-testid=role-restricted]", state="visible")
    ask(page, "B12 injections hydroxocobalamin dose")
    assert page.locator(".tag.restricted").count() >= 1  # a clinician-only card on screen
    page.fill("[data-testid=api-key]", "not-the-key")
    page.keyboard.press("Tab")
    page.wait_for_function("() => document.getElementById('status').textContent === 'The API key was not accepted.'")
    ask_and_fail(page, "B12 injections hydroxocobalamin dose")  # 401
    nothing_left(page)
    assert page.inner_text("[data-testid=banner]") == "The API key was not accepted."

    page.fill("[data-testid=api-key]", "")
    page.keyboard.press("Tab")
    ask(page, "How is vitamin B12 deficiency treated?")
    assert page.locator("[data-testid=source]").count() >= 1
    ask_and_fail(page, "why " * 600)  # 422: over max_question_chars
    nothing_left(page)
    assert page.inner_text("[data-testid=banner]") == "The question is too long (at most 2000 characters)."
    page.click("[data-testid=ui-lang]")  # the status line and the error are translated too
    assert page.inner_text("[data-testid=status]") == "失败"
    assert page.inner_text("[data-testid=banner]") == "问题太长（最多 2000 个字符）。"
    page.click("[data-testid=ui-lang]")

    for status, outcome in ((500, "The server failed to answer (error 500)."), (None, "The server could not be reached.")):
        ask(page, "How is vitamin B12 deficiency treated?")
        assert page.locator("[data-testid=source]").count() >= 1
        if status is None:
            page.route("**/v1/ask/stream", lambda route: route.abort())
        else:
            page.route("**/v1/ask/stream", lambda route: route.fulfill(status=500, json={"error": "internal error"}))
        ask_and_fail(page, "How is vitamin B12 deficiency treated?")
        nothing_left(page)
        assert page.inner_text("[data-testid=banner]").startswith(outcome)
        page.unroute("**/v1/ask/stream")
    shot(page, "after-errors", tmp_path)


def test_a_red_flag_looks_urgent_and_unlike_a_refusal(page, tmp_path):
    style = ("(() => { const b = document.getElementById('banner'), s = getComputedStyle(b);"
             " return [b.getAttribute('role'), s.backgroundColor, s.color, s.borderTopWidth, s.borderTopColor]; })()")
    ask(page, "I have crushing chest pain and can't breathe")
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "red_flag"
    urgent = page.evaluate(style)
    shot(page, "red-flag-en", tmp_path)
    ask(page, "Should I buy bitcoin or index funds?")
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "out_of_scope"
    refusal = page.evaluate(style)
    assert urgent[0] == "alert" and refusal[0] == "status"  # only the emergency interrupts a screen reader
    assert all(a != b for a, b in zip(urgent[1:], refusal[1:])), (urgent, refusal)
    shot(page, "out-of-scope-en", tmp_path)


def test_a_source_card_opens_its_unit_text(page, base_url, tmp_path):
    ask(page, "How is vitamin B12 deficiency treated?")
    card = page.locator("[data-testid=source]").first
    unit_id = card.locator(".tag").first.inner_text()
    link = card.locator("[data-testid=unit-link]")
    assert link.get_attribute("href") == f"/v1/units/{unit_id}"
    link.click()
    unit = get_json(f"{base_url}/v1/units/{unit_id}")
    pane = card.locator("[data-testid=unit-pane]")
    assert pane.locator("h4").inner_text() == unit["title"]
    shown = pane.locator("[data-testid=unit-text]").inner_text()
    assert "<Cite" not in shown and '"chunks"' not in shown and "**" not in shown  # readable: no JSON, no tags
    first = re.sub(r"<Cite[^>]*>|\*\*|\s", "", unit["chunks"][0]["text"].split("\n\n")[0])
    assert first[-80:] in re.sub(r"\[\d+\]|\s", "", shown)  # the unit's own words (citations numbered there)
    assert link.inner_text() == "Hide the unit"
    link.click()
    assert pane.is_hidden()
    shot(page, "unit-pane", tmp_path)


def test_a_phone_wide_page_never_scrolls_sideways(browser, sample_kb, tmp_path):
    with _server(sample_kb, SlowLLM(LONG_ANSWER, 0.0)) as url, \
            _opened(browser, url, viewport={"width": 390, "height": 844}, locale="en-US", is_mobile=True) as page:
        page.fill("[data-testid=question]", "How is vitamin B12 deficiency treated?")
        page.click("[data-testid=ask]")
        page.wait_for_function("() => document.getElementById('status').textContent === 'Done'")
        assert LONG_PATH in page.inner_text("[data-testid=answer]")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.locator("[data-testid=unit-link]").first.click()
        page.wait_for_selector("[data-testid=unit-text]")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shot(page, "long-url-phone", tmp_path)


def test_the_page_runs_under_its_content_security_policy(page, base_url):
    """Its script and style are allowed by hash, nothing inline else: the page still loads and asks (no console error,
    and a refused script or style would be one)."""
    response = page.goto(base_url + "/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'sha256-" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    page.wait_for_function("() => document.getElementById('kb-meta').textContent.length > 0")  # its script ran
    assert page.evaluate("getComputedStyle(document.querySelector('main')).display") == "grid"  # its style applied


def test_a_knowledge_base_of_one_language_opens_in_it_unless_the_reader_chose(browser, base_url):
    """A zh-only knowledge base opened in an English browser: its page speaks Chinese (lang="zh-CN"), until the
    reader switches; the reader's own choice is kept over the knowledge base's."""
    def one_language(route):
        about = json.loads(route.fetch().text())
        route.fulfill(json={**about, "languages": ["zh"]})

    context = browser.new_context(locale="en-US")
    try:
        page = context.new_page()
        page.route("**/v1/about", one_language)
        page.goto(base_url + "/")
        page.wait_for_function("() => document.documentElement.lang === 'zh-CN'")
        assert page.inner_text("[data-testid=ui-lang]") == "English"
        page.click("[data-testid=ui-lang]")  # the reader's choice
        assert page.evaluate("document.documentElement.lang") == "en"
        with page.expect_response("**/v1/about"):
            page.reload()
        page.wait_for_timeout(300)  # /v1/about answered and read: it must not take the page back to Chinese
        assert page.evaluate("document.documentElement.lang") == "en"
    finally:
        context.close()
