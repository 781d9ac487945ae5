"""A build cache on disk: key → JSON entry, in shard files so that an edit rewrites one small file, not all.

The unit cache and the parse cache each hold an entry per unit of the tree (11 and 20 MB
of JSON for the 5,183-unit SciFact tree). Kept in one file, a one-unit edit rewrote all
of it on every build (~0.3–0.7 s under load). Here the keys are spread over ``SHARDS``
files by a hash of the key; a save rewrites (atomically: a temporary file renamed over
the old one) only the shards holding a key that was added, changed or dropped.

Each shard carries the cache's settings (versions, budget...); a shard written under
other settings, or missing, damaged or foreign, reads as empty: its units are worked
out again, never an error.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import zlib
from pathlib import Path
from typing import Any

SHARDS = 32


def shard_of(key: str) -> int:
    """Which shard holds ``key`` (stable across runs and machines)."""
    return zlib.crc32(key.encode("utf-8")) % SHARDS


class CacheShards:
    """``read()`` every entry once; ``save(entries, changed)`` rewrites the shards whose keys changed."""

    def __init__(self, folder: Path | None, settings: str) -> None:
        self.folder = folder
        self.settings = settings
        self._keys: list[set[str]] = [set() for _ in range(SHARDS)]  # what each shard held when read

    def read(self) -> dict[str, Any]:
        """Every entry of every shard written under these settings."""
        entries: dict[str, Any] = {}
        if self.folder is None:
            return entries
        for n in range(SHARDS):
            try:
                data = json.loads((self.folder / f"{n:02d}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(data, dict) or data.get("settings") != self.settings or not isinstance(data.get("entries"), dict):
                continue  # another version or setting: these units are worked out again
            found = {key: value for key, value in data["entries"].items() if shard_of(key) == n}
            self._keys[n] = set(found)
            entries.update(found)
        return entries

    def save(self, entries: dict[str, Any], changed: set[str], what: str) -> None:
        """Write ``entries`` (the whole cache now): the shards holding a key of ``changed`` or whose keys differ."""
        if self.folder is None:
            return
        shards: list[dict[str, Any]] = [{} for _ in range(SHARDS)]
        for key, value in entries.items():
            shards[shard_of(key)][key] = value
        dirty = {shard_of(key) for key in changed} | {n for n in range(SHARDS) if shards[n].keys() != self._keys[n]}
        for n in sorted(dirty):
            path = self.folder / f"{n:02d}.json"
            tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                tmp.write_text(json.dumps({"settings": self.settings, "entries": shards[n]}, ensure_ascii=False, default=str),
                               encoding="utf-8")
                os.replace(tmp, path)
            except (OSError, ValueError) as exc:  # a read-only folder: the next build works these units out again
                print(f"warning: {what} not saved ({exc})", file=sys.stderr)
                with contextlib.suppress(OSError):  # a folder under a file: unlink fails too (ENOTDIR, not ENOENT)
                    tmp.unlink(missing_ok=True)
                return
            self._keys[n] = set(shards[n])
