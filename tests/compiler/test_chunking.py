"""Units → chunks: story, scene (pages), rule, document (sections), citation stripping."""

from __future__ import annotations

from pathlib import Path

import pytest

from unitrag.compiler.chunking import Chunk, chunk_content, chunk_unit, strip_citations
from unitrag.compiler.tokens import estimate_tokens
from unitrag.content.loader import ContentSet, LoadedUnit, parse_unit
from unitrag.content.models import Story


def unit(path: str, frontmatter: str, body: str) -> LoadedUnit:
    loaded, problems = parse_unit(Path(path), f"---\n{frontmatter.strip()}\n---\n{body}")
    assert not problems, problems
    assert loaded is not None and loaded.unit is not None
    loaded.rel_path = path.removeprefix("content/")  # what load_content sets
    return loaded


STORY = unit(
    "content/stories/zh-iron.md",
    """
kind: story
id: zh-iron
title: 铁与贫血
summary: 铁是造血必需的矿物质。缺铁会导致贫血。
lang: zh
access: clinician
topics: [iron]
citationIds: [who-iron]
""",
    "这是一段介绍文字，只放进提示词。<Cite id=\"who-iron\"/>\n",
)
STORIES = {"zh-iron": STORY.unit}


def scene(body: str, extra: str = "", sid: str = "zh-iron-roles") -> LoadedUnit:
    return unit(
        f"content/scenes/zh-iron/01-{sid}.md",
        f"""
kind: scene
id: {sid}
story: zh-iron
order: 3
title: 铁的作用
topics: [iron, anemia]
citationIds: [who-iron]
{extra}
""",
        body,
    )


def zh_para(tag: str, n: int) -> str:
    return "".join(f"{tag}第{i}句说明铁在血红蛋白中运输氧气。" for i in range(n))


def test_story_is_one_chunk_of_title_and_summary() -> None:
    [chunk] = chunk_unit(STORY, STORIES, 480)
    assert chunk.chunk_id == "zh-iron" and chunk.unit_id == "zh-iron" and chunk.kind == "story"
    assert chunk.story_id == "zh-iron" and chunk.page is None
    assert chunk.text_for_embedding == "铁与贫血\n铁是造血必需的矿物质。缺铁会导致贫血。"
    assert "介绍文字" not in chunk.text_for_embedding
    assert chunk.text_for_prompt.startswith(chunk.text_for_embedding)
    assert "这是一段介绍文字，只放进提示词。" in chunk.text_for_prompt
    assert (chunk.lang, chunk.access) == ("zh", "clinician")
    assert chunk.topics == ("iron",) and chunk.citation_ids == ("who-iron",)
    assert chunk.source_path == "stories/zh-iron.md"


def test_story_without_body_has_prompt_equal_to_embedding() -> None:
    story = unit("content/stories/en-b12.md", "kind: story\nid: en-b12\ntitle: B12\nsummary: It matters.\nlang: en\ntopics: [b12]", "")
    [chunk] = chunk_unit(story, {}, 480)
    assert chunk.text_for_prompt == chunk.text_for_embedding == "B12\nIt matters."
    assert chunk.access == "public"


def test_short_scene_is_one_chunk_inheriting_lang_and_access() -> None:
    [chunk] = chunk_unit(scene("铁是血红蛋白的组成部分。<Cite id=\"who-iron\"/>"), STORIES, 480)
    assert chunk.chunk_id == "zh-iron-roles" and chunk.page is None
    assert (chunk.lang, chunk.access) == ("zh", "clinician")
    assert chunk.story_id == "zh-iron" and chunk.scene_id == "zh-iron-roles"
    assert chunk.text_for_embedding == "铁与贫血 — 铁的作用\n铁是血红蛋白的组成部分。"
    assert chunk.extra == {"order": 3, "pages": 1}


def test_scene_own_lang_and_access_win() -> None:
    [chunk] = chunk_unit(scene("Iron carries oxygen.", "lang: en\naccess: public"), STORIES, 480)
    assert (chunk.lang, chunk.access) == ("en", "public")


