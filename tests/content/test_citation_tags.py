"""The citation tokenizer, property-based: however a citation is spelled, it is found, and only
the accepted spellings of an allowed id pass."""

from __future__ import annotations

import html

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unitrag.content.citation_tags import canonical_tag, find_tags, replace_tags, strip_tags
from unitrag.rag.citations import check_citations, strip_citations

WHITELIST = ["nih-b12", "who-iodine", "dga-2020"]

ids = st.from_regex(r"[a-z][a-z0-9]{0,8}(?:-[a-z0-9]{1,8}){0,3}", fullmatch=True)
fabricated = ids.filter(lambda i: i not in WHITELIST)
prose = st.text(alphabet="abcdefg XYZ 0123,.;:!?碘铁。，", max_size=30)
space = st.sampled_from(["", " ", "  ", "\t", "\n", " \n  "])
some_space = st.sampled_from([" ", "  ", "\t", "\n", "\u00a0", "\u3000"])


@st.composite
def cases(draw: st.DrawFn, word: str) -> str:
    return "".join(c.upper() if draw(st.booleans()) else c.lower() for c in word)


@st.composite
def loose_tags(draw: st.DrawFn, cid: str) -> str:
    """The spellings the runtime accepts: any case, whitespace, quote style and ending."""
    quote = draw(st.sampled_from(['"', "'"]))
    end = draw(st.sampled_from(["/>", "/ >", ">", "></cite>", "></Cite >", "> </CITE>"]))
    return (f"<{draw(space)}{draw(cases('cite'))}{draw(some_space)}{draw(cases('id'))}{draw(space)}={draw(space)}"
            f"{quote}{cid}{quote}{draw(space)}{end}")


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@st.composite
def any_spelling(draw: st.DrawFn, cid: str) -> str:
    """A citation of ``cid`` written any way a reader would still take for one."""
    name = draw(cases(draw(st.sampled_from(["cite", "cite", "citation", "cit"]))))
    quote = draw(st.sampled_from(['"', "'", "", "\u201c", "\u2018"]))
    close_quote = {"\u201c": "\u201d", "\u2018": "\u2019"}.get(quote, quote)
    value = f"{quote}{cid}{close_quote}"
    attr = draw(st.sampled_from([f"id={value}", f"id = {value}", f"ID={value}", f"id:{value}"]))
    extra = draw(st.sampled_from(["", ' page="1"', " page=2", " data-x='y'"]))
    before = draw(st.booleans())
    attrs = f"{extra} {attr}" if before else f" {attr}{extra}"
    form = draw(st.sampled_from(["angle", "angle", "paired", "element", "square", "curly", "bare"]))
    end = draw(st.sampled_from(["/>", ">", " />"]))
    tag = {
        "angle": f"<{draw(space)}{name}{attrs}{end}",
        "paired": f"<{name}{attrs}>{draw(st.sampled_from(['', 'WHO', ' x ']))}</{name}>",
        "element": f"<{name}>{cid}</{name}>",
        "square": f"[{name}{attrs}]",
        "curly": f"{{{name}{attrs}}}",
        "bare": f"cite id={value}/>",
    }[form]
    disguise = draw(st.sampled_from(["none", "none", "html", "html2", "numeric", "fullwidth", "zero-width",
                                     "markdown", "lookalike", "brackets"]))
    if disguise == "html":
        tag = html.escape(tag)
    elif disguise == "html2":
        tag = html.escape(html.escape(tag))
    elif disguise == "numeric":
        tag = "".join(f"&#{ord(c)};" if c in "<>\"'" else c for c in tag)
    elif disguise == "fullwidth":
        tag = fullwidth(tag)
    elif disguise == "zero-width":
        at = draw(st.integers(1, len(tag) - 1))
        tag = tag[:at] + draw(st.sampled_from(["\u200b", "\u200d", "\ufeff", "\u00ad"])) + tag[at:]
    elif disguise == "markdown":
        tag = tag.replace("<", "\\<").replace(">", "\\>").replace("[", "\\[")
    elif disguise == "lookalike":
        tag = tag.replace("c", "\u0441", 1).replace("C", "\u0421", 1)
    elif disguise == "brackets":
        tag = tag.replace("<", draw(st.sampled_from(["\u2039", "\u3008", "\uff1c", "\u00ab"])), 1)
    return tag


