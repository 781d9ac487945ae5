"""The bounded sandbox: every road to a huge value is refused before it allocates, and renders stop at the budget."""

from __future__ import annotations

import resource
import time

import pytest

from unitrag.artifact.bounded_sandbox import MAX_STEPS, WORK_FACTOR, PromptTooLarge, render_bounded, text_size
from unitrag.artifact.prompts import TEMPLATE_ENV
from unitrag.config import Config

BUDGET = 100_000

#: Each would allocate gigabytes (or run for hours) in Jinja's own sandbox; the budget is 100,000 characters.
HOSTILE = {
    "repetition": "{{ 'a' * 1500000000 }}",
    "repetition, int first": "{{ 10 ** 9 * 'a' }}",
    "list repetition": "{{ [1] * 10 ** 9 }}",
    "power": "{{ 7 ** 1000000000 }}",
    "percent width": "{{ '%999999999s' % 'a' }}",
    "percent star width": "{{ '%*s' % (999999999, 'a') }}",
    "percent precision": "{{ '%.999999999f' % 1.5 }}",
    "format filter width": "{{ '%999999999s' | format('a') }}",
    "str.format width": "{{ '{:>999999999}'.format('a') }}",
    "str.format width from an argument": "{{ '{:{}}'.format('a', 999999999) }}",
    "center filter": "{{ 'a' | center(999999999) }}",
    "center method": "{{ 'a'.center(999999999) }}",
    "zfill method": "{{ 'a'.zfill(999999999) }}",
    "indent": "{{ ('a\n' * 50000) | indent(50000) }}",
    "wordwrap": "{{ ('a ' * 40000) | wordwrap(1, wrapstring='b' * 40000) }}",
    "join of a range": "{{ range(100000) | join('x' * 50000) }}",
    "str.join": "{{ ('x' * 50000).join(['a'] * 50000) }}",
    "replace filter": "{{ ('a' * 50000) | replace('', 'b' * 50000) }}",
    "replace method": "{{ ('a' * 50000).replace('', 'b' * 50000) }}",
    "translate": "{{ 'aaa'.translate({97: 'b' * 50000}) }}",
    "doubling with ~": "{% set ns = namespace(s='a') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    "doubling with +": "{% set ns = namespace(s='a') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
    "doubling in a set block": "{% set ns = namespace(s='a') %}{% for i in range(40) %}{% set x %}{{ ns.s }}{{ ns.s }}"
                               "{% endset %}{% set ns.s = x %}{% endfor %}",
    "a set block filled by a loop": "{% set x %}{% for i in range(100000) %}{{ 'y' * 90000 }}{% endfor %}{% endset %}",
    "a caller repeated by a macro": "{% macro m() %}{% for i in range(1000) %}{{ caller() }}{% endfor %}{% endmacro %}"
                                    "{% call m() %}{{ 'a' * 1000 }}{% endcall %}",
    "copies made one by one": "{% set s = 'a' * 50000 %}{{ ([s] * 2) | map('lower') | list | length }}"
                              "{% for i in range(1000) %}{% set t = s | lower %}{% endfor %}",
    "nested references printed": "{% set s = 'a' * 50000 %}{% set l = [s, s, s, s, s, s, s, s, s, s] %}"
                                 "{% set l2 = [l, l, l, l, l, l, l, l, l, l] %}{{ [l2, l2, l2, l2, l2, l2, l2, l2, l2, l2] }}",
    "join of a long string's characters": "{{ ('a' * 50000) | join('b' * 50000) }}",
    "a list printed by a string filter": "{% set s = 'a' * 50000 %}{{ ([s] * 100) | replace('a', 'b') }}",
    "a namespace printed": "{% set s = 'a' * 60000 %}{% set ns = namespace(a=s, b=s) %}{{ ns }}",
    "nested references as JSON": "{% set s = 'a' * 50000 %}{% set l = [s, s, s, s, s, s, s, s, s, s] %}{{ [l, l] | tojson }}",
    "squaring": "{% set ns = namespace(x=3) %}{% for i in range(64) %}{% set ns.x = ns.x * ns.x %}{% endfor %}",
    "a loop in a loop": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "a macro doubling its calls": "{% macro m(n) %}{% if n > 0 %}{{ m(n - 1) }}{{ m(n - 1) }}{% endif %}{% endmacro %}"
                                  "{{ m(60) }}",
    "output": "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
    "template text in a loop": "{% for i in range(100000) %}" + "x" * 100 + "{% endfor %}",
}


def render(source: str, budget: int = BUDGET, **variables: object) -> str:
    return render_bounded(TEMPLATE_ENV.from_string(source), variables, budget)


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_template_is_refused_fast_and_small(source: str) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux: the process's peak so far
    started = time.perf_counter()
    with pytest.raises(PromptTooLarge):
        render(source)
    assert time.perf_counter() - started < 5.0  # Jinja's own sandbox: 53 s and 10.4 GB for the first one
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # under 200 MB more, ever


def test_lists_cannot_be_changed_in_place_and_lipsum_is_gone() -> None:
    from jinja2 import UndefinedError
    from jinja2.sandbox import SecurityError

    with pytest.raises(SecurityError):
        render("{% set l = [1] %}{% for i in range(40) %}{{ l.extend(l) }}{% endfor %}")
    with pytest.raises(UndefinedError):
        render("{{ lipsum(100000) }}")  # 100,000 paragraphs of lorem ipsum


def test_real_template_features_still_work() -> None:
    source = ("{% for s in sources %}[{{ loop.index }}/{{ loop.length }}] {{ s.title | upper }} {{ s.ids | join(', ') }}\n"
              "{{ s.text | trim | indent(2) }}{% endfor %}{% set tail %}{{ 'ab' * 3 }}{% endset %}{{ tail }} "
              "{{ '%5s|' % 'x' }}{{ '{:>4}|'.format('y') }}{{ 'z' | center(5) }}|{{ 2 ** 10 }} {{ [1, 2] + [3] }}"
              "{{ ' ' ~ question ~ '?' }}")
    sources = [{"title": f"t{n}", "ids": ["a", "b"], "text": " body "} for n in range(5)]
    out = render(source, sources=sources, question="why")
    assert out.startswith("[1/5] T0 a, b\nbody[2/5] T1")
    assert out.endswith("ababab     x|   y|  z  |1024 [1, 2, 3] why?")


def test_sources_as_long_as_the_budget_allows_are_joined_and_numbers_print() -> None:
    texts = ["x" * 19_000] * 5  # a real prompt of five long sources: 95,000 characters joined, not 6x that
    out = render("{{ texts | join('\n') }}{{ '{} of {}'.format(1234567, 7654321) }}{{ '%d' | format(99999999) }}",
                 texts=texts)
    assert len(out) == 95_004 + len("1234567 of 7654321") + 8


def test_a_prompt_just_within_the_budget_renders_and_one_character_more_does_not() -> None:
    assert len(render("{{ text }}!", budget=1_001, text="a" * 1_000)) == 1_001
    with pytest.raises(PromptTooLarge, match="over the budget of 1,000 characters"):
        render("{{ text }}!", budget=1_000, text="a" * 1_000)


def test_a_render_stopped_for_its_size_says_which_line_was_writing() -> None:
    source = "one\ntwo\n{% for i in range(1000) %}\n{{ 'x' * 99 }}\n{% endfor %}"
    with pytest.raises(PromptTooLarge) as caught:
        render(source, budget=5_000)
    assert caught.value.lineno == 4  # type: ignore[attr-defined]


def test_the_totals_are_what_the_module_says() -> None:
    with pytest.raises(PromptTooLarge, match=f"over {MAX_STEPS:,} times"):
        render("{% for i in range(100) %}{% for j in range(101) %}{% endfor %}{% endfor %}")
    with pytest.raises(PromptTooLarge, match=f"{BUDGET * WORK_FACTOR:,} characters in all"):
        render("{% for i in range(3000) %}{% set t = ('a' * 1000) | upper %}{% endfor %}")


def test_text_size_bounds_what_str_makes_without_walking_past_its_limit() -> None:
    nested = [["é" * 10, 123456, None, {"k": "v"}]] * 3
    assert text_size(nested, 10**6) >= len(str(nested))
    shared = ["x" * 1000] * 10**6  # a million references: the walk stops just past the limit
    started = time.perf_counter()
    assert text_size(shared, 10_000) > 10_000
    assert time.perf_counter() - started < 0.05


def test_the_default_budget_is_the_config_default() -> None:
    from unitrag.artifact.bounded_sandbox import MAX_PROMPT_CHARS

    assert Config().max_prompt_chars == MAX_PROMPT_CHARS