def test_scene_with_author_page_breaks() -> None:
    body = "第一页的内容。\n\n<!-- page -->\n\n第二页的内容。<Cite id=\"who-iron\"/>\n<!-- page -->\n第三页。\n"
    chunks = chunk_unit(scene(body), STORIES, 480)
    assert [c.chunk_id for c in chunks] == ["zh-iron-roles#p1", "zh-iron-roles#p2", "zh-iron-roles#p3"]
    assert [c.page for c in chunks] == [1, 2, 3]
    assert [c.text_for_prompt for c in chunks] == ["第一页的内容。", "第二页的内容。<Cite id=\"who-iron\"/>", "第三页。"]
    assert chunks[1].text_for_embedding == "铁与贫血 — 铁的作用\n第二页的内容。"
    for c in chunks:
        assert (c.lang, c.access) == ("zh", "clinician")
        assert c.scene_id == "zh-iron-roles" and c.story_id == "zh-iron" and c.unit_id == "zh-iron-roles"
        assert c.extra == {"order": 3, "pages": 3}
        assert "<!--" not in c.text_for_prompt


@pytest.mark.parametrize("budget", [120, 200, 480])
def test_long_scene_without_breaks_is_paged_under_the_budget(budget: int) -> None:
    body = "\n\n".join(zh_para(f"段{i}", 6) for i in range(12))
    assert estimate_tokens(body) > 2 * budget
    chunks = chunk_unit(scene(body), STORIES, budget)
    assert len(chunks) >= 2
    assert [c.chunk_id for c in chunks] == [f"zh-iron-roles#p{n}" for n in range(1, len(chunks) + 1)]
    assert [c.page for c in chunks] == list(range(1, len(chunks) + 1))
    for c in chunks:
        assert estimate_tokens(c.text_for_embedding) <= budget
        assert c.extra["pages"] == len(chunks)
    for i in range(12):  # every paragraph's first sentence is somewhere
        assert any(f"段{i}第0句" in c.text_for_prompt for c in chunks)


def test_author_page_over_budget_is_packed_further() -> None:
    body = "短页。\n<!-- page -->\n" + "\n\n".join(zh_para(f"段{i}", 6) for i in range(6))
    chunks = chunk_unit(scene(body), STORIES, 150)
    assert len(chunks) >= 3
    assert chunks[0].text_for_prompt == "短页。"
    assert all(estimate_tokens(c.text_for_embedding) <= 150 for c in chunks)


def test_citation_tags_do_not_count_against_the_scene_budget() -> None:
    body = zh_para("a", 3) + "".join(f"<Cite id=\"citation-number-{i}\"/>" for i in range(40))
    assert estimate_tokens(body) > 200 >= estimate_tokens(strip_citations(body)) + estimate_tokens("铁与贫血 — 铁的作用")
    [chunk] = chunk_unit(scene(body), STORIES, 200)
    assert "<Cite" not in chunk.text_for_embedding and chunk.text_for_prompt.count("<Cite") == 40


RULE = unit(
    "content/rules/b12-low.md",
    """
kind: rule
id: b12-low
title: Low vitamin B12
lang: en
severity: urgent
topics: [vitamin-b12]
citationIds: [nih-b12]
trigger:
  marker: serum_b12
  comparison: "<"
  threshold: 200
  unit: pg/mL
  sex: female
""",
    "A level below 200 pg/mL suggests deficiency <Cite id=\"nih-b12\"/>. See a doctor.\n",
)


def test_rule_is_one_chunk_with_trigger_and_severity() -> None:
    [chunk] = chunk_unit(RULE, {}, 480)
    assert chunk.chunk_id == "b12-low" and chunk.kind == "rule"
    assert chunk.extra["severity"] == "urgent"
    assert chunk.extra["trigger"] == {"marker": "serum_b12", "comparison": "<", "threshold": 200.0, "unit": "pg/mL", "sex": "female"}
    assert chunk.text_for_embedding == "Low vitamin B12\nA level below 200 pg/mL suggests deficiency. See a doctor."
    assert chunk.text_for_prompt == "A level below 200 pg/mL suggests deficiency <Cite id=\"nih-b12\"/>. See a doctor."
    assert (chunk.lang, chunk.access) == ("en", "public")


