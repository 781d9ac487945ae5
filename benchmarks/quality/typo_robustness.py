"""Misspelled topic words: labelled English questions with one typo each, with and without the spelling step.

Every answerable English question of the files that contains a topic word of 5+ letters gets one
typo in one such word, chosen by a seeded random generator: a letter dropped, a letter doubled, two
neighbours swapped, or a letter replaced by its keyboard neighbour. Each variant is retrieved with
the knowledge base as configured (``rag.search.spelling`` on) and with a speller that knows no
topic word (off); printed per file: Success@5 and the share answered (not "not found"), for the
questions as written and for their misspelled variants. Accuracy, not time: the load does not matter.

With ``--pairs`` it reads natural misspellings instead (``typo_pairs.yaml``: each question as written
and as typed in a hurry, typos in any word, written from a topic list): per knowledge base, how often
the typed question's top unit is the written one's, the written one's top unit is in the typed one's
top 5, and the typed one is answered when the written one is.

    .venv/bin/python benchmarks/quality/typo_robustness.py --kb dist/kb.duckdb content/eval/questions.yaml
    .venv/bin/python benchmarks/quality/typo_robustness.py --kb dist/kb.duckdb --pairs benchmarks/quality/typo_pairs.yaml \
        --pairs-kb sample
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path
from typing import Any

KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def neighbour(ch: str, rng: random.Random) -> str:
    for row in KEYBOARD:
        if ch in row:
            i = row.index(ch)
            return rng.choice([row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)])
    return ch


def misspell(word: str, rng: random.Random) -> str:
    """One typo inside ``word`` (its first letter kept, as people rarely miss it)."""
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("drop", "double", "swap", "key"))
    if kind == "drop":
        return word[:i] + word[i + 1:]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return word[:i] + neighbour(word[i], rng) + word[i + 1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, required=True, help="a built artifact")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pairs", type=Path, help="natural misspellings (typo_pairs.yaml) instead of labelled files")
    parser.add_argument("--pairs-kb", default="sample", help="with --pairs: the pairs whose kb is this")
    parser.add_argument("files", nargs="*", type=Path, help="labelled questions (eval YAML)")
    args = parser.parse_args()

    from unitrag.content.registry import load_questions
    from unitrag.rag.knowledge_base import KnowledgeBase
    from unitrag.rag.search.spelling import Speller

    kb = KnowledgeBase.open(args.kb)
    kb.corrected("warm up")
    on, off = kb._speller, Speller([], lambda _: 0)
    if args.pairs:
        natural(kb, on, off, args.pairs, args.pairs_kb)
        return
    targets = sorted(w for w in on.targets if len(w) >= 5)
    rng = random.Random(args.seed)
    print("| file | questions | speller | S@5 as written | S@5 misspelled | answered as written | answered misspelled |")
    print("|---|---|---|---|---|---|---|")
    for path in args.files:
        pairs = []
        for loaded in load_questions([path], []):
            q = loaded.question
            if q.lang != "en" or not q.answerable or q.guard:
                continue
            words = [m for m in re.finditer(r"[A-Za-z]{5,}", q.question) if m.group().lower() in targets]
            if words:
                m = rng.choice(words)
                pairs.append((q, q.question[:m.start()] + misspell(m.group(), rng) + q.question[m.end():]))
        for name, speller in (("off", off), ("on", on)):
            kb._speller = speller
            counts = [0, 0, 0, 0]
            for q, typo in pairs:
                for j, text in enumerate((q.question, typo)):
                    sources = kb.search(text).sources
                    counts[j] += any(s.unit_id in q.expected_units for s in sources[:5])
                    counts[2 + j] += bool(sources) and kb.retriever.answerable(sources)
            n = max(len(pairs), 1)
            print(f"| {path.name} | {len(pairs)} | {name} | " + " | ".join(f"{c / n:.3f}" for c in counts) + " |")
        kb._speller = on


def natural(kb: Any, on: Any, off: Any, path: Path, name: str) -> None:
    """The typed question against the written one, speller off and on (see the module docstring)."""
    import yaml

    pairs = [p for p in yaml.safe_load(path.read_text(encoding="utf-8")) if p["kb"] == name]
    print("| knowledge base | pairs | speller | same top unit | written top unit in typed top 5 | typed answered "
          "(of written answered) | typed read differently |")
    print("|---|---|---|---|---|---|---|")
    for label, speller in (("off", off), ("on", on)):
        kb._speller = speller
        same = found = answered = written_answered = read = 0
        for pair in pairs:
            written, typed = kb.search(pair["correct"]), kb.search(pair["typed"])
            top = [s.unit_id for s in typed.sources[:5]]
            same += bool(written.sources and top and top[0] == written.sources[0].unit_id)
            found += bool(written.sources and written.sources[0].unit_id in top)
            if written.sources and kb.retriever.answerable(written.sources):
                written_answered += 1
                answered += bool(typed.sources and kb.retriever.answerable(typed.sources))
            read += typed.corrected is not None
        n = max(len(pairs), 1)
        print(f"| {name} | {len(pairs)} | {label} | {same / n:.3f} | {found / n:.3f} | "
              f"{answered}/{written_answered} | {read} |")
    kb._speller = on


if __name__ == "__main__":
    main()
