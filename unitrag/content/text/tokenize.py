"""Terms for the sparse (BM25) arm, the same for chunks and questions, Chinese and English.

Shared by the build (which stores each chunk's terms in the artifact's ``sparse_terms``
column, so opening a large knowledge base does not tokenise it again) and the runtime
(which tokenises questions, and chunks of artifacts without stored terms).

* Text is NFKC-normalised (full-width letters and digits become ASCII), lower-cased, and its
  traditional Han characters folded to simplified ones (``han_script``: 檢查 matches 检查).
* Runs of CJK characters are segmented with jieba (search mode: a long word also yields
  its shorter words, so 维生素 matches 维生素D缺乏 segmented either way); jieba's
  start-up chatter is silenced.
* Everything else is split into words of letters and digits: numbers are kept
  (``b12``, ``2型``'s ``2``, ``140``), punctuation is dropped, hyphenated words
  become their parts (``covid-19`` → ``covid`` ``19``).
* A small stop-word list per language is dropped: words that carry no topic and,
  in a question, would only add noise (``what``, ``does``, ``的``, ``是``, ``什么``).
* Latin-script words are Snowball-stemmed (English, PyStemmer): ``studies`` → ``studi``.
  On SciFact this is worth +0.028 nDCG@10 (train; +0.019 test) for BM25 alone. Snowball leaves the
  plural of a word without a vowel alone (``dvds``, ``cds``, ``kgs``): such a stem loses its final ``s``
  (``ACRONYM_PLURAL``), or "How long can I keep a DVD?" shared no term with the "DVDs" row of a
  library's loan table and was answered from the books row.

``TOKENIZER_VERSION`` changes whenever any of this changes, because terms stored by an
older build would then no longer match the terms of a question.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

from .han_script import to_simplified

TOKENIZER_VERSION = 3  # 2: traditional characters folded to simplified; 3: an acronym's plural is its singular
#: What an artifact built before its manifest recorded the tokenizer (``sparse_index.tokenizer``) was made with.
UNRECORDED_TOKENIZER = 1
#: Stem Latin-script words by default (measured: see the module docstring).
STEM = True

#: CJK ideographs (unified, extension A, compatibility).
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"(?P<cjk>[{_CJK}]+)|(?P<word>[^\W_{_CJK}]+)")

EN_STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t
    """.split()
)

ZH_STOPWORDS = frozenset(
    """
    的 了 着 过 是 在 和 与 及 或 而 也 都 就 还 又 并 但 对 于 从 把 被 给 让 向 以 之 其 该 此 这 那 这个
    那个 这些 那些 这样 那样 我 你 您 他 她 它 我们 你们 他们 她们 它们 吗 呢 吧 啊 呀 嘛 么 个 些 有 没 会 能
    要 可以 可能 应该 需要 什么 怎么 怎样 怎么样 如何 为什么 哪些 哪个 哪里 多少 是否 请问 一下 一个 一些 所以
    因为 如果 或者 以及 还是 等 等等
    """.split()
)

STOPWORDS = EN_STOPWORDS | ZH_STOPWORDS

_jieba_lock = threading.Lock()
_jieba = None


def load_segmenter(*, lean: bool = False) -> None:
    """Load jieba's dictionary now, unless one is loaded: the full dict (fast lookups, for the build) or,
    with ``lean``, the hashed one (``jieba_lean``: ~0.1 s and 6 MB instead of ~1 s and 62 MB, for a
    knowledge base that segments questions). Both segment alike; the first one loaded stays."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                logging.getLogger("jieba").setLevel(logging.WARNING)
                _jieba = _lean(jieba) if lean else None
                if _jieba is None:
                    jieba.initialize()
                    _jieba = jieba


def _lean(jieba):  # type: ignore[no-untyped-def]
    """The hashed-dictionary tokenizer, or None when it cannot be made (the full dict then serves)."""
    from .jieba_lean import lean_tokenizer

    try:
        return lean_tokenizer(jieba)
    except (OSError, RuntimeError, ValueError) as exc:
        logging.getLogger(__name__).warning("jieba: the hashed dictionary could not be made (%s); using the full one", exc)
        return None


def _segmenter():  # type: ignore[no-untyped-def]
    """Whichever jieba is loaded (the full dict when none is yet)."""
    if _jieba is None:
        load_segmenter()
    return _jieba


_local = threading.local()
#: A stem of two or more letters or digits none a vowel, then ``s``: the plural of an acronym or a unit (``dvds``,
#: ``cds``, ``pcs``, ``mp3s``, ``kgs``), which Snowball keeps as it is since no vowel precedes the ``s``.
ACRONYM_PLURAL = re.compile(r"^[b-df-hj-np-tv-xz0-9]{2,}s$")


def stem_words(words: list[str]) -> list[str]:
    """Snowball (English) stems; one PyStemmer object per thread, as they keep a cache and are not thread-safe."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        import Stemmer  # PyStemmer

        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer.stemWords(words)


def tokenize(text: str, *, stopwords: frozenset[str] = STOPWORDS, stem: bool = STEM) -> list[str]:
    """The BM25 terms of ``text``, in order (repeats kept: they are term frequencies)."""
    text = to_simplified(unicodedata.normalize("NFKC", text)).lower()
    terms: list[str] = []
    latin: list[int] = []  # positions of the non-CJK words, the ones a stemmer may change
    for match in _TOKEN.finditer(text):
        word = match.group("word")
        if word is not None:
            if word not in stopwords:
                latin.append(len(terms))
                terms.append(word)
            continue
        for piece in _segmenter().cut_for_search(match.group("cjk"), HMM=True):
            if piece.strip() and piece not in stopwords:
                terms.append(piece)
    if stem and latin:
        for position, stemmed in zip(latin, stem_words([terms[i] for i in latin])):
            terms[position] = stemmed[:-1] if ACRONYM_PLURAL.match(stemmed) else stemmed
    return terms


def terms_current(manifest: dict[str, Any]) -> bool:
    """Whether an artifact's stored terms were made by this tokenizer, so its BM25 index can be used as stored."""
    return (manifest.get("sparse_index") or {}).get("tokenizer", UNRECORDED_TOKENIZER) == TOKENIZER_VERSION


def tokenize_many(texts: Iterable[str], *, stopwords: frozenset[str] = STOPWORDS, stem: bool = STEM) -> list[list[str]]:
    return [tokenize(t, stopwords=stopwords, stem=stem) for t in texts]


_CITE = re.compile(r"<Cite\b[^>]*/>")


def indexed_text(title: str | None, text: str | None) -> str:
    """What the sparse arm indexes of one chunk: its title, then its text without ``<Cite/>`` tags."""
    return f"{title or ''}\n{_CITE.sub(' ', text or '')}"


def sparse_terms(text: str, *, stem: bool = STEM) -> str:
    """A text's terms joined by single spaces (terms never contain one): the ``sparse_terms`` column."""
    return " ".join(tokenize(text, stem=stem))
