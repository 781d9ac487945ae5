"""jieba with its dictionary as a 7 MB file of hashes instead of a 62 MB Python dict: what a query needs.

jieba segments with one dictionary, ``FREQ``: every word and every prefix of a word
(prefixes with frequency 0), about half a million strings. Loaded, that is a Python dict
of ~62 MB that takes 0.7-1.2 s to unmarshal, holding the GIL: most of what opening a
knowledge base with Chinese costs in time and memory. A question needs a few hundred
lookups in it, not the dict.

So the runtime segments with the same jieba code over a stand-in for ``FREQ``: a sorted
table of 64-bit BLAKE2b hashes of the keys, their frequencies and bucket offsets, derived once
from jieba's own dictionary into one file under the user cache and memory-mapped from there
(read-only: pages are read as lookups touch them, and shared by every process on the machine).
The segmentation is the same (the same keys, the same frequencies, the same algorithm); only a
hash collision could differ, at odds of about 3e-14 per lookup. A lookup not remembered costs
about a microsecond instead of a dict's tens of nanoseconds, which is why the build, which
segments every chunk, keeps the full dict.
"""

from __future__ import annotations

import hashlib
import logging
import mmap
import os
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ...user_cache import cache_root, write_atomically

#: Bumped when the table's layout or hash changes: it is part of the cached file's name.
TABLE_VERSION = 2
#: The table file starts with the number of keys and jieba's total frequency (int64 each), then the sorted
#: hashes (uint64), their frequencies (uint32) and the buckets' start offsets (uint32), in native byte order.
_HEADER = struct.Struct("=qq")


def key_hash(word: str) -> int:
    """The stable 64-bit hash a key is found by (Python's own ``hash`` changes per process)."""
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")


#: Lookups remembered (a key's frequency, or -1 for no key): a text is looked up several times per
#: segmentation, and the reranker and the extractive answer segment the same chunks again and again.
MEMO_SIZE = 1 << 17
#: Buckets of the sorted hashes by their top bits: 2^18 for ~500k keys.
BUCKET_BITS = 18


class HashedFreq:
    """The part of the ``dict`` interface jieba's segmentation reads: ``in``, ``[]`` and ``get``.

    Over a table (``table_bytes``; a memory map of the cached file, or bytes): the sorted hashes sit
    in buckets by their top bits (about 2 keys a bucket), so a lookup is one hash, two offsets and a
    scan of a few words: ~1 µs, half of it the hash.
    """

    __slots__ = ("table", "total", "_hashes", "_freqs", "_starts", "_size", "_memo")

    def __init__(self, table: bytes | mmap.mmap) -> None:
        view = memoryview(table)
        size, total = _HEADER.unpack_from(view)
        hashes_at = _HEADER.size
        freqs_at = hashes_at + 8 * size
        starts_at = freqs_at + 4 * size
        if size < 0 or len(view) != starts_at + 4 * ((1 << BUCKET_BITS) + 1):
            raise ValueError("not a hashed jieba table (wrong size)")
        self.table, self.total, self._size = table, int(total), int(size)
        self._hashes = view[hashes_at:freqs_at].cast("Q")
        self._freqs = view[freqs_at:starts_at].cast("I")
        self._starts = view[starts_at:].cast("I")
        self._memo: dict[str, int] = {}

    def _freq(self, word: str) -> int:
        """The key's frequency, or -1 when it is not a key."""
        found = self._memo.get(word)
        if found is None:
            wanted = key_hash(word)
            bucket = wanted >> (64 - BUCKET_BITS)
            hashes, found = self._hashes, -1
            for i in range(self._starts[bucket], self._starts[bucket + 1]):
                if hashes[i] == wanted:
                    found = self._freqs[i]
                    break
            if len(self._memo) >= MEMO_SIZE:
                self._memo = {}  # a new dict, not clear(): another thread may be reading the old one
            self._memo[word] = found
        return found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._freq(word) >= 0

    def __getitem__(self, word: str) -> int:
        found = self._freq(word)
        if found < 0:
            raise KeyError(word)
        return found

    def get(self, word: str, default: Any = None) -> Any:
        found = self._freq(word)
        return default if found < 0 else found

    def __len__(self) -> int:
        return self._size


def table_bytes(hashes: np.ndarray, freqs: np.ndarray, total: int) -> bytes:
    """The table ``HashedFreq`` reads: header, sorted hashes, their frequencies, bucket offsets."""
    hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
    buckets = (hashes >> np.uint64(64 - BUCKET_BITS)).astype(np.int64)
    starts = np.searchsorted(buckets, np.arange((1 << BUCKET_BITS) + 1)).astype(np.uint32)
    return b"".join([_HEADER.pack(len(hashes), total), hashes.tobytes(),
                     np.ascontiguousarray(freqs, dtype=np.uint32).tobytes(), starts.tobytes()])


def lean_tokenizer(jieba: Any, root: Path | None = None) -> Any:
    """A ``jieba.Tokenizer`` over the hashed dictionary, ready (its ``initialize`` never runs)."""
    freq = _hashed_freq(jieba, root or cache_root())
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = freq, freq.total, True
    return tokenizer


def _hashed_freq(jieba: Any, root: Path) -> HashedFreq:
    """The hashed dictionary, memory-mapped from the cache; derived from jieba's (and cached) the first time."""
    dictionary = Path(jieba.DEFAULT_DICT_NAME if os.path.isabs(jieba.DEFAULT_DICT_NAME)
                      else os.path.join(os.path.dirname(jieba.__file__), jieba.DEFAULT_DICT_NAME))
    stat = dictionary.stat()
    path = root / "jieba" / f"v{TABLE_VERSION}-{sys.byteorder}-{jieba.__version__}-{stat.st_size}-{stat.st_mtime_ns}.bin"
    mapped = _mapped(path)
    if mapped is not None:
        return mapped
    full = jieba.dt if jieba.dt.initialized else jieba.Tokenizer()  # the process's own, when a build loaded it
    logging.getLogger("jieba").setLevel(logging.WARNING)
    full.initialize()
    keyed = np.fromiter((key_hash(word) for word in full.FREQ), dtype=np.uint64, count=len(full.FREQ))
    order = np.argsort(keyed)
    hashes = keyed[order]
    if np.any(hashes[1:] == hashes[:-1]):  # two keys, one hash: never seen; the full dict is then the only safe one
        raise RuntimeError("jieba's dictionary has colliding key hashes")
    freqs = np.fromiter(full.FREQ.values(), dtype=np.uint32, count=len(full.FREQ))[order]
    table = table_bytes(hashes, freqs, int(full.total))
    try:
        write_atomically(path, table)
    except OSError:  # a read-only cache: derived again next time, still right
        return HashedFreq(table)
    return _mapped(path) or HashedFreq(table)


def _mapped(path: Path) -> HashedFreq | None:
    """The table file memory-mapped read-only; None when missing or damaged (it is then derived again)."""
    try:
        with open(path, "rb") as file:
            return HashedFreq(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))  # checks the size
    except (OSError, ValueError, struct.error):
        return None
