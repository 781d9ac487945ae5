"""BGE-family models through FlagEmbedding, for the pooling and query instructions BAAI trained them with.

Spec: ``flag:<name-or-path>[?pooling=cls|mean]``.

* ``<name-or-path>`` is a local model folder or a hub name (hub names need network).
  A name containing ``bge-m3`` loads ``BGEM3FlagModel`` (its dense vectors only);
  anything else loads ``FlagModel``.
* ``pooling`` picks how token vectors become one vector. The default, ``cls``, is
  what BGE models were trained with; ``mean`` fits sentence-transformers style
  models such as all-MiniLM-L6-v2. It is part of the spec, and so of the embedder
  id, because it changes every vector.
* English BGE models (``bge`` and an ``en`` name part, e.g. ``bge-small-en-v1.5``)
  get BAAI's query instruction; passages never get one.

Runs in float32 on CPU (fp16 only on a GPU, where it is fast and accurate enough).
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

from ...errors import UserError
from ..lazy import LazyModel
from ..model_folder import missing_folder
from .base import Embedder, normalise

BGE_EN_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
POOLING_METHODS = ("cls", "mean")


def parse_model(model: str) -> tuple[str, dict[str, str]]:
    """``"<name-or-path>?pooling=mean"`` → (name-or-path, {"pooling": "mean"}), checking the options."""
    name, _, query = model.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True))
    unknown = sorted(set(options) - {"pooling"})
    if unknown:
        raise UserError(f"embedder flag:{model}: unknown option {', '.join(unknown)}; the only option is ?pooling=cls|mean")
    if options.get("pooling", "cls") not in POOLING_METHODS:
        raise UserError(f"embedder flag:{model}: pooling must be one of {', '.join(POOLING_METHODS)} (e.g. flag:{name}?pooling=mean)")
    if not name:
        raise UserError("embedder flag: needs a model, e.g. flag:BAAI/bge-small-en-v1.5 or flag:/path/to/model?pooling=mean")
    return name, options


def query_instruction(name: str) -> str | None:
    """BAAI's retrieval instruction for English BGE models; other models take queries as they are."""
    base = os.path.basename(name.rstrip("/\\")).lower()
    if "bge" in base and "bge-m3" not in base and re.search(r"(^|[-_.])en([-_.]|$)", base):
        return BGE_EN_QUERY_INSTRUCTION
    return None


class FlagEmbedder(LazyModel, Embedder):
    provider = "flag"
    max_tokens = 512

    def __init__(self, model: str = "BAAI/bge-small-en-v1.5", *, batch_size: int = 32) -> None:
        super().__init__(model)
        self.path, options = parse_model(model)
        self.pooling = options.get("pooling", "cls")
        self.is_m3 = "bge-m3" in self.path.lower()
        self.instruction = query_instruction(self.path)
        if missing_folder(self.path):
            raise UserError(f"embedder flag:{model}: no model folder at {self.path!r}; set `embedder` to an existing model folder")
        self.batch_size = batch_size
        self._dim: int | None = None
        self._encode_lock = threading.Lock()  # FlagEmbedding moves the model to its device on every call


    def _open(self) -> Any:
        try:
            import torch
            from FlagEmbedding import BGEM3FlagModel, FlagModel
        except ImportError:
            raise UserError(f"embedder flag:{self.model} needs the FlagEmbedding package; install it with `pip install unitrag[flag]`") from None
        device = "cuda:0" if torch.cuda.is_available() else "cpu"
        common: dict[str, Any] = dict(
            normalize_embeddings=True,
            use_fp16=device != "cpu",
            devices=device,  # one device: no multi-process pool
            pooling_method=self.pooling,
            batch_size=self.batch_size,
            query_max_length=self.max_tokens,
            passage_max_length=self.max_tokens,
        )
        try:
            if self.is_m3:
                return BGEM3FlagModel(os.path.expanduser(self.path), **common)
            return FlagModel(os.path.expanduser(self.path), query_instruction_for_retrieval=self.instruction, **common)
        except (OSError, ValueError, RuntimeError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise UserError(
                f"embedder flag:{self.model} could not be loaded ({reason}); "
                "set `embedder` to a local model folder, or allow access to the Hugging Face hub"
            ) from None

    @property
    def dim(self) -> int:
        if self._dim is None:  # BGEM3FlagModel wraps its transformer, so ask the output, not a config
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encode = model.encode_queries if query else model.encode_corpus
        kwargs: dict[str, Any] = dict(return_dense=True, return_sparse=False, return_colbert_vecs=False) if self.is_m3 else {}
        with self._encode_lock:
            out = encode(list(texts), batch_size=self.batch_size, **kwargs)
        vectors = normalise(out["dense_vecs"] if self.is_m3 else out)
        self._dim = int(vectors.shape[1])
        return vectors
