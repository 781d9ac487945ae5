"""Citation URLs: a real URL parser plus strict checks; a bad one is a problem at its line."""

from __future__ import annotations

import pytest

from unitrag.content.urls import check_url
from unitrag.content.validate import validate_content

GOOD = [
    "https://ods.od.nih.gov/factsheets/VitaminB12-HealthProfessional/",
    "http://example.org",
    "https://en.wikipedia.org/wiki/Vitamin_(disambiguation)?x=1&y=[2]#top",
    "https://www.nhc.gov.cn/wjw/营养/指南.shtml",
    "https://example.org:8443/a%20b",
    "https://[2001:db8::1]/x",
]
BAD = {
    "https://example.org/a b": "space",
    " https://example.org/": "space",
    "https://example.org/\ta": "space",
    "https://example.org/<script>": "'<'",
    "https://example.org/a>b": "'>'",
    'https://example.org/"x"': "'\"'",
    "https://example.org/wiki/Foo_(bar": "unbalanced",
    "https://example.org/wiki/Foo]bar[": "unbalanced",
    "https://example.org/a)(b": "unbalanced",
    "ftp://example.org/file": "http:// or https://",
    "javascript:alert(1)": "http:// or https://",
    "https:/example.org": "host",
    "https://": "host",
    "https:///path": "host",
    "https://.org/": "host",
    "https://exa_mple..org/": "host",
    "https://user:secret@example.org/": "user name or password",
    "https://example.org:99999/": "port",
    "https://[::1/x": "unbalanced",
    "https://[::1]x/": "bad host",
    "https://example.org/\u202efdp.exe": "invisible character U+202E",  # shown as …/exe.pdf
    "https://exam\u200bple.org/": "invisible character U+200B",
}


@pytest.mark.parametrize("url", GOOD)
def test_good_urls_pass_unchanged(url: str) -> None:
    assert check_url(url) == url


@pytest.mark.parametrize(("url", "reason"), BAD.items(), ids=[repr(u) for u in BAD])
def test_bad_urls_say_why(url: str, reason: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        check_url(url)
    assert reason in str(caught.value)


def test_a_bad_registry_url_is_a_problem_at_its_line(tree, samples) -> None:
    tree.write("citations/a.yaml", samples.CITATIONS.replace("https://example.org/a", "https://example.org/a b<c>"))
    problems = [p for p in validate_content(tree.root).problems if p.path == tree.shown("citations/a.yaml")]
    assert [(p.line, p.field) for p in problems] == [(5, "cit-a.url")]
    assert "space" in problems[0].message
