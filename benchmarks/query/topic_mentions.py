"""What finding the topics a question names costs, for two taxonomies in one process.

Usage (from the repository root)::

    git show 5b9ed96:content/topics.yaml > /tmp/topics_before.yaml
    .venv/bin/python benchmarks/query/topic_mentions.py /tmp/topics_before.yaml content/topics.yaml [--rounds 3]

Every question of the dev sets is named once per pass (``CrossLingual._named``, the regex pass a search
runs once per distinct question; its LRU cache is bypassed), the two taxonomies alternating so that load
on shared cores hits both alike. Prints the mean per question for each and the ratio, then the time
the new taxonomy takes on a few hostile questions of the longest length ``ask`` accepts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks" / "common"))  # the shared helpers

from measure import Timer, machine, ratio  # noqa: E402
from unitrag.compiler.tables import topic_rows  # noqa: E402
from unitrag.config import Config  # noqa: E402
from unitrag.content.models import Taxonomy  # noqa: E402
from unitrag.content.registry import dev_question_files  # noqa: E402
from unitrag.rag.search.broaden import Broadener
from unitrag.rag.search.crosslingual import CrossLingual


def taxonomy_rows(path: Path) -> list[dict[str, Any]]:
    """topics.yaml as rows of the artifact's topics table, as the build writes them."""
    return topic_rows(Taxonomy.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    questions = [q["question"] for path in dev_question_files(REPO / "content")
                 for q in yaml.safe_load(path.read_text(encoding="utf-8")) or []]
    namers = {name: CrossLingual(Broadener.from_rows(taxonomy_rows(path)), frozenset({"en", "zh"}))
              for name, path in (("before", args.before), ("after", args.after))}
    per_question: dict[str, list[float]] = {name: [] for name in namers}
    for _ in range(args.rounds):
        for name, namer in namers.items():
            with Timer() as t:
                for question in questions:
                    namer._named(question)
            per_question[name].append(t.s * 1000 / len(questions))
    print(machine())
    print(f"{len(questions)} dev questions, {args.rounds} rounds")
    for name, values in per_question.items():
        print(f"{name}: {len(namers[name].broadener.topics)} topics, {min(values):.3f}-{max(values):.3f} ms per question")
    print(f"after / before: {ratio(min(per_question['after']), min(per_question['before']))} (best rounds)")
    longest = Config().max_question_chars  # what ask lets through: hostile runs of shorthand, false friends, hyphens
    for hostile in ("vit" + "-" * (longest - 4) + "x", ("vit " * longest)[:longest], "高铁" * (longest // 2),
                    ("vitamin-" * longest)[:longest]):
        with Timer() as t:
            namers["after"]._named(hostile)
        print(f"after, a hostile {len(hostile)}-character question ({hostile[:12]!r}...): {t.s * 1000:.1f} ms")


if __name__ == "__main__":
    sys.exit(main())
