"""The sparse arm: tokenisation (Chinese and English) and BM25 search over a tiny store, masks respected."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import duckdb
import numpy as np
import pytest

from unitrag.artifact.schema import migrate
from unitrag.content.text.tokenize import TOKENIZER_VERSION, indexed_text, sparse_terms, tokenize
from unitrag.rag.store.sparse import SparseIndex

CHUNKS = [  # (title, text_for_prompt)
    ("Vitamin B12 deficiency", 'Low serum B12 causes megaloblastic anaemia and neuropathy <Cite id="b12-review"/>.'),
    ("Iron and pregnancy", "Iron needs rise in pregnancy; ferritin below 30 ng/mL suggests iron deficiency."),
    ("维生素D与骨骼", "维生素D缺乏会导致骨质疏松，老年人应检测血清25-羟维生素D水平。"),
    ("孕期补充叶酸", "备孕和孕早期每天补充400微克叶酸，可以降低神经管缺陷的风险。"),
    ("Blood pressure stage 2", "A reading of 140/90 mmHg or higher is stage 2 hypertension."),
]


@dataclass
class TinyStore:
    """The two columns ``SparseIndex.build`` reads from a ``ChunkStore`` (plus optional stored terms)."""

    columns: dict[str, list[Any]]
    manifest: dict[str, Any] = field(default_factory=dict)


def tiny_store(**extra: list[Any]) -> TinyStore:
    """The chunks, with stored terms (``extra``) that this tokenizer made, as the manifest records."""
    return TinyStore({"title": [t for t, _ in CHUNKS], "text_for_prompt": [x for _, x in CHUNKS], **extra},
                     {"sparse_index": {"tokenizer": TOKENIZER_VERSION}})


@pytest.fixture(scope="module")
def index() -> SparseIndex:
    return SparseIndex.build(tiny_store())


# --- tokenisation -------------------------------------------------------------------------------


def test_english_is_lowercased_stemmed_and_stripped_of_stopwords_numbers_kept() -> None:
    assert tokenize("What are the effects of Vitamin B12 on 2 studies?") == ["effect", "vitamin", "b12", "2", "studi"]
    assert tokenize("COVID-19 ＡＢＣ１２３", stem=False) == ["covid", "19", "abc123"]  # NFKC: full-width → ASCII


def test_chinese_is_segmented_with_jieba_and_stopwords_dropped() -> None:
    terms = tokenize("维生素D缺乏的症状是什么？")
    assert "维生素" in terms and "缺乏" in terms and "症状" in terms and "d" in terms
    assert not {"的", "是", "什么", "？"} & set(terms)


def test_indexed_text_drops_citation_tags_and_keeps_the_title() -> None:
    text = indexed_text("Title here", 'Body <Cite id="x-1"/> end')
    assert "Cite" not in text and "x-1" not in text and text.startswith("Title here")
    assert sparse_terms(indexed_text("", 'Vitamins <Cite id="a"/> help')) == "vitamin help"


def test_jieba_prints_nothing_on_first_use() -> None:
    code = "from unitrag.content.text.tokenize import tokenize; print(tokenize('维生素D缺乏'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert "维生素" in out.stdout
    assert out.stderr == "", out.stderr


# --- search -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "row"),
    [
        ("What does B12 deficiency cause?", 0),
        ("ferritin in pregnant women", 1),
        ("维生素D缺乏会怎样", 2),
        ("孕妇需要补充多少叶酸", 3),
        ("is 140/90 stage 2 hypertension", 4),
        ("老年人骨质疏松 vitamin D", 2),
    ],
)
def test_english_and_chinese_questions_find_their_row_first(index: SparseIndex, query: str, row: int) -> None:
    rows, scores = index.search(query, 3)
    assert rows[0] == row, (query, rows, scores)
    assert np.all(np.diff(scores) <= 0) and np.all(scores > 0)
    assert rows.dtype == np.int64 and len(rows) == len(scores) <= 3


def test_mask_excludes_rows_even_the_best(index: SparseIndex) -> None:
    mask = np.ones(len(CHUNKS), dtype=bool)
    mask[0] = False
    rows, _ = index.search("vitamin B12 deficiency", 5, mask)
    assert 0 not in rows.tolist()
    assert rows.tolist() == [1]  # "deficiency" also occurs in the iron chunk
    rows, scores = index.search("vitamin B12", 5, np.zeros(len(CHUNKS), dtype=bool))
    assert rows.size == 0 and scores.size == 0


def test_no_shared_term_no_result_and_k_is_respected(index: SparseIndex) -> None:
    assert index.search("what is the", 5)[0].size == 0  # stop words only
    assert index.search("quantum chromodynamics", 5)[0].size == 0
    assert index.search("deficiency", 0)[0].size == 0
    assert index.search("deficiency 维生素", 1)[0].size == 1


def test_bm25_scores_match_the_formula() -> None:
    docs = [["apple", "apple", "pear"], ["pear"], ["fig", "fig", "fig", "fig"]]
    index = SparseIndex.from_terms(docs, k1=1.2, b=0.75, stem=False)  # queries tokenised unstemmed, like these terms
    n, avgdl = 3, (3 + 1 + 4) / 3

    def bm25(tf: int, df: int, dl: int) -> float:
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avgdl))

    np.testing.assert_allclose(index.scores("apple"), [bm25(2, 1, 3), 0, 0], rtol=1e-5)
    np.testing.assert_allclose(index.scores("pear apple"), [bm25(1, 2, 3) + bm25(2, 1, 3), bm25(1, 2, 1), 0], rtol=1e-5)
    np.testing.assert_allclose(index.scores("fig fig"), [0, 0, 2 * bm25(4, 1, 4)], rtol=1e-5)  # repeats count


def test_a_term_300_times_in_a_chunk_scores_with_its_true_frequency() -> None:
    """Frequencies are held as uint8; from 255 up the true one is patched back, so the score is today's, bit for bit."""
    docs = [["salt"] * 300 + ["iron"], ["salt", "iron"], ["iron"] * 254, ["salt"] * 255 + ["iron"] * 1000]
    index = SparseIndex.from_terms(docs, k1=1.2, b=0.75, stem=False)
    assert index.tf.dtype == np.uint8
    lengths = [len(d) for d in docs]
    avgdl = sum(lengths) / len(docs)
    for term, tf in (("salt", {0: 300, 1: 1, 3: 255}), ("iron", {0: 1, 1: 1, 2: 254, 3: 1000})):
        rows, weights = index.weights(index.vocab[term])
        assert sorted(rows.tolist()) == sorted(tf)
        df = len(tf)
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        for row, weight in zip(rows.tolist(), weights.tolist()):
            norm = 1.2 * (1 - 0.75 + 0.75 * lengths[row] / avgdl)
            assert weight == np.float32(idf * tf[row] * 2.2 / (tf[row] + norm)), (term, row)


