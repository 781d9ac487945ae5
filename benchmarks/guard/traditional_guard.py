"""The guard on questions in traditional characters: each Chinese question of the files converted, then screened three ways.

Every question that OpenCC's ``s2twp`` changes (Taiwan's characters and wording) is screened as
written (simplified), converted and given to the guard as typed (``Guard.check``: its patterns
fold the script, its classifier sees the text as typed), and converted as the runtime screens it
(``KnowledgeBase.screen``: folded to the content's script first). Printed per file and label: how
many got the right outcome (a red flag stopped as one; a look-alike, caution or ordinary question
not stopped; an out-of-scope question refused). Accuracy, not time.

    .venv/bin/python benchmarks/guard/traditional_guard.py --kb dist/kb.duckdb content/eval/guard4_dev.yaml \\
        content/eval/guard5_dev.yaml content/eval/guard_framing_dev.yaml benchmarks/guard/everyday_dev.yaml
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from traditional import knowledge_base_and_files, traditional_twin  # noqa: E402

STOPS = ("red_flag", "out_of_scope")


def right(label: str, outcome: str) -> bool:
    if label in STOPS:
        return outcome == label
    return outcome not in STOPS  # pass, caution or an ordinary question: answered


def main() -> None:
    from unitrag.content.registry import load_questions

    kb, files = knowledge_base_and_files(__doc__.splitlines()[0])
    print("| file | label | questions converted | right: simplified / traditional as typed → as the runtime screens it |")
    print("|---|---|---|---|")
    for path in files:
        counts: Counter[tuple[str, str]] = Counter()
        for loaded in load_questions([path], []):
            q = loaded.question
            traditional = traditional_twin(q.question)
            if traditional is None:
                continue
            label = q.guard or "ordinary"
            counts[label, "n"] += 1
            for way, outcome in (("simplified", kb.guard.check(q.question, "zh")), ("typed", kb.guard.check(traditional, "zh")),
                                 ("screened", kb.screen(traditional, "zh"))):
                counts[label, way] += right(label, outcome.type if outcome else "pass")
        for label in sorted({label for label, _ in counts}):
            print(f"| {path.name} | {label} | {counts[label, 'n']} | {counts[label, 'simplified']} / "
                  f"{counts[label, 'typed']} → {counts[label, 'screened']} |")


if __name__ == "__main__":
    main()
