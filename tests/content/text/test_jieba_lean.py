"""jieba over a hashed dictionary: the same segmentation as jieba's own dict, from a small cached table."""

from __future__ import annotations

import logging
from pathlib import Path

import jieba
import numpy as np
import pytest

from unitrag.content.text.jieba_lean import HashedFreq, key_hash, lean_tokenizer

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("user-cache")


@pytest.fixture(scope="module")
def lean(cache: Path):  # type: ignore[no-untyped-def]
    return lean_tokenizer(jieba, cache)


@pytest.fixture(scope="module")
def full():  # type: ignore[no-untyped-def]
    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def chinese_texts() -> list[str]:
    """Every Chinese unit of the sample plus mixed and odd inputs."""
    texts = [p.read_text(encoding="utf-8") for p in sorted((REPO / "content").rglob("*.md"))]
    texts = [t for t in texts if any("\u4e00" <= c <= "\u9fff" for c in t)]
    return texts + ["我爸突然半边身子没劲，说话含含糊糊的", "维生素D缺乏会增加骨折风险吗？", "孕妇每天需要多少碘", "齉齾龘靐", "a"]


def test_segments_exactly_like_jiebas_own_dictionary(lean, full) -> None:  # type: ignore[no-untyped-def]
    texts = chinese_texts()
    assert sum(map(len, texts)) > 20_000
    for text in texts:
        assert list(lean.cut_for_search(text, HMM=True)) == list(full.cut_for_search(text, HMM=True))
        assert list(lean.cut(text, HMM=True)) == list(full.cut(text, HMM=True))


def test_the_table_holds_every_key_and_prefix_with_its_frequency(lean, full) -> None:  # type: ignore[no-untyped-def]
    freq: HashedFreq = lean.FREQ
    assert len(freq) == len(full.FREQ) and lean.total == full.total
    for word in ("维生素", "营养", "糖尿病"):
        assert word in freq and freq[word] == full.FREQ[word] > 0
    prefix = next(w for w, f in full.FREQ.items() if f == 0)  # a prefix of a longer word only
    assert prefix in freq and freq[prefix] == 0 and freq.get(prefix) == 0
    assert "不是一个词吧" not in freq and freq.get("不是一个词吧", 7) == 7
    with pytest.raises(KeyError):
        freq["不是一个词吧"]


def test_the_table_is_derived_once_then_read_from_the_cache(cache: Path, lean, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    [stored] = list((cache / "jieba").glob("*.bin"))
    assert stored.stat().st_size < 10_000_000  # the dict it replaces holds ~62 MB
    assert not isinstance(lean.FREQ.table, bytes)  # memory-mapped from the file
    monkeypatch.setattr(jieba.Tokenizer, "initialize", lambda *a, **k: pytest.fail("derived again"))
    again = lean_tokenizer(jieba, cache)
    assert list(again.cut_for_search("维生素D缺乏")) == list(lean.cut_for_search("维生素D缺乏"))


def test_a_damaged_cache_file_is_derived_again(tmp_path: Path, lean) -> None:  # type: ignore[no-untyped-def]
    lean_tokenizer(jieba, tmp_path)
    [stored] = list((tmp_path / "jieba").glob("*.bin"))
    stored.write_bytes(b"not a table, and short")
    rebuilt = lean_tokenizer(jieba, tmp_path)
    assert list(rebuilt.cut_for_search("孕妇每天需要多少碘")) == list(lean.cut_for_search("孕妇每天需要多少碘"))
    assert len(HashedFreq(stored.read_bytes())) == len(lean.FREQ)  # written again, whole


def test_remembered_lookups_give_the_same_answers(lean) -> None:  # type: ignore[no-untyped-def]
    import unitrag.content.text.jieba_lean as module

    freq = HashedFreq(lean.FREQ.table)
    words = ["营养", "不是一个词吧", "维", "维生", "维生素"] * 3
    first = [freq.get(w, -5) for w in words]
    assert first == [lean.FREQ.get(w, -5) for w in words] and len(freq._memo) == 5
    old_size, module.MEMO_SIZE = module.MEMO_SIZE, 2
    try:
        small = HashedFreq(lean.FREQ.table)
        assert [small.get(w, -5) for w in words] == first and len(small._memo) <= 2  # bounded
    finally:
        module.MEMO_SIZE = old_size
    assert key_hash("营养") == key_hash("营养") != key_hash("营")