def test_empty_rows_and_an_empty_store_are_fine() -> None:
    index = SparseIndex.from_texts(["", "apple pie", ""])
    assert index.search("apple", 5)[0].tolist() == [1]
    empty = SparseIndex.from_texts([])
    assert len(empty) == 0 and empty.search("apple", 5)[0].size == 0


def test_stored_terms_are_used_when_present_and_current() -> None:
    stored = ["zebra"] + [sparse_terms(indexed_text(t, x)) for t, x in CHUNKS[1:]]
    index = SparseIndex.build(tiny_store(sparse_terms=stored))
    assert index.search("zebra", 3)[0].tolist() == [0]  # proof the stored terms, not the text, were indexed
    assert index.search("B12", 3)[0].size == 0


def test_stale_or_missing_stored_terms_fall_back_to_tokenising() -> None:
    stored = ["zebra"] * len(CHUNKS)
    stale = TinyStore(tiny_store(sparse_terms=stored).columns, {"sparse_index": {"tokenizer": TOKENIZER_VERSION + 1}})
    assert SparseIndex.build(stale).search("B12", 3)[0].tolist() == [0]
    unrecorded = TinyStore(tiny_store(sparse_terms=stored).columns, {})  # built before the tokenizer was recorded: 1
    assert SparseIndex.build(unrecorded).search("B12", 3)[0].tolist() == [0]
    partial = tiny_store(sparse_terms=["zebra", None, None, None, None])  # rows carried over from schema 1
    assert SparseIndex.build(partial).search("B12", 3)[0].tolist() == [0]


def test_the_artifact_has_a_sparse_terms_column_and_the_build_fills_it() -> None:
    from unitrag.compiler.chunking import Chunk
    from unitrag.compiler.plan import HashedChunk
    from unitrag.compiler.tables import chunk_rows

    con = duckdb.connect()
    migrate(con, 4)
    types = dict(con.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'chunks'"
    ).fetchall())
    assert types["sparse_terms"] == "VARCHAR"
    chunk = Chunk("c1", "u1", "document", "Vitamin B12", "en", "public", "e", 'Low B12 <Cite id="r"/>', (), ())
    [row] = chunk_rows([HashedChunk(chunk, "h", "m")])
    assert row["sparse_terms"] == "vitamin b12 low b12"


#: Rows of 140,000 that hold "apple" and "pear" (every other row: "filler"), across 65,536-row blocks.
CROSSING = {"apple": [0, 5, 65_535, 65_536, 70_000, 139_999], "pear": [65_539, 131_072, 131_073]}
CROSSING_ROWS = 140_000


