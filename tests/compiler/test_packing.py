"""pack_blocks: greedy, balanced packing under a budget, never cutting atoms, with overlap."""

from __future__ import annotations

import pytest

from unitrag.compiler.blocks import Block, parse_blocks, split_sentences
from unitrag.compiler.packing import pack_blocks
from unitrag.compiler.tokens import estimate_tokens


def words(text: str) -> int:
    return len(text.split())


def sentence(tag: str, n: int = 6) -> str:
    """A sentence of exactly ``n`` words, unique by ``tag``."""
    return " ".join([f"{tag}w{i}" for i in range(n - 1)] + [f"{tag}end."])


def paragraph(tag: str, sentences: int, n: int = 6) -> str:
    return " ".join(sentence(f"{tag}s{i}", n) for i in range(sentences))


TABLE = "| a | b |\n|---|---|\n" + "\n".join(f"| row{i} x | row{i} y |" for i in range(20))
CODE = "```\n" + "\n".join(f"line {i} of code here" for i in range(15)) + "\n```"


def test_everything_fitting_is_one_chunk() -> None:
    blocks = [Block("paragraph", "One two. Three four."), Block("list", "- a\n- b")]
    assert pack_blocks(blocks, 100, words) == ["One two. Three four.\n\n- a\n- b"]
    assert pack_blocks([], 100, words) == []


@pytest.mark.parametrize("atom", [Block("table", TABLE), Block("code", CODE), Block("list", "\n".join(f"- item {i} here." for i in range(30)))])
def test_atoms_over_budget_are_never_cut(atom: Block) -> None:
    blocks = [Block("paragraph", paragraph("a", 2)), atom, Block("paragraph", paragraph("b", 2))]
    assert words(atom.text) > 20
    chunks = pack_blocks(blocks, 20, words)
    holding = [c for c in chunks if atom.text in c]
    assert len(holding) == 1  # whole, exactly once
    # and no other chunk holds a fragment of it
    first_line, last_line = atom.text.splitlines()[0], atom.text.splitlines()[-1]
    assert sum(first_line in c for c in chunks) == 1
    assert sum(last_line in c for c in chunks) == 1


def test_table_and_code_within_budget_are_never_cut_in_mixed_text() -> None:
    md = "\n\n".join([paragraph("p1", 5), TABLE, paragraph("p2", 5), CODE, paragraph("p3", 5)])
    blocks = parse_blocks(md)
    budget = max(words(TABLE), words(CODE)) + 5
    chunks = pack_blocks(blocks, budget, words)
    assert sum(TABLE in c for c in chunks) == 1
    assert sum(CODE in c for c in chunks) == 1
    assert all(words(c) <= budget for c in chunks)


def test_long_prose_is_cut_only_at_sentence_ends() -> None:
    sentences = [sentence(f"s{i}", 5 + i % 4) for i in range(40)]
    chunks = pack_blocks([Block("paragraph", " ".join(sentences))], 30, words)
    assert len(chunks) > 1
    known = set(sentences)
    seen: list[str] = []
    for chunk in chunks:
        for part in chunk.split("\n\n"):
            for s in split_sentences(part):
                assert s in known, f"cut mid-sentence: {s!r}"
                if not seen or seen[-1] != s:
                    seen.append(s)
    # every sentence survives, in order (overlap repeats are collapsed above)
    deduped = [s for i, s in enumerate(seen) if s not in seen[:i]]
    assert deduped == sentences


def test_chinese_prose_is_cut_at_chinese_sentence_ends() -> None:
    sentences = [f"第{i}句话讲的是铁的吸收和贫血的关系。" for i in range(30)]
    chunks = pack_blocks([Block("paragraph", "".join(sentences))], 60, estimate_tokens)
    assert len(chunks) > 1
    for chunk in chunks:
        assert estimate_tokens(chunk) <= 60
        for part in chunk.split("\n\n"):
            for s in split_sentences(part):
                assert s in sentences
        assert " " not in chunk.replace("\n\n", "")  # CJK sentences are joined without spaces


def test_every_chunk_within_budget_when_possible() -> None:
    md = "\n\n".join(
        [paragraph("a", 7, 7), "Things to check:\n\n- one thing\n- two things", paragraph("b", 3, 9), TABLE,
         paragraph("c", 12, 5), "## A heading", paragraph("d", 2, 4)]
    )
    blocks = parse_blocks(md)
    for budget in (40, 60, 85, 150):
        chunks = pack_blocks(blocks, budget, words)
        # only the over-budget table may exceed it, and then it stands alone
        assert all(words(c) <= budget or c == TABLE for c in chunks), (budget, [words(c) for c in chunks])
        assert sum(TABLE in c for c in chunks) == 1
    for budget in (64, 120):  # every sentence fits these
        for chunk in pack_blocks(blocks, budget, estimate_tokens):
            assert estimate_tokens(chunk) <= budget or chunk == TABLE


