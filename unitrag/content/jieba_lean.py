"""jieba with its dictionary as 6 MB of hashes instead of a 62 MB Python dict: what a query needs.

jieba segments with one dictionary, ``FREQ``: every word and every prefix of a word
(prefixes with frequency 0), about half a million strings. Loaded, that is a Python dict
of ~62 MB that takes 0.7-1.2 s to unmarshal, holding the GIL: most of what opening a
knowledge base with Chinese costs in time and memory. A question needs a few hundred
lookups in it, not the dict.

So the runtime segments with the same jieba code over a stand-in for ``FREQ``: a sorted
array of 64-bit BLAKE2b hashes of the keys and their frequencies (derived once from
jieba's own dictionary and cached under the user cache), looked up in buckets of the hashes. The
segmentation is the same (the same keys, the same frequencies, the same algorithm); only a
hash collision could differ, at odds of about 3e-14 per lookup. A lookup not remembered costs
about a microsecond instead of a dict's tens of nanoseconds, which is why the build, which
segments every chunk, keeps the full dict.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from ..user_cache import cache_root, write_atomically

#: Bumped when the table's layout or hash changes: it is part of the cached file's name.
TABLE_VERSION = 1


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

    The sorted hashes sit in ``array`` buckets by their top bits (about 2 keys a bucket), so a
    lookup is one hash, two offsets and a C scan of a few words: ~1 µs, half of it the hash.
    """

    __slots__ = ("_hashes", "_freqs", "_starts", "_size", "_memo")

    def __init__(self, hashes: np.ndarray, freqs: np.ndarray) -> None:
        self._size = len(hashes)
        self._hashes = array("Q", np.ascontiguousarray(hashes, dtype=np.uint64).tobytes())
        self._freqs = array("I", np.ascontiguousarray(freqs, dtype=np.uint32).tobytes())
        buckets = (np.asarray(hashes, dtype=np.uint64) >> np.uint64(64 - BUCKET_BITS)).astype(np.int64)
        self._starts = array("I", np.searchsorted(buckets, np.arange((1 << BUCKET_BITS) + 1)).astype(np.uint32).tobytes())
        self._memo: dict[str, int] = {}

    def _freq(self, word: str) -> int:
        """The key's frequency, or -1 when it is not a key."""
        found = self._memo.get(word)
        if found is None:
            wanted = key_hash(word)
            bucket = wanted >> (64 - BUCKET_BITS)
            try:
                found = self._freqs[self._hashes.index(wanted, self._starts[bucket], self._starts[bucket + 1])]
            except ValueError:
                found = -1
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


def lean_tokenizer(jieba: Any, root: Path | None = None) -> Any:
    """A ``jieba.Tokenizer`` over the hashed dictionary, ready (its ``initialize`` never runs)."""
    hashes, freqs, total = _table(jieba, root or cache_root())
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = HashedFreq(hashes, freqs), total, True
    return tokenizer


def _table(jieba: Any, root: Path) -> tuple[np.ndarray, np.ndarray, int]:
    """The hashed dictionary from the cache, derived from jieba's (and cached) the first time."""
    dictionary = Path(jieba.DEFAULT_DICT_NAME if os.path.isabs(jieba.DEFAULT_DICT_NAME)
                      else os.path.join(os.path.dirname(jieba.__file__), jieba.DEFAULT_DICT_NAME))
    stat = dictionary.stat()
    path = root / "jieba" / f"v{TABLE_VERSION}-{jieba.__version__}-{stat.st_size}-{stat.st_mtime_ns}.npz"
    try:
        with np.load(path) as stored:
            return stored["hashes"], stored["freqs"], int(stored["total"][0])
    except (OSError, KeyError, ValueError):  # not derived yet, or a damaged file: derive again
        pass
    full = jieba.dt if jieba.dt.initialized else jieba.Tokenizer()  # the process's own, when a build loaded it
    logging.getLogger("jieba").setLevel(logging.WARNING)
    full.initialize()
    keyed = np.fromiter((key_hash(word) for word in full.FREQ), dtype=np.uint64, count=len(full.FREQ))
    order = np.argsort(keyed)
    hashes = keyed[order]
    freqs = np.fromiter(full.FREQ.values(), dtype=np.uint32, count=len(full.FREQ))[order]
    if np.any(hashes[1:] == hashes[:-1]):  # two keys, one hash: never seen; the full dict is then the only safe one
        raise RuntimeError("jieba's dictionary has colliding key hashes")
    table = io.BytesIO()
    np.savez(table, hashes=hashes, freqs=freqs, total=np.array([full.total], dtype=np.int64))
    try:
        write_atomically(path, table.getvalue())
    except OSError:  # a read-only cache: derived again next time, still right
        pass
    return hashes, freqs, int(full.total)
