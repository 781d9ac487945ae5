"""parse_blocks / split_sentences / split_pages: the atoms chunk boundaries fall between."""

from __future__ import annotations

from unitrag.compiler.blocks import Block, parse_blocks, split_pages, split_sentences

TABLE = "| marker | low | high |\n|---|---|---|\n| B12 | 200 | 900 |\n| folate | 3 | 17 |\n| ferritin | 15 | 150 |"
CODE = "```python\nx = 1\n\n\ny = 2  # a blank line inside the fence\n```"


def kinds(blocks: list[Block]) -> list[str]:
    return [b.kind for b in blocks]


def test_table_is_one_block_with_its_exact_text() -> None:
    blocks = parse_blocks(f"Before the table.\n\n{TABLE}\n\nAfter the table.")
    assert kinds(blocks) == ["paragraph", "table", "paragraph"]
    assert blocks[1].text == TABLE
    assert not blocks[1].splittable


def test_fenced_code_block_with_blank_lines_is_one_block() -> None:
    blocks = parse_blocks(f"Intro.\n\n{CODE}\n\nOutro.")
    assert kinds(blocks) == ["paragraph", "code", "paragraph"]
    assert blocks[1].text == CODE
    assert not blocks[1].splittable


def test_indented_code_block_is_code() -> None:
    blocks = parse_blocks("Intro.\n\n    a = 1\n    b = 2\n\nOutro.")
    assert kinds(blocks) == ["paragraph", "code", "paragraph"]
    assert "a = 1" in blocks[1].text and "b = 2" in blocks[1].text


def test_loose_list_and_nested_items_are_one_block() -> None:
    md = "Para one.\n\n- first item\n\n- second item\n  continued line\n  - nested item\n\n- third item\n\nPara two."
    blocks = parse_blocks(md)
    assert kinds(blocks) == ["paragraph", "list", "paragraph"]
    for part in ("first item", "continued line", "nested item", "third item"):
        assert part in blocks[1].text
    assert not blocks[1].splittable


def test_ordered_list_is_one_block() -> None:
    blocks = parse_blocks("1. Take it daily.\n2. Recheck after three months.\n3. Stop if advised.")
    assert kinds(blocks) == ["list"]
    assert blocks[0].text.count("\n") == 2


def test_paragraph_ending_in_colon_travels_with_the_list() -> None:
    md = "Intro sentence.\n\nPeople at risk include:\n\n- older adults\n- vegans\n\nAfter."
    blocks = parse_blocks(md)
    assert kinds(blocks) == ["paragraph", "list", "paragraph"]
    assert blocks[1].text.startswith("People at risk include:")
    assert "- older adults" in blocks[1].text and "- vegans" in blocks[1].text
    assert blocks[0].text == "Intro sentence."


def test_paragraph_ending_in_fullwidth_colon_travels_with_the_list() -> None:
    md = "高危人群包括：\n\n- 老年人\n- 素食者\n\n其他内容。"
    blocks = parse_blocks(md)
    assert kinds(blocks) == ["list", "paragraph"]
    assert blocks[0].text.startswith("高危人群包括：")
    assert "- 素食者" in blocks[0].text


def test_list_directly_under_a_colon_line_is_attached() -> None:
    blocks = parse_blocks("Foods:\n- eggs\n- milk")
    assert kinds(blocks) == ["list"]
    assert blocks[0].text == "Foods:\n- eggs\n- milk"


def test_paragraph_without_colon_is_not_attached() -> None:
    blocks = parse_blocks("A plain sentence.\n\n- one\n- two")
    assert kinds(blocks) == ["paragraph", "list"]
    # a colon before a table or a paragraph attaches nothing
    blocks = parse_blocks(f"The values:\n\n{TABLE}")
    assert kinds(blocks) == ["paragraph", "table"]


def test_headings_have_levels_and_quotes_are_blocks() -> None:
    blocks = parse_blocks("# Top\n\n## Second\n\nText.\n\n### Third\n\n> a quote\n> more")
    assert [(b.kind, b.level) for b in blocks] == [
        ("heading", 1), ("heading", 2), ("paragraph", 0), ("heading", 3), ("quote", 0),
    ]
    assert blocks[4].text == "> a quote\n> more"


def test_only_paragraphs_are_splittable() -> None:
    assert Block("paragraph", "x").splittable
    for kind in ("heading", "list", "table", "code", "quote", "other"):
        assert not Block(kind, "x").splittable


def test_blocks_keep_source_text_and_order() -> None:
    md = "# T\n\nFirst **bold** para\nwrapped.\n\n" + TABLE + "\n\n" + CODE + "\n\nLast."
    blocks = parse_blocks(md)
    assert blocks[1].text == "First **bold** para\nwrapped."
    joined = "\n\n".join(b.text for b in blocks)
    assert joined == md


def test_split_sentences_english() -> None:
    text = "The dose is 2.5 mg a day. Take it with food! Does it work? Yes; mostly: trials agree."
    assert split_sentences(text) == [
        "The dose is 2.5 mg a day.", "Take it with food!", "Does it work?", "Yes;", "mostly:", "trials agree.",
    ]


def test_split_sentences_does_not_split_decimals_or_versions() -> None:
    for text in ("Levels of 2.5 to 3.75 nmol/L are low.", "Use version 1.2.3 here.", "It costs $4.99 today."):
        assert split_sentences(text) == [text]


def test_split_sentences_chinese_without_spaces() -> None:
    text = "维生素B12很重要。它帮助造血！你知道吗？是的；缺乏会导致贫血"
    assert split_sentences(text) == ["维生素B12很重要。", "它帮助造血！", "你知道吗？", "是的；", "缺乏会导致贫血"]


def test_split_sentences_mixed_and_wrapped() -> None:
    text = "铁的吸收率约为2.5%。Iron from meat is absorbed well.\nPlant iron is not. 茶会抑制吸收。"
    sentences = split_sentences(text)
    assert sentences == ["铁的吸收率约为2.5%。", "Iron from meat is absorbed well.", "Plant iron is not.", "茶会抑制吸收。"]
    assert split_sentences("") == []
    assert split_sentences("   ") == []


def test_split_pages_on_page_comments() -> None:
    md = "Page one.\n<!-- page -->\nPage two.\n\n  <!--page-->  \n\nPage three."
    assert split_pages(md) == ["Page one.", "Page two.", "Page three."]


def test_split_pages_drops_empty_pages_and_ignores_inline_comments() -> None:
    assert split_pages("<!-- page -->\nA\n<!-- page -->\n\n<!-- page -->\nB\n<!-- page -->") == ["A", "B"]
    assert split_pages("A <!-- page --> B") == ["A <!-- page --> B"]
    assert split_pages("no breaks here") == ["no breaks here"]
    assert split_pages("<!-- pages -->\nX") == ["<!-- pages -->\nX"]
