"""The chunks of units that did not change since the last build: no re-chunking, no re-hashing.

Chunking and hashing are two thirds of planning a large tree (the 5,183-unit SciFact
tree: markdown parsing, packing, token estimates, canonical JSON per chunk). A unit's
chunks depend only on its file's bytes, where it lives, the chunk budget, the
chunker's and unitrag's versions and, for a scene, its story's id, title, language
and access; that is the key. Validation (every file and every cross-file check)
still runs over the whole tree before any of this is consulted.

JSON shards in the cache folder (``unitrag.content.cache_shards``): a save rewrites,
atomically, only the shards where an entry was added or dropped (a one-unit edit: one
small file, not the 20 MB of the SciFact tree); entries of units no longer in the tree
are dropped. A missing, unreadable or foreign shard is empty, never an error.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..version import __version__
from ..content.cache_shards import CacheShards
from ..content.loader import ContentSet, LoadedUnit
from ..content.models import Scene, Story
from .chunking import CHUNKER_VERSION, Chunk, chunk_unit
from .plan import HashedChunk, hash_chunks

#: Bump when what is cached (or how a key is made) changes.
PARSE_CACHE_VERSION = 2  # 2: keyed by the loader's file hash
FOLDER = "chunks"


class ParseCache:
    """``chunks(unit)``: the unit's hashed chunks, from the cache when its key is there."""

    def __init__(self, directory: Path | None, budget: int) -> None:
        self.settings = f"v{PARSE_CACHE_VERSION}|unitrag {__version__}|chunker {CHUNKER_VERSION}|budget {budget}"
        self._shards = CacheShards(directory / FOLDER if directory is not None else None, self.settings)
        self.budget = budget
        self._old: dict[str, list[dict[str, Any]]] = {
            key: entry for key, entry in self._shards.read().items() if isinstance(entry, list)}
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
        """Write the entries of this build where they differ from what was read (nothing else is kept)."""
        if self._new.keys() != self._old.keys():
            self._shards.save(self._new, set(self._new.keys() - self._old.keys()), "parse cache")

    def _key(self, lu: LoadedUnit, stories: dict[str, Story], root: Path) -> str | None:
        file_hash = lu.file_hash or _file_hash(root / lu.rel_path)
        if file_hash is None:
            return None  # changed or gone since it was read: chunk it, do not cache
        # not the display path: chunks do not depend on the working folder, and the CLI and the API share entries
        digest = hashlib.sha256(f"{file_hash}\0{lu.rel_path}".encode())
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
