"""The preview page in a real browser: Playwright for Python driving Debian's chromium (no browser download).

``.ci/run`` installs chromium with apt; without it (or without playwright) only this module is skipped,
with the reason. Set UNITRAG_SCREENSHOTS=<dir> to keep the screenshots for a look.
"""

from __future__ import annotations

import os
import shutil
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


def _server(sample_kb: KnowledgeBase, llm=None):
    holder = KbHolder("sample", lambda _l, _p: KnowledgeBase(sample_kb.store, sample_kb.encoder, sample_kb.config, llm), 0)
    settings = ServeSettings(api_keys=CLINICIAN_KEYS, reload_poll_s=0)
    return live_server(create_app(settings, config=sample_kb.config, holder=holder))


@pytest.fixture(scope="module")
def base_url(sample_kb):
    with _server(sample_kb) as url:
        yield url


@pytest.fixture
def page(browser, base_url, tmp_path):
    context = browser.new_context(viewport={"width": 1100, "height": 1400}, locale="en-US")
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.problems = problems
    page.goto(base_url + "/")
    page.wait_for_function("document.getElementById('kb-meta').textContent.length > 0")
    yield page
    context.close()
    assert problems == [], problems  # no console errors on any page


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
    page.wait_for_function("!document.getElementById('ask').disabled && document.getElementById('answer-box').textContent.length > 0")


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


def test_an_off_topic_question_shows_not_found(page, tmp_path):
    ask(page, "Who won the last football World Cup?")
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "notfound"
    assert page.locator("[data-testid=reference]").count() == 0
    shot(page, "not-found", tmp_path)


def test_a_red_flag_shows_the_safety_message_and_no_sources(page, tmp_path):
    page.click("[data-testid=ui-lang]")  # Chinese UI
    ask(page, "我胸口剧痛，喘不上气")
    assert page.get_attribute("[data-testid=banner]", "data-kind") == "guard"
    assert page.inner_text("[data-testid=banner]") == "安全提示"
    assert "120" in page.inner_text("[data-testid=answer]")
    assert page.locator("[data-testid=source]").count() == 0 and page.locator("[data-testid=reference]").count() == 0
    shot(page, "red-flag-zh", tmp_path)


def test_the_role_control_appears_only_for_a_key_that_grants_it(page, tmp_path):
    assert page.locator("[data-testid=role-clinician]").is_hidden()
    ask(page, "B12 injections hydroxocobalamin dose")
    assert "Treating B12 deficiency" not in page.inner_text("[data-testid=sources]")
    page.click("text=User context and access")
    page.fill("[data-testid=api-key]", CLINICIAN_KEY)
    page.keyboard.press("Tab")  # the change event checks the key with /v1/me
    page.wait_for_selector("[data-testid=role-clinician]", state="visible")
    ask(page, "B12 injections hydroxocobalamin dose")
    assert "Treating B12 deficiency" in page.inner_text("[data-testid=sources]")
    assert page.locator("[data-testid=source] .tag.restricted").count() >= 1
    shot(page, "clinician-en", tmp_path)


def test_streaming_shows_text_before_the_end(browser, sample_kb, tmp_path):
    text = "Vitamin B12 deficiency is treated according to its cause, with tablets or injections, and followed up. " * 2
    with _server(sample_kb, SlowLLM(text, 0.08)) as url:
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", is_mobile=True)
        page = context.new_page()
        problems: list[str] = []
        page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.goto(url + "/")
        page.wait_for_function("document.getElementById('kb-meta').textContent.length > 0")
        page.fill("[data-testid=question]", "How is vitamin B12 deficiency treated?")
        page.click("[data-testid=ask]")
        page.wait_for_function("document.getElementById('answer-box').textContent.length > 10")
        partial = page.inner_text("[data-testid=answer]")
        assert len(partial) < len(text.strip()) and page.inner_text("[data-testid=status]") == "正在生成回答…"
        page.wait_for_function("document.getElementById('status').textContent === '完成'")
        assert page.inner_text("[data-testid=answer]").strip() == text.strip()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scrolling on a phone
        shot(page, "stream-phone-zh", tmp_path)
        context.close()
        assert problems == [], problems
