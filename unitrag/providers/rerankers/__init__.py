"""Rerankers by name: ``provider[:model]`` strings select and configure them.

* ``none``: no second stage (the first-stage order stands).
* ``fusion``: the offline default candidate; a learned mix of the dense and BM25 scores with title and
  coverage matches, no model (see ``fusion.py``).
* ``cross-encoder:<name-or-path>``: a sentence-transformers CrossEncoder.
* ``flag:<name-or-path>``: a FlagEmbedding ``FlagReranker`` (bge-reranker family).
* ``litellm:<provider/model>``: Cohere, Jina, Voyage... rerank APIs through ``litellm.rerank``.

Providers are imported lazily, so choosing ``none`` or ``fusion`` never imports torch.
"""

from __future__ import annotations

from ..registry import ProviderRegistry
from .base import Reranker, passage

RERANKERS: ProviderRegistry[Reranker] = ProviderRegistry(
    "reranker",
    {
        "none": "unitrag.providers.rerankers.none:NoReranker",
        "fusion": "unitrag.providers.rerankers.fusion:FusionReranker",
        "cross-encoder": "unitrag.providers.rerankers.cross_encoder:CrossEncoderReranker",
        "flag": "unitrag.providers.rerankers.flag:FlagReranker",
        "litellm": "unitrag.providers.rerankers.litellm:LiteLLMReranker",
    },
    example="none, fusion, cross-encoder:/path/to/model, litellm:cohere/rerank-v3.5",
    needs_model=frozenset({"cross-encoder", "flag", "litellm"}),
)
register_reranker = RERANKERS.register
available_providers = RERANKERS.available
parse_spec = RERANKERS.parse
reranker_class = RERANKERS.resolve
load_reranker = RERANKERS.create

__all__ = ["RERANKERS", "Reranker", "available_providers", "load_reranker", "parse_spec", "passage", "register_reranker", "reranker_class"]
