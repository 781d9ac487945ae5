"""Two hashes per chunk: one for what is embedded, one for everything else stored.

``content_hash`` changes exactly when the embedding would change (the embedded
text or the chunker); ``meta_hash`` changes when anything else in the row does
(topics, citations, access, prompt text, ...). A chunk whose ``content_hash`` is
the same but ``meta_hash`` differs is updated without embedding anything.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from .chunking import CHUNKER_VERSION, Chunk

_EMBEDDED = {"text_for_embedding"}


def content_hash(chunk: Chunk) -> str:
    return _sha256(f"chunker:{CHUNKER_VERSION}\x00{chunk.text_for_embedding}")


def meta_hash(chunk: Chunk) -> str:
    return _sha256(canonical_json({k: v for k, v in asdict(chunk).items() if k not in _EMBEDDED}))


def canonical_json(value: Any) -> str:
    """Stable JSON: sorted keys, no whitespace, tuples as lists, non-ASCII kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest(value: Any) -> str:
    """Hash of any JSON-able value (registries, prompts) for change detection."""
    return _sha256(canonical_json(value))