@settings(max_examples=400, deadline=None)
@given(st.data(), fabricated, prose, prose)
def test_a_fabricated_id_is_invalid_however_it_is_spelled(data: st.DataObject, cid: str, head: str, tail: str) -> None:
    tag = data.draw(st.one_of(loose_tags(cid), any_spelling(cid)))
    report = check_citations(f"{head}{tag}{tail}", WHITELIST)
    assert report.invalid_ids and report.valid_ids == [] and report.score == 0.0, (tag, report)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(WHITELIST), prose)
def test_an_allowed_id_in_a_disguised_or_extended_tag_is_still_invalid(data: st.DataObject, cid: str, head: str) -> None:
    tag = data.draw(any_spelling(cid))
    tags = find_tags(head + tag)
    if [t.id for t in tags] == [cid]:  # the few spellings that are also loose ones
        return
    report = check_citations(head + tag, WHITELIST)
    assert report.invalid_ids and report.score < 1.0, (tag, report)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(WHITELIST), prose, prose)
def test_an_allowed_id_in_an_accepted_spelling_is_valid(data: st.DataObject, cid: str, head: str, tail: str) -> None:
    tag = data.draw(loose_tags(cid))
    report = check_citations(f"{head}{tag}{tail}", WHITELIST)
    assert (report.valid_ids, report.invalid_ids, report.score) == ([cid], [], 1.0), (tag, report)


@settings(max_examples=200, deadline=None)
@given(st.data(), st.lists(st.one_of(ids, st.sampled_from(WHITELIST)), min_size=1, max_size=4), prose)
def test_stripping_leaves_nothing_that_looks_like_a_citation(data: st.DataObject, cids: list[str], filler: str) -> None:
    text = filler.join(data.draw(st.one_of(loose_tags(c), any_spelling(c))) for c in cids)
    assert find_tags(strip_tags(text)) == []
    assert find_tags(strip_citations(text)) == []


@settings(max_examples=200, deadline=None)
@given(ids, prose, prose)
def test_only_the_exact_form_is_canonical(cid: str, head: str, tail: str) -> None:
    [tag] = find_tags(f"{head}{canonical_tag(cid)}{tail}")
    assert (tag.id, tag.canonical) == (cid, True)


@pytest.mark.parametrize("tag", ["<Cite id='x'/>", '<cite id="x"/>', '<Cite id="x">', '<Cite id=" x "/>',
                                 '<Cite\nid="x"/>', '<Cite id="x"></Cite>'])
def test_loose_forms_are_not_canonical(tag: str) -> None:
    [found] = find_tags(tag)
    assert (found.id, found.canonical) == ("x", False)


def test_offsets_point_into_the_text_as_written() -> None:
    text = 'A &lt;Cite id=&quot;x&quot;/&gt; b \\<Cite id="y"/\\> c ＜Cite id="z"／＞ d \u200b<Cite id="w"/>'
    spans = [text[t.start:t.end] for t in find_tags(text)]
    assert spans == ['&lt;Cite id=&quot;x&quot;/&gt;', '\\<Cite id="y"/\\>', '＜Cite id="z"／＞', '<Cite id="w"/>']


def test_removing_a_tag_takes_the_space_before_it_unless_it_joins_two_words() -> None:
    assert strip_tags('fact <Cite id="a"/>. Next\n<Cite id="b"/>.') == "fact. Next."
    assert strip_tags('one <Cite id="a"/> <Cite id="b"/>two') == "one two"
    assert strip_tags('碘<Cite id="a"/>。') == "碘。"
    assert replace_tags('fact <Cite id="a"/>. <Cite id="b"/>', lambda t: None if t.id == "b" else "[1]") == (
        'fact[1]. <Cite id="b"/>'
    )


def test_removal_cannot_splice_a_new_tag_out_of_the_pieces() -> None:
    assert find_tags(strip_tags('<Ci<Cite id="a"/>te id="x"/>')) == []


def test_letters_from_other_blocks_are_undisguised_too() -> None:
    for tag in ['<\U0001d41c\U0001d422\U0001d42d\U0001d41e id="x"/>', '<Cite id="x"\U000e0020/>', "⟨cite id='x'⟩"]:
        [found] = find_tags(f"Text {tag} more.")
        assert found.id is None, tag


def test_plain_cjk_text_takes_the_fast_path() -> None:
    """Only characters that can change what is found are undisguised one by one: a long Chinese
    body with its full-width commas and brackets is searched as it is."""
    from unitrag.content.citation_tags import _special

    assert _special().search("成人每天推荐摄入碘120微克，孕妇为230微克（多）！。µ") is None
    assert _special().search("＜") and _special().search("\u200b") and _special().search("&")
