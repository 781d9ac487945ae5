"""``cross-encoder:<name-or-path>``: a sentence-transformers ``CrossEncoder`` (ms-marco, bge-reranker, mxbai...).

No cross-encoder ships its weights in a package reachable here, so this provider needs
a local model folder, or a machine that can reach the Hugging Face hub for a hub name
such as ``cross-encoder/ms-marco-MiniLM-L-6-v2``. Scores go through the model's own
activation (sigmoid for the usual one-logit rerankers), so they are probabilities.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ...errors import UserError
from ..lazy import LazyModel
from ..model_folder import missing_folder
from .base import Reranker, first_line, passage


class CrossEncoderReranker(LazyModel, Reranker):
    provider = "cross-encoder"
    calibrated = True

    def __init__(self, model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2", *, batch_size: int = 32, max_length: int = 512, device: str | None = None) -> None:
        if not model:
            raise UserError("reranker cross-encoder: needs a model, e.g. cross-encoder:/path/to/ms-marco-MiniLM-L-6-v2")
        super().__init__(model)
        if missing_folder(model):
            raise UserError(f"reranker cross-encoder:{model}: no model folder at {model!r}; set `reranker` to an existing CrossEncoder folder")
        self.batch_size = batch_size
        self.max_length = max_length
        self.device = device or "cpu"


    def _open(self) -> Any:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise UserError(f"reranker cross-encoder:{self.model} needs sentence-transformers; install it with `pip install unitrag[st]`") from None
        try:
            return CrossEncoder(os.path.expanduser(self.model), device=self.device, max_length=self.max_length)
        except (OSError, ValueError, RuntimeError) as exc:
            raise UserError(
                f"reranker cross-encoder:{self.model} could not be loaded ({first_line(exc)}); "
                "set `reranker` to a local CrossEncoder folder, or allow access to the Hugging Face hub"
            ) from None

    def score(self, question: str, sources: Sequence[Any]) -> list[float]:
        if not sources:
            return []
        model = self._load()
        out = model.predict(
            [(question, passage(s)) for s in sources], batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True,
        )
        if getattr(out, "ndim", 1) != 1:
            raise UserError(f"reranker cross-encoder:{self.model} gives {out.shape[-1]} scores per pair; a reranker must give one (is it a classifier?)")
        return [float(x) for x in out]