def test_overlap_between_consecutive_prose_chunks() -> None:
    paragraphs = [paragraph(f"p{i}", 3) for i in range(8)]  # 18 words each
    chunks = pack_blocks([Block("paragraph", p) for p in paragraphs], 40, words)
    assert len(chunks) >= 3
    for prev, nxt in zip(chunks, chunks[1:]):
        last = split_sentences(prev.split("\n\n")[-1])[-1]
        assert nxt.startswith(last + "\n\n"), (prev, nxt)
    assert all(words(c) <= 40 for c in chunks)


def test_no_overlap_when_disabled() -> None:
    paragraphs = [paragraph(f"p{i}", 3) for i in range(8)]
    chunks = pack_blocks([Block("paragraph", p) for p in paragraphs], 40, words, overlap=False)
    assert "\n\n".join(chunks) == "\n\n".join(paragraphs)


@pytest.mark.parametrize("atom", [
    Block("table", "| one. two. | three. four. |\n|---|---|\n| five. six. | seven. eight. |"),
    Block("code", "```\nstep one. step two.\nstep three. step four.\n```"),
    Block("list", "- item one. item two.\n- item three. item four."),
    Block("list", "* item one. item two.\n* item three. item four."),
])
def test_no_overlap_taken_from_tables_code_or_lists(atom: Block) -> None:
    # (a heading never ends a chunk, so it cannot be an overlap source: see the heading tests)
    follower = Block("paragraph", "Plain prose follows here. It has two sentences.")
    budget = words(atom.text) + 5  # both cannot share a chunk, but a short carried fragment would fit
    chunks = pack_blocks([atom, follower], budget, words)
    assert chunks == [atom.text, follower.text]


def test_no_overlap_taken_from_an_ordered_list() -> None:
    blocks = [Block("list", "1. Take the pill daily. With food.\n2. Recheck levels. After three months."),
              Block("paragraph", "Final paragraph one two three. Final sentence four five six.")]
    chunks = pack_blocks(blocks, 15, words)
    assert len(chunks) == 2
    assert chunks[1] == blocks[1].text


def test_no_overlap_taken_from_a_list_with_a_lead_paragraph() -> None:
    lead_list = "Risk groups are:\n- older adults over sixty. They absorb less.\n- people on metformin. It lowers absorption."
    blocks = parse_blocks(lead_list + "\n\nNext paragraph starts here with words. And it has a second sentence too.")
    assert [b.kind for b in blocks] == ["list", "paragraph"]
    # budget 20: the list (18 words) and the paragraph (13) cannot share a chunk
    chunks = pack_blocks(blocks, 20, words, overlap=True)
    assert chunks[0] == lead_list
    assert not chunks[-1].startswith("It lowers absorption."), chunks


def test_overlap_inside_one_long_paragraph() -> None:
    sentences = [sentence(f"s{i}") for i in range(20)]  # 6 words each
    chunks = pack_blocks([Block("paragraph", " ".join(sentences))], 40, words)
    assert len(chunks) >= 3
    for prev, nxt in zip(chunks, chunks[1:]):
        assert nxt.startswith(split_sentences(prev)[-1]), (prev[-40:], nxt[:40])


def test_balanced_sizes_rather_than_full_chunks_and_a_small_remainder() -> None:
    blocks = [Block("paragraph", sentence(f"p{i}", 10)) for i in range(7)]  # 70 words, single-sentence blocks
    chunks = pack_blocks(blocks, 60, words)
    sizes = [words(c) for c in chunks]
    assert len(chunks) == 2  # as few chunks as plain greedy packing needs
    assert max(sizes) - min(sizes) <= 10, sizes  # greedy alone would give 60 + 10


def test_balancing_never_adds_chunks() -> None:
    for n in range(2, 15):
        blocks = [Block("paragraph", paragraph(f"p{i}", 2, 5)) for i in range(n)]
        greedy_min = -(-sum(words(b.text) for b in blocks) // 50)
        chunks = pack_blocks(blocks, 50, words, overlap=False)
        assert all(words(c) <= 50 for c in chunks)
        # 10-word blocks and a 50-word budget: greedy packs exactly 5 per chunk
        assert len(chunks) == greedy_min


def test_balanced_sizes_for_one_long_paragraph() -> None:
    sentences = [sentence(f"s{i}") for i in range(20)]  # 120 words
    chunks = pack_blocks([Block("paragraph", " ".join(sentences))], 40, words)
    sizes = [words(c) for c in chunks]
    assert max(sizes) - min(sizes) <= 12, sizes


def test_single_sentence_over_budget_is_kept_whole() -> None:
    long = sentence("x", 50)
    chunks = pack_blocks([Block("paragraph", f"Short one. {long} Short two.")], 20, words)
    assert sum(long in c for c in chunks) == 1


def test_a_heading_is_not_left_alone_when_its_body_fits_only_without_it() -> None:
    body = paragraph("b", 6)  # 36 words: fits the budget alone, so it is not cut into sentences up front
    chunks = pack_blocks([Block("heading", "## Heading", 2), Block("paragraph", body)], 36, words)
    assert "## Heading" not in chunks, chunks  # a heading never ends a chunk
    assert chunks[0].startswith("## Heading\n\n" + sentence("bs0")), chunks
