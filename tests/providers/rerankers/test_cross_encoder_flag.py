"""cross-encoder: and flag: providers on a local folder (fresh head: plumbing only, scores mean nothing)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from unitrag.errors import UserError
from unitrag.providers.rerankers import load_reranker
from unitrag.providers.rerankers.cross_encoder import CrossEncoderReranker
from unitrag.providers.rerankers.flag import FlagReranker

QUESTION = "Where is the cat sleeping?"
PASSAGES = ["The cat is sleeping on the sofa.", "Quarterly tax returns are due in March.", "维生素D缺乏会导致骨质疏松。"]


@dataclass
class FakeSource:
    title: str
    text: str
    scores: dict[str, float] = field(default_factory=dict)


@pytest.fixture(scope="module")
def cross_encoder(tiny_cross_encoder: Path) -> CrossEncoderReranker:
    reranker = load_reranker(f"cross-encoder:{tiny_cross_encoder}")
    assert isinstance(reranker, CrossEncoderReranker)
    return reranker


def test_cross_encoder_gives_one_float_per_source_in_input_order(cross_encoder: CrossEncoderReranker, tiny_cross_encoder: Path) -> None:
    scores = cross_encoder.score(QUESTION, PASSAGES)
    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
    assert all(0.0 < s < 1.0 for s in scores)  # the model's sigmoid
    assert cross_encoder.score(QUESTION, PASSAGES[::-1]) == pytest.approx(scores[::-1], abs=1e-6)
    assert cross_encoder.score(QUESTION, []) == []
    assert cross_encoder.id == f"cross-encoder:{tiny_cross_encoder}" and cross_encoder.calibrated


def test_cross_encoder_reads_title_and_text_of_source_objects(cross_encoder: CrossEncoderReranker) -> None:
    sources = [FakeSource("Cats", 'The cat is sleeping on the sofa. <Cite id="c1"/>'), FakeSource("Tax", "Returns are due.")]
    from_objects = cross_encoder.score(QUESTION, sources)
    from_strings = cross_encoder.score(QUESTION, ["Cats\nThe cat is sleeping on the sofa. ", "Tax\nReturns are due."])
    assert from_objects == pytest.approx(from_strings, abs=1e-6)


def test_flag_reranker_scores_the_same_model_the_same_way(cross_encoder: CrossEncoderReranker, tiny_cross_encoder: Path) -> None:
    flag = load_reranker(f"flag:{tiny_cross_encoder}")
    assert isinstance(flag, FlagReranker) and flag.id == f"flag:{tiny_cross_encoder}"
    scores = flag.score(QUESTION, PASSAGES)
    assert len(scores) == 3 and all(isinstance(s, float) and 0.0 < s < 1.0 for s in scores)
    # same weights, same one-logit head, both through a sigmoid: the two providers must agree
    assert scores == pytest.approx(cross_encoder.score(QUESTION, PASSAGES), abs=1e-4)
    assert flag.score(QUESTION, PASSAGES[:1]) == pytest.approx(scores[:1], abs=1e-4)  # a single pair too
    assert flag.score(QUESTION, []) == []


@pytest.mark.parametrize("provider", ["cross-encoder", "flag"])
def test_a_missing_local_folder_is_a_user_error(provider: str, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no model folder"):
        load_reranker(f"{provider}:{tmp_path / 'nope'}")
    with pytest.raises(UserError, match="needs a model"):
        load_reranker(f"{provider}:")


def test_a_folder_that_is_not_a_model_is_a_user_error(tmp_path: Path) -> None:
    reranker = load_reranker(f"cross-encoder:{tmp_path}")
    with pytest.raises(UserError, match="could not be loaded"):
        reranker.score(QUESTION, PASSAGES)
