"""Each unit file's own reading, kept across runs: an unchanged file is not read, parsed or checked again.

Reading a large tree is mostly per-file work: the YAML frontmatter, the unit's schema,
every citation tag of the body (the 5,183-unit SciFact tree: ~3 s of a plan). None of
it depends on another file, so what a file gave (its unit, or none, and its own
problems) is kept, keyed by the SHA-256 of its bytes and the settings that shape it:
this cache's version, unitrag's, the source of this package (the parser and its
messages), pydantic's and PyYAML's (their messages are what an author reads). The
checks between files (duplicate ids, topics, citations, stories, scene order) are not
cached: they run every time over every unit, from the cached forms. The size limit
is checked from the file's stat on every run, before the cache is asked.

Whether a file changed is told by its stat (size, mtime, ctime, inode) without reading
it, unless it was modified less than ``RACY_NS`` before that stat was taken: an edit in
the same timestamp tick could leave the stat as it was, so such a file is read and
hashed again (git's racy-clean rule). A stat that differs but bytes that do not (a
``touch``, a checkout) reuse the entry after one read.

JSON shards in the cache folder (``cache_shards``: an edit rewrites one small file);
entries of files no longer in the tree are dropped. A missing, damaged or foreign shard
is empty, never an error.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pydantic
import yaml

from ..version import __version__
from .cache_shards import CacheShards
from .problems import Problem

#: Bump when what is cached, or how, changes (the package's source is in the key anyway).
UNIT_CACHE_VERSION = 1
FOLDER = "units"
#: A file modified this close to when its stat was taken is read again next time (racy stat).
RACY_NS = 2_000_000_000


class _NotPlain(ValueError):
    """A frontmatter value JSON cannot carry exactly (a set, bytes, a non-string key): that file is not cached."""


@dataclass(frozen=True)
class CachedFile:
    """What one file gave on its own, as stored: the unit's fields (or None) and its own problems, without a path."""

    sha: str
    unit: dict[str, Any] | None
    problems: list[list[Any]]


def settings() -> str:
    """The key part shared by every entry: versions and the parser's own source."""
    source = hashlib.sha256()
    for module in sorted(Path(__file__).parent.rglob("*.py")):  # content.text folds and tokenizes what it parses
        source.update(module.read_bytes())
    return (f"v{UNIT_CACHE_VERSION}|unitrag {__version__}|pydantic {pydantic.VERSION}|pyyaml {yaml.__version__}"
            f"|source {source.hexdigest()[:16]}")


class UnitCache:
    """``by_stat``/``by_hash`` give a file's cached reading; ``put`` records a fresh one; ``save`` writes them."""

    def __init__(self, directory: Path | None) -> None:
        self._shards = CacheShards(directory / FOLDER if directory is not None else None, settings())
        self._old: dict[str, dict[str, Any]] = {
            rel: entry for rel, entry in self._shards.read().items() if _well_formed(entry)}  # others: read again
        self._new: dict[str, dict[str, Any]] = {}
        self._changed: set[str] = set()  # files recorded anew (or dropped for good) this run
        self.stat_hits = 0  # not read at all
        self.hash_hits = 0  # read and hashed: same bytes
        self.misses = 0  # read, parsed and checked

    def by_stat(self, rel: str, stat: os.stat_result | None) -> CachedFile | None:
        """The entry of ``rel`` when its stat is the recorded one and was not racy when recorded."""
        entry = self._old.get(rel)
        if entry is None or stat is None or entry.get("stat") != _signature(stat):
            return None
        if stat.st_mtime_ns > entry["seen"] - RACY_NS:
            return None
        self.stat_hits += 1
        self._new[rel] = entry
        return CachedFile(entry["sha"], entry.get("unit"), entry["problems"])

    def by_hash(self, rel: str, stat: os.stat_result | None, sha: str) -> CachedFile | None:
        """The entry of ``rel`` when its bytes hash to what was recorded; its stat is recorded anew."""
        entry = self._old.get(rel)
        if entry is None or entry.get("sha") != sha:
            return None
        self.hash_hits += 1
        self._record(rel, stat, sha, entry.get("unit"), entry["problems"])
        return CachedFile(entry["sha"], entry.get("unit"), entry["problems"])

    def put(self, rel: str, stat: os.stat_result | None, sha: str, unit: dict[str, Any] | None,
            problems: list[Problem]) -> None:
        """Record a file read this run (a unit whose fields JSON cannot carry exactly is not recorded)."""
        self.misses += 1
        try:
            stored = None if unit is None else _with_plain_meta(unit)
        except _NotPlain:
            self._changed.add(rel)  # its old entry, if any, is dropped
            return
        self._record(rel, stat, sha, stored, [[p.line, p.field, p.message] for p in problems])

    def save(self) -> None:
        """Write this run's entries where they differ from what was read (a file gone drops its entry)."""
        if self._changed or self._new.keys() != self._old.keys():
            self._shards.save(self._new, self._changed, "unit cache")

    def _record(self, rel: str, stat: os.stat_result | None, sha: str, unit: dict[str, Any] | None,
                problems: list[list[Any]]) -> None:
        self._changed.add(rel)
        self._new[rel] = {"stat": _signature(stat) if stat is not None else None, "seen": time.time_ns(), "sha": sha,
                          "unit": unit, "problems": problems}


def _with_plain_meta(unit: dict[str, Any]) -> dict[str, Any]:
    """``unit`` with its frontmatter as JSON; ``dated`` when dates had to be tagged (revived on the way back)."""
    meta = plain_meta(unit["meta"])
    return {**unit, "meta": meta, "dated": meta != unit["meta"]}


def _signature(stat: os.stat_result) -> list[int]:
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def _well_formed(entry: Any) -> bool:
    """An entry this code wrote (a hand-edited or truncated one is ignored, and that file read again)."""
    return (isinstance(entry, dict) and isinstance(entry.get("seen"), int) and isinstance(entry.get("sha"), str)
            and isinstance(entry.get("problems"), list) and all(isinstance(p, list) and len(p) == 3 for p in entry["problems"])
            and (entry.get("unit") is None or isinstance(entry["unit"], dict)))


_DATE, _DATETIME = "$date", "$datetime"


def plain_meta(value: Any) -> Any:
    """Frontmatter as JSON: dates tagged (``{"$date": "2024-05-01"}``); ``_NotPlain`` for what JSON cannot carry."""
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value) or _DATE in value or _DATETIME in value:
            raise _NotPlain("a mapping JSON cannot carry as it is")
        return {k: plain_meta(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_meta(v) for v in value]
    if isinstance(value, datetime):
        return {_DATETIME: value.isoformat()}
    if isinstance(value, date):
        return {_DATE: value.isoformat()}
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise _NotPlain(f"a {type(value).__name__} value")


def revived_meta(value: Any) -> Any:
    """The frontmatter ``plain_meta`` stored, dates and all."""
    if isinstance(value, dict):
        if len(value) == 1 and _DATE in value:
            return date.fromisoformat(value[_DATE])
        if len(value) == 1 and _DATETIME in value:
            return datetime.fromisoformat(value[_DATETIME])
        return {k: revived_meta(v) for k, v in value.items()}
    if isinstance(value, list):
        return [revived_meta(v) for v in value]
    return value