def en_para(tag: str, n: int) -> str:
    return " ".join(f"The {tag} sentence number {i} explains iron absorption." for i in range(n))


def document(body: str, title: str = "Iron guide") -> LoadedUnit:
    return unit(
        "content/documents/iron-guide.md",
        f"kind: document\nid: iron-guide\ntitle: {title}\nlang: en\nsource: WHO 2020\ntopics: [iron]\ncitationIds: [who-iron]",
        body,
    )


def test_short_document_is_one_chunk() -> None:
    [chunk] = chunk_unit(document("## Intro\n\nShort text <Cite id=\"who-iron\"/>."), {}, 480)
    assert chunk.chunk_id == "iron-guide" and chunk.page is None
    assert chunk.text_for_embedding == "Iron guide\n## Intro\n\nShort text."
    assert chunk.extra == {"headings": [], "source": "WHO 2020"}


def test_document_sections_carry_their_heading_path() -> None:
    body = "\n\n".join([
        "## Absorption", en_para("abs", 8),
        "### Heme iron", en_para("heme", 8),
        "### Non-heme iron", en_para("nonheme", 8) + ' <Cite id="who-iron"/>',
        "## Deficiency", en_para("def", 8),
    ])
    chunks = chunk_unit(document(body), {}, 120)
    assert len(chunks) >= 3
    assert [c.chunk_id for c in chunks] == [f"iron-guide#s{n}" for n in range(1, len(chunks) + 1)]
    # a section over the budget (heading path included) spans several chunks, all under its path
    by_path: dict[tuple[str, ...], list[Chunk]] = {}
    for c in chunks:
        by_path.setdefault(tuple(c.extra["headings"]), []).append(c)
    heme = by_path[("Absorption", "Heme iron")]
    assert all(c.text_for_embedding.split("\n", 1)[0] == "Iron guide > Absorption > Heme iron" for c in heme)
    assert "### Heme iron\n\nThe heme sentence number 0 " in heme[0].text_for_embedding
    for i in range(8):
        assert any(f"The heme sentence number {i} " in c.text_for_embedding for c in heme), i
    nonheme = by_path[("Absorption", "Non-heme iron")]
    assert all("<Cite" not in c.text_for_embedding for c in chunks)
    assert all(c.text_for_embedding.startswith("Iron guide > Deficiency\n") for c in by_path[("Deficiency",)])
    for c in chunks:
        assert c.extra["source"] == "WHO 2020" and c.kind == "document"
        assert c.source_path == "documents/iron-guide.md"
    assert len({c.text_for_prompt for c in chunks}) == len(chunks)
    # the cited sentence stays in a chunk under its own section's path
    assert any('<Cite id="who-iron"/>' in c.text_for_prompt for c in nonheme), [c.extra["headings"] for c in chunks]


def test_document_chunks_fit_the_budget_including_their_heading_path() -> None:
    body = "\n\n".join([
        "## Absorption", en_para("abs", 8),
        "### Heme iron", en_para("heme", 8),
        "### Non-heme iron", en_para("nonheme", 8),
        "## Deficiency", en_para("def", 8),
    ])
    chunks = chunk_unit(document(body), {}, 120)
    sizes = [estimate_tokens(c.text_for_embedding) for c in chunks]
    assert all(size <= 120 for size in sizes), sizes


def test_strip_citations() -> None:
    text = 'Claim one <Cite id="a-b"/>. Claim two<Cite id="c"  />\n声明三。<Cite id="d"/>'
    assert strip_citations(text) == "Claim one. Claim two\n声明三。"
    assert strip_citations("no tags") == "no tags"


def test_chunk_content_is_sorted_by_unit_and_complete() -> None:
    content = ContentSet(root=Path("content"), units=[RULE, scene("第一页。\n<!-- page -->\n第二页。"), STORY])
    chunks = chunk_content(content, 480)
    assert [c.chunk_id for c in chunks] == ["b12-low", "zh-iron", "zh-iron-roles#p1", "zh-iron-roles#p2"]
    assert all(isinstance(c, Chunk) for c in chunks)
    assert chunk_content(content, 480) == chunks  # deterministic
    assert isinstance(STORIES["zh-iron"], Story)
