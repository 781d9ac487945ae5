"""Cross-language cosine corrections refitted by calibrate: a small set moves them little, and never to a stray default."""

from __future__ import annotations

from unitrag.rag.calibrate.calibration import MIN_PER_PAIR, PRIOR_QUESTIONS, fit_lang_offsets, shrunk
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.search.crosslingual import DEFAULT_LANG_OFFSETS


def test_a_few_questions_move_the_correction_a_little_and_many_move_it_far() -> None:
    few, many = shrunk(0.0, 0.09, MIN_PER_PAIR), shrunk(0.0, 0.09, 30 * PRIOR_QUESTIONS)
    assert 0.07 < few < 0.09  # six questions saying "no gap" barely move the embedder's measured gap
    assert many < 0.005
    assert shrunk(0.09, 0.09, 7) == 0.09


def test_a_pair_without_enough_questions_keeps_the_correction_it_ran_with(built_sample) -> None:
    """Before: it fell back to DEFAULT_LANG_OFFSETS (0.03), not the default gate's (0.089) it had been using."""
    workspace, _ = built_sample
    kb = KnowledgeBase.open(workspace.artifact)
    prior = {"en>zh": 0.0888, "zh>en": 0.0808}
    assert prior != DEFAULT_LANG_OFFSETS
    assert fit_lang_offsets(kb, [], prior) == prior
    assert fit_lang_offsets(kb, []) == DEFAULT_LANG_OFFSETS
