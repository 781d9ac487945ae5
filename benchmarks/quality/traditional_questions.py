"""Questions in traditional characters: each labelled Chinese question converted, then retrieved three ways.

Every Chinese question of the files (no guard label, no role) that OpenCC's ``s2twp`` changes is
converted to traditional characters as written in Taiwan, then retrieved: as written (simplified),
converted with the embedder seeing the converted text (the lexical matchers fold it either way:
the state before the embedder's fold), and converted as the runtime reads it (the embedder sees
the text folded to the content's script, ``KnowledgeBase.in_content_script``). Printed per file:
the answerable questions with an expected unit in the top 5, and the questions whose "not found"
matches the label. Accuracy, not time.

    .venv/bin/python benchmarks/quality/traditional_questions.py --kb dist/kb.duckdb content/eval/questions.yaml \
        content/eval/questions3_dev.yaml content/eval/questions4_dev.yaml content/eval/questions5_dev.yaml
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))  # the shared helpers

from traditional import knowledge_base_and_files, traditional_twin  # noqa: E402


def chinese_questions(path: Path) -> list[dict[str, Any]]:
    items = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    return [q for q in items if isinstance(q, dict) and q.get("lang") == "zh" and not q.get("guard")
            and not (q.get("user") or {}).get("roles")]


def main() -> None:
    kb, files = knowledge_base_and_files(__doc__.splitlines()[0])
    print("| file | questions | Success@5: simplified / traditional, embedder unfolded → folded "
          "| not-found right: same three |\n|---|---|---|---|")
    for path in files:
        hits = {"simplified": 0, "unfolded": 0, "folded": 0}
        right = dict.fromkeys(hits, 0)
        count = answerable = 0
        for q in chinese_questions(path):
            traditional = traditional_twin(q["question"])
            if traditional is None:
                continue
            count += 1
            expected = set(q.get("expected_units") or [])
            answerable += bool(expected)
            for way, text, content_traditional in (("simplified", q["question"], False),
                                                   ("unfolded", traditional, True), ("folded", traditional, False)):
                kb._traditional = content_traditional  # True: the embedder sees the question as asked
                top = {s.unit_id for s in kb.search(text, k=5).sources}
                hits[way] += bool(expected & top)
                right[way] += kb.ask(text).not_found == (not expected)
        print(f"| {path.name} | {count} ({answerable} answerable) | {hits['simplified']} / {hits['unfolded']} → {hits['folded']} "
              f"| {right['simplified']} / {right['unfolded']} → {right['folded']} |")


if __name__ == "__main__":
    main()
