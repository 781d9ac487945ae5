"""What the patterns' word prefilter (``content.text.literal_prefilter``) saves the guard, and whether it is exact.

Time: the guard's own time per question (``timings["guard"]``: everything but the embedding, which is cached after
a first pass) over question files, p50 and p90, with the prefilter and without it (every pattern searched, as before
it), in alternating rounds of the same run; the ratio is without / with. Exactness (``--property``): every cue
pattern and every pattern of a guard.yaml in the repository against every string of every YAML file here (~40,000):
a pattern the prefilter skips must match nothing (the test checks a third of the guard texts).

Usage: ``.venv/bin/python benchmarks/guard/prefilter_time.py dist/kb.duckdb content/eval/guard13_test.yaml
benchmarks/guard/ordinary3_test.yaml [--rounds 3] [--property]`` (a figure names its CPU and load average).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
from pathlib import Path
from unittest import mock

import yaml

from unitrag.config import load_config
from unitrag.content import guard_rules
from unitrag.content.guard_rules import compile_pattern
from unitrag.content.registry import load_questions
from unitrag.content.text.lang import normalize_question
from unitrag.content.text.literal_prefilter import Prefilter, fold, prefilter_of
from unitrag.rag.guard import framing
from unitrag.rag.guard.framing import _COMPILED
from unitrag.rag.knowledge_base import KnowledgeBase

ROOT = Path(__file__).resolve().parents[2]
#: Without the prefilter: every pattern searched, as before it (the cues' and the rules' prefilter replaced)
SEARCH_ALWAYS = Prefilter(None)


def guard_ms(kb: KnowledgeBase, questions: list[tuple[str, str]]) -> list[float]:
    spent = []
    for question, lang in questions:
        timings: dict[str, float] = {}
        kb.screen(question, lang, timings)
        spent.append(timings.get("guard", 0.0))
    return spent


def timing(artifact: Path, files: list[Path], rounds: int) -> None:
    kb = KnowledgeBase.open(artifact, config=load_config())
    for path in files:
        questions = [(q.question.question, q.question.lang) for q in load_questions([path], [])]
        guard_ms(kb, questions)  # embeddings cached, patterns and caches warm
        runs: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(rounds):
            with mock.patch.object(framing, "prefilter_of", lambda source, flags=0: SEARCH_ALWAYS), \
                    mock.patch.object(guard_rules, "prefilter_of", lambda source, flags=0: SEARCH_ALWAYS):
                runs["without"] += guard_ms(kb, questions)
            runs["with"] += guard_ms(kb, questions)
        p50 = {name: statistics.median(ms) for name, ms in runs.items()}
        p90 = {name: statistics.quantiles(ms, n=10)[-1] for name, ms in runs.items()}
        print(f"{path} ({len(questions)} questions × {rounds}): p50 {p50['without']:.2f} → {p50['with']:.2f} ms "
              f"(×{p50['without'] / p50['with']:.1f}), p90 {p90['without']:.2f} → {p90['with']:.2f} ms")


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in strings(item)]


def exactness() -> None:
    skip = (".venv", "site-packages", "node_modules")
    yamls = [p for p in ROOT.glob("**/*.yaml") if not any(part in p.parts for part in skip)]
    patterns = [(kind, p.pattern, p.flags) for kind, compiled in _COMPILED.items() for p in compiled]
    texts: set[str] = set()
    for path in yamls:
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue
        texts.update(normalize_question(t) for t in strings(loaded) if len(t) < 4000)
        if path.name == "guard.yaml":
            patterns += [(f"{path}:{rule['id']}", compile_pattern(source).pattern, re.IGNORECASE)
                         for rule in loaded or [] for sources in (rule.get("patterns") or {}).values()
                         for source in sources]
    folded = {text: fold(text) for text in texts}
    skipped = wrong = 0
    for where, source, flags in patterns:
        prefilter, compiled = prefilter_of(source, flags), re.compile(source, flags)
        for text in texts:
            if not prefilter.may_match(folded[text]):
                skipped += 1
                if compiled.search(text):
                    wrong += 1
                    print(f"WRONG {where}: {source[:60]!r} skipped on {text[:60]!r}")
    with_words = sum(prefilter_of(source, flags).words is not None for _, source, flags in patterns)
    print(f"{len(patterns)} patterns ({with_words} with words) × {len(texts)} texts: {skipped} searches skipped "
          f"({skipped / (len(patterns) * len(texts)):.1%}), {wrong} of them would have matched")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact", type=Path)
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--property", action="store_true", help="also check exactness over every YAML string here")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    timing(args.artifact, args.questions, args.rounds)
    if args.property:
        exactness()


if __name__ == "__main__":
    main()
