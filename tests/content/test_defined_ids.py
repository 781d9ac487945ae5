"""DefinedIds: a name meaning a failed registry entry is defined; only valid ids are ever suggested."""

from __future__ import annotations

from unitrag.content.defined_ids import DefinedIds, id_key
from unitrag.content.validate import did_you_mean


def test_a_name_meaning_a_failed_entry_is_defined_as_its_author_wrote_it():
    ids = DefinedIds(["iron"], ["Warranty", " lost_property "])
    assert "iron" in ids and "warranty" in ids and "Warranty" in ids and "lost-property" in ids
    assert "warranties" not in ids and "Iron" not in ids and 3 not in ids  # a valid id is matched exactly
    assert id_key("Lost_Property") == id_key("lost-property") == "lost-property"


def test_only_valid_ids_are_iterated_so_never_suggested():
    ids = DefinedIds(["iron"], ["Warranty"])
    assert list(ids) == ["iron"] and len(ids) == 1
    assert did_you_mean("warranty", ids) == "" and did_you_mean("irn", ids) == ": did you mean 'iron'?"


def test_empty_only_when_nothing_is_defined():
    assert DefinedIds([]).empty and not DefinedIds([], ["Warranty"]).empty


def test_an_id_with_a_word_left_out_is_told_the_one_id_that_holds_its_words():
    """A new team's <Cite id="prnp-shuttle-2025"/> was told to add the id, not that prnp-shuttle-timetable-2025 exists."""
    from unitrag.content.errors import nearest

    known = {"prnp-shuttle-timetable-2025", "prnp-fee-schedule-2025", "prnp-wilderness-permits"}
    assert nearest("prnp-shuttle-2025", known, 0.8) == "prnp-shuttle-timetable-2025"
    assert nearest("prnp-2025", known, 0.8) is None  # two ids hold its words: no guess
    assert nearest("shuttle", known, 0.8) is None  # one word is no id's slip
