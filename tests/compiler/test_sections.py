"""split_sections: recursive splitting by heading structure, heading paths, merging small neighbours."""

from __future__ import annotations

import pytest

from unitrag.compiler.blocks import parse_blocks
from unitrag.compiler.blocks import split_sentences
from unitrag.compiler.sections import Section, split_sections


def words(text: str) -> int:
    return len(text.split())


def para(tag: str, n: int) -> str:
    """``n`` words in sentences of five words."""
    ws = [f"{tag}{i}" for i in range(n)]
    return " ".join(w + ("." if (i + 1) % 5 == 0 or i == n - 1 else "") for i, w in enumerate(ws))


def doc(*parts: str) -> list:
    return parse_blocks("\n\n".join(parts))


def test_small_document_is_one_section_with_the_given_path() -> None:
    blocks = doc("## A", para("a", 5), "## B", para("b", 5))
    assert split_sections(blocks, 100, words, ("Root",)) == [Section(("Root",), "## A\n\n" + para("a", 5) + "\n\n## B\n\n" + para("b", 5))]
    assert split_sections([], 100, words) == []


def test_splits_at_the_top_level_and_keeps_heading_paths() -> None:
    blocks = doc("## Alpha", para("a", 30), "## Beta", para("b", 30), "## Gamma", para("g", 30))
    sections = split_sections(blocks, 40, words)
    assert [s.path for s in sections] == [("Alpha",), ("Beta",), ("Gamma",)]
    assert sections[1].text == "## Beta\n\n" + para("b", 30)
    assert all(words(s.text) <= 40 for s in sections)


def test_splits_recursively_at_the_next_level() -> None:
    # a lone leading "# Top" leads every path; sizes fill the budget with the path cost (" > Top > A > A1")
    blocks = doc(
        "# Top", para("t", 4),
        "## A", para("a", 34),
        "### A1", para("x", 32),
        "### A2", para("y", 32),
        "## B", para("b", 34),
    )
    sections = split_sections(blocks, 40, words)
    paths = [s.path for s in sections]
    assert paths == [("Top",), ("Top", "A"), ("Top", "A", "A1"), ("Top", "A", "A2"), ("Top", "B")]
    a1 = next(s for s in sections if s.path == ("Top", "A", "A1"))
    assert a1.text == "### A1\n\n" + para("x", 32)
    assert sections[1].text == "## A\n\n" + para("a", 34)
    assert all(words(s.text) + 2 * len(s.path) <= 40 for s in sections)  # each ' > X' costs 2 words
    # the order of the text is kept
    joined = "\n\n".join(s.text for s in sections)
    assert joined.index("x0") < joined.index("y0") < joined.index("b0")


def test_top_level_is_the_highest_heading_present_not_h1() -> None:
    blocks = doc("### Deep", para("d", 30), "#### Deeper", para("e", 30), "### Other", para("o", 30))
    sections = split_sections(blocks, 40, words)
    assert [s.path for s in sections] == [("Deep",), ("Deep", "Deeper"), ("Other",)]


def test_small_neighbours_are_merged_under_their_common_path() -> None:
    blocks = doc(
        "## A", para("a", 35),
        "### A1", para("x", 5),
        "### A2", para("y", 5),
        "## B", para("b", 35),
    )
    sections = split_sections(blocks, 40, words)
    assert [s.path for s in sections] == [("A",), ("A",), ("B",)]
    merged = sections[1]
    assert "### A1" in merged.text and "### A2" in merged.text
    assert para("x", 5) in merged.text and para("y", 5) in merged.text


def test_merging_across_top_level_sections_drops_to_the_common_prefix() -> None:
    # A and D fill the budget with their path (" > A" costs 2 words); B and C fit together at the root
    blocks = doc("## A", para("a", 36), "## B", para("b", 5), "## C", para("c", 5), "## D", para("d", 36))
    sections = split_sections(blocks, 40, words)
    assert [s.path for s in sections] == [("A",), (), ("D",)]
    assert sections[1].text == f"## B\n\n{para('b', 5)}\n\n## C\n\n{para('c', 5)}"


def test_no_section_is_just_a_heading_and_one_line_when_it_could_merge() -> None:
    blocks = doc(*[x for i in range(8) for x in (f"## H{i}", para(f"s{i}", 4))])
    sections = split_sections(blocks, 20, words)
    assert len(sections) < 8
    assert all(words(s.text) <= 20 for s in sections)
    assert all(s.text.count("## ") >= 2 for s in sections[:-1])


def test_section_without_subheadings_is_packed_by_blocks() -> None:
    table = "| k | v |\n|---|---|\n" + "\n".join(f"| key{i} | value{i} |" for i in range(10))
    blocks = doc("## Big", para("p", 30), table, para("q", 30), "## Small", para("s", 36))  # Small fills 40 with " > Small"
    sections = split_sections(blocks, 40, words)
    assert [s.path for s in sections][-1] == ("Small",)
    big = sections[:-1]
    assert len(big) >= 2
    assert all(s.path == ("Big",) for s in big)
    assert sum(table in s.text for s in sections) == 1  # tables are never cut, even over budget
    assert words(table) > 40
    assert all(words(s.text) <= 40 or s.text == table for s in sections)


def test_a_lone_leading_heading_is_in_the_path_of_its_parts() -> None:
    blocks = doc("## Big", para("p", 30), para("q", 30))
    sections = split_sections(blocks, 40, words)
    assert len(sections) == 2
    assert [s.path for s in sections] == [("Big",), ("Big",)]


def test_document_without_headings_is_packed() -> None:
    blocks = doc(para("a", 30), para("b", 30), para("c", 30))
    sections = split_sections(blocks, 40, words)
    assert len(sections) == 3
    assert all(s.path == () for s in sections)


def test_a_heading_is_never_separated_from_its_body() -> None:
    blocks = doc("## Gamma", para("g", 5), "## Delta", para("d", 40))
    sections = split_sections(blocks, 40, words)
    for s in sections:
        assert not s.text.rstrip().endswith("## Delta"), sections


@pytest.mark.parametrize("parts", [
    ("## Gamma", para("g", 5), "## Delta", para("d", 37)),
    ("# Top", para("t", 4), "## A", para("a", 35), "### A1", para("x", 35), "### A2", para("y", 35), "## B", para("b", 35)),
], ids=["sibling", "nested"])
def test_a_heading_stays_with_its_body_when_only_the_body_fits_alone(parts: tuple[str, ...]) -> None:
    # each body fits the room left by its path, but not together with its heading
    sections = split_sections(doc(*parts), 40, words)
    texts = [s.text for s in sections]
    for s in sections:
        assert not s.text.rsplit("\n\n", 1)[-1].startswith("#"), texts  # no chunk ends with (or is) a heading
    for heading, body in zip(parts[::2], parts[1::2]):
        start = f"{heading}\n\n{split_sentences(body)[0]}"
        assert any(start in s.text for s in sections), (heading, texts)  # the heading leads its body's first sentence
