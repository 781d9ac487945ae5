"""A BEIR corpus as document units: valid content, ids that stay apart, text that stays plain."""

from __future__ import annotations

from pathlib import Path

from unitrag.compiler.chunking import chunk_content
from unitrag.content.validate import validate_content
from unitrag.eval.beir import BeirDoc
from unitrag.eval.beir_build import unit_id_for, write_units


def test_written_units_validate_and_map_back_to_document_ids(tmp_path: Path):
    corpus = [
        BeirDoc("MED-10", "Statins and mortality", "# Not a heading\nA trial.\n---\nMore text."),
        BeirDoc("med_10", "Same slug", "Another document whose id slugs like the first."),
        BeirDoc("42", "", "No title here, so the first words stand in for one in the unit title."),
        BeirDoc("empty", "", "   "),
        BeirDoc("zh-1", "维生素D", "维生素D帮助钙的吸收。"),
    ]
    doc_ids, skipped = write_units(corpus, tmp_path / "content")
    assert skipped == ["empty"]
    assert sorted(doc_ids.values()) == ["42", "MED-10", "med_10", "zh-1"]
    assert doc_ids["doc-med-10"] == "MED-10" and doc_ids["doc-42"] == "42"
    other = next(u for u, d in doc_ids.items() if d == "med_10")
    assert other.startswith("doc-med-10-") and len(other) == len("doc-med-10-") + 8  # kept apart by a hash

    content = validate_content(tmp_path / "content")
    assert content.problems == []
    units = {lu.id: lu.unit for lu in content.units}
    assert units["doc-42"].title.startswith("No title here, so the first words") and units["doc-42"].title.endswith("…")
    assert units["doc-zh-1"].lang == "zh" and units["doc-med-10"].lang == "en"
    chunks = [c for c in chunk_content(content, 500) if c.unit_id == "doc-med-10"]
    assert len(chunks) == 1  # the "#" line and the "---" line did not become headings
    assert "\\# Not a heading" in chunks[0].text_for_prompt and "More text." in chunks[0].text_for_prompt


def test_unit_ids_are_slugs_and_long_ids_are_hashed():
    assert unit_id_for("4983", {}) == "doc-4983"
    assert unit_id_for("Doc #7 (v2)", {}) == "doc-doc-7-v2"
    long_id = "x" * 200
    assert unit_id_for(long_id, {}) == "doc-" + "x" * 76 + "-94218caa"  # base cut at 80 characters, then the hash


def test_control_characters_of_a_corpus_become_spaces_so_its_units_validate(tmp_path: Path):
    corpus = [BeirDoc("4336849", "Malaria\x00 drugs", "with their function1\x964. Parasites (|\x94\x82 R | = 0.28)\r\nok")]
    write_units(corpus, tmp_path / "content")
    content = validate_content(tmp_path / "content")
    assert content.problems == []
    assert content.units[0].unit.title == "Malaria drugs" and "function1 4." in content.units[0].body
