"""``flag:<name-or-path>``: a BAAI reranker through FlagEmbedding's ``FlagReranker`` (bge-reranker-base/large/v2-m3).

The raw logit is mapped through a sigmoid (``normalize=True``), so scores are in (0, 1)
and comparable across questions. Runs in float32 on CPU, fp16 on a GPU. Needs a local
model folder, or hub access for a name such as ``BAAI/bge-reranker-v2-m3``; the
LLM-based rerankers (bge-reranker-v2-gemma, -minicpm-layerwise) are not supported.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from ...errors import UserError
from ..lazy import LazyModel
from ..model_folder import missing_folder
from .base import Reranker, first_line, passage


class FlagReranker(LazyModel, Reranker):
    provider = "flag"
    calibrated = True

    def __init__(self, model: str = "BAAI/bge-reranker-v2-m3", *, batch_size: int = 32, max_length: int = 512) -> None:
        if not model:
            raise UserError("reranker flag: needs a model, e.g. flag:BAAI/bge-reranker-v2-m3 or flag:/path/to/bge-reranker-base")
        super().__init__(model)
        if missing_folder(model):
            raise UserError(f"reranker flag:{model}: no model folder at {model!r}; set `reranker` to an existing model folder")
        self.batch_size = batch_size
        self.max_length = max_length
        self._score_lock = threading.Lock()  # FlagEmbedding moves the model to its device on every call


    def _open(self) -> Any:
        try:
            import torch
            from FlagEmbedding import FlagReranker as _FlagReranker
        except ImportError:
            raise UserError(f"reranker flag:{self.model} needs the FlagEmbedding package; install it with `pip install unitrag[flag]`") from None
        device = "cuda:0" if torch.cuda.is_available() else "cpu"
        try:
            return _FlagReranker(
                os.path.expanduser(self.model), use_fp16=device != "cpu", devices=device,
                batch_size=self.batch_size, max_length=self.max_length, normalize=True,
            )
        except (OSError, ValueError, RuntimeError) as exc:
            raise UserError(
                f"reranker flag:{self.model} could not be loaded ({first_line(exc)}); "
                "set `reranker` to a local model folder, or allow access to the Hugging Face hub"
            ) from None

    def score(self, question: str, sources: Sequence[Any]) -> list[float]:
        if not sources:
            return []
        model = self._load()
        pairs = [(question, passage(s)) for s in sources]
        with self._score_lock:
            out = model.compute_score(pairs, batch_size=self.batch_size, max_length=self.max_length, normalize=True)
        values = out if isinstance(out, list) else [out]
        return [float(x) for x in values]
