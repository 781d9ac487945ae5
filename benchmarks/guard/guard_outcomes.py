"""The guard alone, on question files, for two or more artifacts side by side: what it stops and what it lets through.

Runs only ``kb.guard.check`` (the question's embedding, the patterns, the classifier, the
framing): no retrieval, so a few hundred questions take seconds. Per file and artifact:

* red flags stopped (of the questions labelled ``guard: red_flag``);
* benign look-alikes answered (labelled ``pass`` or ``caution``, answered with or without a note);
* red flags answered with the rule's note instead (a rule that notes similarity alone); the rest were answered plainly;
* ordinary questions stopped (no guard label), how many of those as a red flag, and how many answered with a note.

Give each artifact a name: ``--kb base=/tmp/base.duckdb --kb now=dist/kb.duckdb``. The first is the
baseline, printed first.

    .venv/bin/python benchmarks/guard/guard_outcomes.py --kb base=/tmp/base.duckdb --kb now=dist/kb.duckdb \\
        benchmarks/guard/everyday_dev.yaml content/eval/everyday_test.yaml content/eval/questions_test.yaml
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from unitrag.content.registry import load_questions
from unitrag.rag.knowledge_base import KnowledgeBase

STOPS = ("red_flag", "out_of_scope")


def outcomes(kb: KnowledgeBase, path: Path) -> Counter[str]:
    """``label->outcome`` counts for every question of one file (label ``ordinary`` when it has no guard label)."""
    counts: Counter[str] = Counter()
    problems: list = []
    questions = load_questions([path], problems)
    if problems:  # a file of malformed questions would print no row at all
        raise SystemExit(f"{path}: {len(problems)} malformed question(s), first: {problems[0].field}: {problems[0].message}")
    for lq in questions:
        q = lq.question
        got = kb.screen(q.question, q.lang, {})  # as the runtime asks the guard
        counts[f"{q.guard or 'ordinary'}->{got.type if got else 'pass'}"] += 1
    return counts


def summary(counts: Counter[str]) -> dict[str, tuple[int, int]]:
    """(hits, of) per figure: red flags stopped, and answered with the rule's note instead; benign answered; ordinary
    stopped, stopped as a red flag, and answered with a note. A red flag neither stopped nor noted was answered plainly."""
    def total(label: str, outcome: tuple[str, ...] | None = None) -> int:
        return sum(n for key, n in counts.items()
                   if key.split("->")[0] == label and (outcome is None or key.split("->")[1] in outcome))
    benign = total("pass") + total("caution")
    return {
        "red flags stopped": (total("red_flag", ("red_flag",)), total("red_flag")),
        "red flags noted": (total("red_flag", ("caution",)), total("red_flag")),
        "benign answered": (total("pass", ("pass", "caution")) + total("caution", ("pass", "caution")), benign),
        "ordinary stopped": (total("ordinary", STOPS), total("ordinary")),
        "ordinary as red flag": (total("ordinary", ("red_flag",)), total("ordinary")),
        "ordinary noted": (total("ordinary", ("caution",)), total("ordinary")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", action="append", required=True, help="NAME=artifact path (the first is the baseline)")
    parser.add_argument("files", nargs="+", type=Path, help="question files (eval YAML)")
    args = parser.parse_args()
    artifacts = [spec.split("=", 1) for spec in args.kb]
    results: dict[str, dict[Path, dict[str, tuple[int, int]]]] = {}
    for name, path in artifacts:
        kb = KnowledgeBase.open(path)
        results[name] = {f: summary(outcomes(kb, f)) for f in args.files}
    base = artifacts[0][0]
    print("| file | figure | " + " | ".join(name for name, _ in artifacts) + " |")
    print("|---|---|" + "---|" * len(artifacts))
    for f in args.files:
        for figure, (_, of) in results[base][f].items():
            if not of:
                continue
            cells = [f"{results[name][f][figure][0]}/{of}" for name, _ in artifacts]
            print(f"| {f.name} | {figure} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
