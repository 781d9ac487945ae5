"""The semantic guard's fit judged on dev only: held-out emergency examples and questions never fitted on.

Reads an artifact's ``guard_examples`` (vectors included) and refits the classifier
(``compiler.guard_fit``) five times, each time leaving one fifth of the rules' examples out
(recall on those, by the classifier alone and by the guard as a whole: pattern or classifier)
and leaving two sets of benign questions out entirely, so their share stopped as red flags is
the false-alarm rate on questions the fit never saw:

* the dev questions (role ``negative``, ``eval/questions.yaml``: 205, mostly impersonal);
* ``benchmarks/guard/guard_dev_lookalikes.yaml`` (80, never content): personal questions that name a
  red-flag rule's condition without its acute signs ("my mum was just diagnosed with type 2
  diabetes, what should her breakfast be"), the kind fresh users asked (issue 11).

The bundled everyday questions (role ``background``, the ``(everyday)`` class since 8d26a97) are left
out here: this measures the rules' own examples and negatives; ``guard_outcomes.py`` measures the whole.

Variants:

* ``--policy system`` (shipped: the threshold where patterns and classifier together stop 98% of
  the examples out of fold, held within ``RED_FLAG_BOUNDS``: now 0.5 to 0.5), ``classifier`` (98% by
  the classifier alone, as in FIT_VERSION 1), ``cost:N`` (fewest misses × N + false alarms out of
  fold), ``fixed:T`` (T, whatever the bounds);
* ``--floor F``: the lower red-flag bound (0.15 in FIT_VERSION 1: the fitted point as it falls);
* ``--guard-yaml PATH``: the rules, examples and near-misses of another guard.yaml (e.g. an older
  revision: ``git show 8ea6921:content/guard.yaml > /tmp/old.yaml``); vectors come from the
  artifact or the embedding cache, and only texts found in neither are embedded;
* ``--no-titles``: the public unit titles left out of the negatives;
* ``--pair-folds``: fold by position within each rule's list of a language, so an example and its
  translation (the n-th of the other language) are held out together (stricter recall).

    .venv/bin/python benchmarks/guard/guard_fit_dev.py --kb dist/kb.duckdb
    .venv/bin/python benchmarks/guard/guard_fit_dev.py --kb dist/kb.duckdb --guard-yaml /tmp/old.yaml --policy classifier --floor 0.15
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import yaml

import unitrag.compiler.guard_fit as guard_fit
from unitrag.compiler.guard_examples import caught_by_patterns, example_hash

FOLDS = 5
LOOKALIKES = Path(__file__).with_name("guard_dev_lookalikes.yaml")


def threshold_policy(spec: str) -> None:
    """Replace the fit's red-flag threshold rule for this process (``system`` is the shipped one)."""
    if spec in ("system", "classifier"):
        return
    kind, _, value = spec.partition(":")
    number = float(value)
    original = guard_fit._thresholds

    def chosen(positive: np.ndarray, negative: np.ndarray) -> float:
        if kind == "fixed":
            return number
        candidates = np.unique(positive)
        misses = np.searchsorted(np.sort(positive), candidates, side="left")
        alarms = len(negative) - np.searchsorted(np.sort(negative), candidates, side="left")
        return float(candidates[int(np.argmin(misses * number + alarms))])

    def thresholds(oof: np.ndarray, y: np.ndarray, types: list[str], caught: np.ndarray) -> tuple[dict, dict]:
        found, metrics = original(oof, y, types, caught)
        columns = [i for i, t in enumerate(types) if t == "red_flag"]
        label_type = np.array([types[c] for c in y])
        judged = ~np.isnan(oof).any(axis=1)
        mass = oof[:, columns].sum(axis=1)
        low, high = guard_fit.RED_FLAG_BOUNDS
        value = chosen(mass[(label_type == "red_flag") & judged], mass[(y == 0) & judged])
        found["red_flag"] = value if kind == "fixed" else min(max(value, low), high)
        return found, metrics

    guard_fit._thresholds = thresholds


def vectors_for(texts: list[str], known: dict[str, np.ndarray], embedder: str) -> np.ndarray:
    """Query vectors by content hash: the artifact's, else the embedding cache's, else embedded now (and cached)."""
    from unitrag.compiler.cache import EmbeddingCache
    from unitrag.providers.embedders import embedder_id, load_embedder

    hashes = [example_hash(t) for t in texts]
    found = {h: known[h] for h in hashes if h in known}
    cache = EmbeddingCache(Path(".unitrag/cache"))
    try:
        found.update(cache.get_many(embedder_id(embedder), [h for h in hashes if h not in found]))
        missing = list(dict.fromkeys(h for h in hashes if h not in found))
        if missing:
            text_of = dict(zip(hashes, texts))
            fresh = np.asarray(load_embedder(embedder).embed_queries([text_of[h] for h in missing]), np.float32)
            cache.put_many(embedder_id(embedder), missing, fresh)
            found.update(zip(missing, fresh))
    finally:
        cache.close()
    return np.array([found[h] for h in hashes], np.float32)


def guard_yaml_rows(path: Path) -> tuple[list[dict[str, Any]], list[tuple[str, str, str, str]]]:
    """(guard_rules rows, (rule, role, lang, text) per example and near-miss) of a guard.yaml."""
    rules, rows = [], []
    for rule in yaml.safe_load(path.read_text(encoding="utf-8")):
        patterns, response = rule.get("patterns") or {}, rule.get("response") or {}
        rules.append({"id": rule["id"], "type": rule["type"], "patterns_en": patterns.get("en") or [],
                      "patterns_zh": patterns.get("zh") or [], "response_en": response.get("en", ""),
                      "response_zh": response.get("zh")})
        for role, key in (("example", "examples"), ("near_miss", "near_misses")):
            rows += [(rule["id"], role, lang, text) for lang, texts in (rule.get(key) or {}).items() for text in texts]
    return rules, rows


