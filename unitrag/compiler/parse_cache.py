"""The chunks of units that did not change since the last build: no re-chunking, no re-hashing.

Chunking and hashing are two thirds of planning a large tree (the 5,183-unit SciFact
tree: markdown parsing, packing, token estimates, canonical JSON per chunk). A unit's
chunks depend only on its file's bytes, where it lives, the chunk budget, the
chunker's and unitrag's versions and, for a scene, its story's id, title, language
and access; that is the key. Validation (every file and every cross-file check)
still runs over the whole tree before any of this is consulted.

One JSON file in the cache folder, rewritten (atomically) only when an entry was
added or dropped; entries of units no longer in the tree are dropped. A missing,
unreadable or foreign file is an empty cache, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from ..content.loader import ContentSet, LoadedUnit
from ..content.models import Scene, Story
from .chunking import CHUNKER_VERSION, Chunk, chunk_unit
from .plan import HashedChunk, hash_chunks

#: Bump when what is cached (or how a key is made) changes.
PARSE_CACHE_VERSION = 2  # 2: keyed by the loader's file hash
FILE_NAME = "chunks.json"


class ParseCache:
    """``chunks(unit)``: the unit's hashed chunks, from the cache when its key is there."""

    def __init__(self, directory: Path | None, budget: int) -> None:
        self.path = directory / FILE_NAME if directory is not None else None
        self.settings = f"v{PARSE_CACHE_VERSION}|unitrag {__version__}|chunker {CHUNKER_VERSION}|budget {budget}"
        self.budget = budget
        self._old: dict[str, list[dict[str, Any]]] = self._read()
        self._new: dict[str, list[dict[str, Any]]] = {}
        self.hits = 0
        self.misses = 0

    def chunks(self, lu: LoadedUnit, stories: dict[str, Story], root: Path) -> list[HashedChunk]:
        key = self._key(lu, stories, root)
        cached = self._old.get(key) if key is not None else None
        if cached is not None:
            self.hits += 1
            hashed = [_from_json(entry) for entry in cached]
        else:
            self.misses += 1
            hashed = hash_chunks(chunk_unit(lu, stories, self.budget))
        if key is not None:
            self._new[key] = cached if cached is not None else [_to_json(h) for h in hashed]
        return hashed

    def save(self) -> None:
        """Write the entries of this build when they differ from what was read (nothing else is kept)."""
        if self.path is None or self._new.keys() == self._old.keys():
            return
        tmp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps({"settings": self.settings, "entries": self._new}, ensure_ascii=False, default=str)  # as hashed
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only cache folder: the next build chunks again, nothing worse
            print(f"warning: parse cache not saved ({exc})", file=sys.stderr)
            tmp.unlink(missing_ok=True)

    def _read(self) -> dict[str, list[dict[str, Any]]]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("settings") != self.settings or not isinstance(data.get("entries"), dict):
            return {}  # another version, budget or chunker: every unit is chunked again
        return data["entries"]

    def _key(self, lu: LoadedUnit, stories: dict[str, Story], root: Path) -> str | None:
        file_hash = lu.file_hash or _file_hash(root / lu.rel_path)
        if file_hash is None:
            return None  # changed or gone since it was read: chunk it, do not cache
        digest = hashlib.sha256(f"{file_hash}\0{lu.rel_path}\0{lu.path}".encode())
        if isinstance(lu.unit, Scene):  # a scene's chunks carry its story's title, language and access
            story = stories.get(lu.unit.story)
            if story is not None:
                digest.update(json.dumps([story.id, story.title, story.lang, story.access], ensure_ascii=False).encode())
        return digest.hexdigest()


def _file_hash(path: Path) -> str | None:
    """For a unit the loader did not hash (made by hand): its file's hash now."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def cached_chunks(
    content: ContentSet, budget: int, directory: Path | None, *, save: bool = True,
) -> tuple[list[HashedChunk], ParseCache]:
    """Every hashed chunk of a validated content set, in ``chunk_content``'s order; the cache saved after (``save``)."""
    cache = ParseCache(directory, budget)
    stories = {lu.id: lu.unit for lu in content.units if isinstance(lu.unit, Story)}
    hashed: list[HashedChunk] = []
    for lu in sorted(content.units, key=lambda u: u.id):
        hashed.extend(cache.chunks(lu, stories, content.root))
    if save:
        cache.save()
    return hashed, cache


def _to_json(h: HashedChunk) -> dict[str, Any]:
    c = h.chunk
    return {
        "chunk_id": c.chunk_id, "unit_id": c.unit_id, "kind": c.kind, "title": c.title, "lang": c.lang,
        "access": c.access, "text_for_embedding": c.text_for_embedding, "text_for_prompt": c.text_for_prompt,
        "topics": list(c.topics), "citation_ids": list(c.citation_ids), "story_id": c.story_id, "scene_id": c.scene_id,
        "page": c.page, "source_path": c.source_path, "extra": c.extra, "content_hash": h.content_hash,
        "meta_hash": h.meta_hash,
    }


def _from_json(entry: dict[str, Any]) -> HashedChunk:
    fields = dict(entry)
    content_hash, meta_hash = fields.pop("content_hash"), fields.pop("meta_hash")
    fields["topics"], fields["citation_ids"] = tuple(fields["topics"]), tuple(fields["citation_ids"])
    return HashedChunk(Chunk(**fields), content_hash, meta_hash)
