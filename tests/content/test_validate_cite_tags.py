"""Citation tags in a unit's body: declared, well formed, on their line, and which ids a body cites."""

from __future__ import annotations

import pytest

from unitrag.content.validate import cited_ids, validate_content


def test_undeclared_cite_reported_once_per_id(tree):
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\n---\n"
        'One <Cite id="cit-b"/>.\nTwo <Cite id="cit-b"/> and <Cite id="cit-a"/>.\n',
    )
    content = validate_content(tree.root)
    assert [(p.line, p.message.split(":")[0]) for p in content.problems] == [
        (9, '<Cite id="cit-b"/> is not declared in citationIds'),
        (10, '<Cite id="cit-a"/> is not declared in citationIds'),
    ]
    # one round: the registry is named too (a new team learned of it only after adding the id to citationIds)
    assert "content/citations/*.yaml" in content.problems[0].message


def test_an_undeclared_cite_that_is_a_slip_of_a_declared_id_names_it(tree):
    """An IT help desk was told to add its typo "acme-it-handbok" to citationIds and the registry."""
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\ncitationIds: [cit-a]\n---\n"
        'One <Cite id="cit-aa"/>.\n',
    )
    [problem] = [p for p in validate_content(tree.root).problems if p.field == "body"]
    assert problem.message == '<Cite id="cit-aa"/> is not declared in citationIds: did you mean \'cit-a\', which citationIds declares?'



@pytest.mark.parametrize("cached", [False, True])
def test_a_cite_of_a_registered_id_never_suggests_the_broken_id_citation_ids_declares(tree, tmp_path, cached):
    """A car rental's unit declared last year's price list, which the registry no longer holds, and cited this
    year's: the body's "did you mean" named the broken id, steering the author away from the fix."""
    from unitrag.content.unit_cache import UnitCache

    tree.write("citations/rac.yaml", '- id: rac-price-list-2025\n  title: "Price list 2025"\n  year: 2025\n')
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\n"
        "citationIds: [rac-price-list-2024]\n---\n"
        'Prices <Cite id="rac-price-list-2025"/>.\n',
    )
    cache = UnitCache(tmp_path / "cache") if cached else None
    for _ in range(2 if cached else 1):  # warm: the body's problems come from the unit cache
        problems = validate_content(tree.root, cache=cache).problems
        if cache is not None:
            cache.save()
    assert [(p.line, p.field, p.message) for p in problems] == [
        (8, "citationIds", "citation 'rac-price-list-2024' is not in the registry (content/citations/*.yaml): "
                           "did you mean 'rac-price-list-2025'?"),
        (10, "body", '<Cite id="rac-price-list-2025"/> is not declared in citationIds: citationIds should declare '
                     "'rac-price-list-2025' in place of 'rac-price-list-2024', which is not in the registry"),
    ]


@pytest.mark.parametrize(
    "tag",
    [
        '<Cite id=cit-a/>', '<Cite id="cit-a">', '<cite id="cit-a"/>', '<Cite ref="cit-a"/>', "<Cite id='cit-a' />", "<Cite",
        # issue 9: spellings the runtime's check used to miss are an author's error too
        "&lt;Cite id=&quot;cit-a&quot;/&gt;", "＜Cite id=\"cit-a\"／＞", "[cite: cit-a]", "[Cite id=cit-a]",
        '<Citation id="cit-a"/>', "Cite id=\"cit-a\"/>", "<Ci\u200bte id=\"cit-a\"/>", "&#60;Cite id=&#34;cit-a&#34;/&#62;",
    ],
)
def test_malformed_cite_tags_are_problems_on_their_line(tree, tag):
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\ncitationIds: [cit-a]\n---\n"
        f'Good <Cite id="cit-a"/>.\nStill good.\nBad {tag} here.\n',
    )
    content = validate_content(tree.root)
    assert [(p.line, p.field) for p in content.problems] == [(12, "body")]
    assert content.problems[0].message.startswith("malformed citation tag")


@pytest.mark.parametrize("tag, named", [
    ('<C\ufe0fite id="fake-2099"/>', '<C[U+FE0F]ite id="fake-2099"/>'),  # issue 22: a variation selector
    ('<C\U000e0100ite id="cit-a"/>', '<C[U+E0100]ite id="cit-a"/>'),
    ('<C\u3164ite id="cit-a"/>', '<C[U+3164]ite id="cit-a"/>'),
    ('<\u1d04\u026a\u1d1b\u1d07 id="cit-a"/>', '<\u1d04\u026a\u1d1b\u1d07 id="cit-a"/>'),  # small capitals
    ('<\u13dfite id="cit-a"/>', '<\u13dfite id="cit-a"/>'),  # Cherokee
    ('<C\u0131te id="cit-a"/>', '<C\u0131te id="cit-a"/>'),  # a dotless i
])
def test_a_tag_hidden_by_invisible_or_look_alike_characters_is_a_problem_on_its_line(tree, tag, named):
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\ncitationIds: [cit-a]\n---\n"
        f'Good <Cite id="cit-a"/>.\nStill good.\nBad {tag} here.\n',
    )
    [problem] = validate_content(tree.root).problems
    assert (problem.path, problem.line, problem.field) == (tree.shown("documents/doc-one.md"), 12, "body")
    assert problem.message == f"malformed citation tag {named!r}: write <Cite id=\"...\"/>"


def test_a_tag_split_over_lines_is_reported_on_its_first_line(tree):
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\ncitationIds: [cit-a]\n---\n"
        'One.\nTwo <Cite\nid="cit-a"/>.\n',
    )
    assert [(p.line, p.message[:22]) for p in validate_content(tree.root).problems] == [(11, "malformed citation tag")]


@pytest.mark.parametrize("tag", ['<Cite id="cit-a"/>', '<Cite id="cit-a" />', '<Cite  id="cit-a"/>'])
def test_well_formed_cite_tags(tree, tag):
    tree.write(
        "documents/doc-one.md",
        "---\nkind: document\nid: doc-one\ntitle: T\nlang: en\ntopics: [folate]\nsource: s\ncitationIds: [cit-a]\n---\n"
        f"Text {tag}.\n",
    )
    assert validate_content(tree.root).problems == []


def test_cited_ids():
    body = 'A <Cite id="x"/> b <Cite id="y" /> c <Cite id=\'z\'/> <Cite id="x"/>'
    assert cited_ids(body) == ["x", "y", "x"]
    assert cited_ids("no tags") == []