def crossing_blocks(shuffled: bool) -> tuple[SparseIndex, int]:
    """The index of ``CROSSING``, and how many postings it holds; ``shuffled``: not in row order within a term."""
    from unitrag.artifact.postings import count_postings

    docs = [tokenize("filler")[0]] * CROSSING_ROWS
    for term, rows in CROSSING.items():
        for row in rows:
            docs[row] = tokenize(term)[0]  # stored as the query will be tokenised
    p = count_postings(docs)
    term_ids, doc_rows, tf = p.term_ids, p.docs, p.tf
    if shuffled:  # an incremental write's appended postings are not in row order within a term
        order = np.lexsort((np.random.default_rng(0).random(len(doc_rows)), term_ids))
        term_ids, doc_rows, tf = term_ids[order], doc_rows[order], tf[order]
    return SparseIndex.from_postings(p.terms, term_ids, doc_rows, tf, p.lengths), doc_rows.size


@pytest.mark.parametrize("shuffled", [False, True])
def test_rows_past_65536_are_found_whatever_their_order(shuffled: bool) -> None:
    """Rows are held as uint16 offsets in 65,536-row blocks; a term's postings may cross blocks, in any order."""
    n, where = CROSSING_ROWS, CROSSING
    index, postings = crossing_blocks(shuffled)
    assert index.rows.nbytes < postings * 4 or shuffled  # in full-write order the rows take two bytes each
    for term, rows in where.items():
        found, scores = index.search(term, 20)
        assert sorted(found.tolist()) == rows and np.allclose(scores, scores[0])
    assert sorted(np.flatnonzero(index.scores("filler")).tolist()) == sorted(set(range(n)) - {r for rows in where.values() for r in rows})


def test_a_public_callers_scores_never_move_with_the_words_of_restricted_rows() -> None:
    """Seen by the public rows, BM25 is the index of the public rows alone: a caller who can read every public unit
    cannot tell from a score whether a word occurs in a restricted one (an app developer's audit: 'thermometer'
    added to a restricted unit moved a public unit's score from 6.45 to 5.05)."""
    public = ["use an instant-read thermometer for bread", "proof the dough overnight", "oven temperature for cakes"]
    for restricted in (["clinic dosing table"], ["thermometer thermometer calibration in the lab"]):
        index = SparseIndex.from_texts(public + restricted)
        seen = index.seen_by(np.array([True] * len(public) + [False] * len(restricted)))
        alone = SparseIndex.from_texts(public)
        for query in ("instant-read thermometer", "oven temperature", "dough"):
            assert np.allclose(seen.scores(query)[:len(public)], alone.scores(query), rtol=1e-5)
        assert seen.chunk_count(tokenize("thermometer")[0]) == 1
    assert np.array_equal(index.seen_by(np.ones(len(public) + 1, bool)).idf, index.idf)


@pytest.mark.parametrize("shuffled", [False, True])
def test_term_counts_seen_by_some_rows_are_right_past_65536_rows(shuffled: bool) -> None:
    index, _ = crossing_blocks(shuffled)
    keep = np.ones(CROSSING_ROWS, bool)
    keep[[5, 70_000, 131_072]] = False
    seen = index.seen_by(keep)
    assert seen.chunk_count(tokenize("apple")[0]) == 4 and seen.chunk_count(tokenize("pear")[0]) == 2
    assert seen.chunk_count(tokenize("filler")[0]) == CROSSING_ROWS - 9


def test_a_word_of_restricted_rows_alone_is_unknown_to_the_public_lexicon() -> None:
    """A security audit: the extractive answer weighed 'zorblax', a word of a restricted unit alone, as the rarest
    word there is, and chose other sentences for an anonymous caller: a build with it answered differently."""
    from unitrag.rag.answer.focus import Lexicon

    index = SparseIndex.from_texts(["rotor thickness for disc brakes", "chain wear", "zorblax rotor quarantine"])
    public = index.seen_by(np.array([True, True, False]))
    word = tokenize("zorblax")[0]
    assert Lexicon.of(public.vocab, public.idf, {}, public.counts).idf.get(word) is None
    assert Lexicon.of(index.vocab, index.idf, {}).idf.get(word) is not None  # the restricted role's lexicon knows it


def test_the_languages_probed_are_the_public_chunks() -> None:
    """A security audit: one restricted Chinese scene in an English knowledge base gave every anonymous question a
    Chinese probe, and its scores changed: a public caller could tell restricted units exist in another language."""
    from unitrag.rag.search.retrieval import public_langs

    langs = np.array(["en", "en", "zh"], dtype=object)
    assert public_langs(langs, np.array([True, True, False])) == {"en"}
    assert public_langs(langs, np.array([False, False, False])) == {"en", "zh"}  # nothing public: every language held