def pair_folds(rows: list[tuple[str, str, str, str]]) -> np.ndarray:
    """Fold = position within its (rule, role, language) list: the n-th text of each language share a fold."""
    seen: dict[tuple[str, str, str], int] = {}
    folds = []
    for rule, role, lang, _ in rows:
        key = (rule, role, lang)
        folds.append(seen.get(key, 0) % FOLDS)
        seen[key] = seen.get(key, 0) + 1
    return np.array(folds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", type=Path, default=Path("dist/kb.duckdb"))
    parser.add_argument("--policy", default="system", help="system | classifier | cost:N | fixed:T")
    parser.add_argument("--guard-yaml", type=Path, help="rules, examples and near-misses from this file instead")
    parser.add_argument("--lookalikes", type=Path, default=LOOKALIKES)
    parser.add_argument("--recall", type=float, default=guard_fit.RED_FLAG_RECALL, help="out-of-fold red-flag recall")
    parser.add_argument("--floor", type=float, default=guard_fit.RED_FLAG_BOUNDS[0], help="lower red-flag bound")
    parser.add_argument("--no-titles", action="store_true")
    parser.add_argument("--pair-folds", action="store_true")
    args = parser.parse_args()
    threshold_policy(args.policy)
    guard_fit.RED_FLAG_RECALL = args.recall
    guard_fit.RED_FLAG_BOUNDS = (args.floor, max(args.floor, guard_fit.RED_FLAG_BOUNDS[1]))
    with duckdb.connect(str(args.kb), read_only=True) as con:
        stored = con.execute("SELECT rule_id, role, lang, text, content_hash, embedding FROM guard_examples").fetchall()
        columns = ("id", "type", "patterns_en", "patterns_zh", "response_en", "response_zh")
        rules = [dict(zip(columns, r)) for r in con.execute(f"SELECT {', '.join(columns)} FROM guard_rules").fetchall()]
        embedder = con.execute("SELECT value FROM manifest WHERE key = 'embedder'").fetchone()
    known = {r[4]: np.asarray(r[5], np.float32) for r in stored}
    model = json.loads(embedder[0])["id"] if embedder else "e5-openvino:multilingual-e5-small"
    guard_rows = [(r[0], r[1], r[2], r[3]) for r in stored if r[1] in ("example", "near_miss")]
    if args.guard_yaml:
        rules, guard_rows = guard_yaml_rows(args.guard_yaml)
    others = [(r[0] or "", r[1], r[2], r[3]) for r in stored if r[1] in ("negative", "title")]
    rows = guard_rows + others
    vectors = vectors_for([r[3] for r in rows], known, model)
    look = yaml.safe_load(args.lookalikes.read_text(encoding="utf-8"))
    look_vectors = vectors_for([t for by_lang in look.values() for texts in by_lang.values() for t in texts], known, model)
    types = {r["id"]: r["type"] for r in rules}
    rule, role = np.array([r[0] for r in rows]), np.array([r[1] for r in rows])
    records = [{"rule_id": r[0], "role": r[1], "text": r[3]} for r in rows]
    caught = np.array(caught_by_patterns(records, rules)) & (args.policy != "classifier")
    example, dev = role == "example", role == "negative"
    red_flag = np.array([types.get(r) == "red_flag" for r in rule])
    fitted_negatives = (role == "near_miss") | ((role == "title") & (not args.no_titles))
    fold = np.concatenate([pair_folds(guard_rows), np.full(len(others), -1)]) if args.pair_folds \
        else np.arange(len(rows)) % FOLDS
    by_classifier = by_guard = total = 0
    stopped: list[int] = []
    looked: list[int] = []
    threshold: list[float] = []
    for f in range(FOLDS):
        train = (example & (fold != f)) | fitted_negatives
        labels = [r if ro == "example" else guard_fit.NONE for r, ro in zip(rule[train], role[train])]
        fit = guard_fit.fit_guard(vectors[train], labels, types, caught[train])
        assert fit is not None
        columns = [i for i, c in enumerate(fit.classes) if types.get(c) == "red_flag"]

        def fires(x: np.ndarray) -> np.ndarray:
            mass = guard_fit.probabilities(x, fit.weights, fit.intercepts)[:, columns].sum(axis=1)
            return mass >= fit.thresholds["red_flag"]

        held_out = example & red_flag & (fold == f)
        hits = fires(vectors[held_out])
        by_classifier += int(hits.sum())
        by_guard += int((hits | np.array(caught_by_patterns([records[i] for i in np.where(held_out)[0]], rules))).sum())
        total += int(held_out.sum())
        stopped.append(int(fires(vectors[dev]).sum()))
        looked.append(int(fires(look_vectors).sum()))
        threshold.append(fit.thresholds["red_flag"])
    print(f"policy {args.policy} (recall {args.recall}, floor {args.floor}), titles {'out' if args.no_titles else 'in'}, "
          f"{'pair' if args.pair_folds else 'row'} folds, {args.guard_yaml or args.kb}: red-flag threshold "
          f"{np.mean(threshold):.3f} (mean of {FOLDS} fits); held-out emergency examples stopped by the classifier "
          f"{by_classifier}/{total} = {by_classifier / total:.3f}, by the guard {by_guard / total:.3f}; "
          f"unseen dev questions stopped {min(stopped)}–{max(stopped)} of {int(dev.sum())}; "
          f"unseen look-alikes stopped {min(looked)}–{max(looked)} of {len(look_vectors)}")


if __name__ == "__main__":
    main()
