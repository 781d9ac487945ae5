"""Does ``unitrag calibrate``'s verdict predict the held-out outcome? Per knowledge base, the fit against the default.

For each folder (built): ``run_calibration`` on its dev files, as ``unitrag calibrate`` runs it; then, over the same
dev questions, the fitting procedure's out-of-sample decisions (5-fold) beside the default gate's, paired: ``b``
questions the fit gets right and the default wrong, ``c`` the reverse, and the verdict's sign test on them (``p``); then both gates on the test files (each
measured with its own cross-language corrections). The "not found" F1 here is the gate's alone (``eval`` also answers
an author's own question and one a single span states whole, whatever the gate). Accuracy, not time.

    .venv/bin/python benchmarks/quality/calibration_outcomes.py examples/*/ benchmarks/teams/*/
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from unitrag.config import load_config
from unitrag.content.registry import load_questions
from unitrag.rag.calibrate.calibration import measure, run_calibration
from unitrag.rag.calibrate.cross_validation import not_found_f1
from unitrag.rag.calibrate.gate_fit import gate_probabilities
from unitrag.rag.calibration_file import default_gates, gate_for
from unitrag.rag.gate import pipeline_id
from unitrag.rag.knowledge_base import KnowledgeBase


def outcome(folder: Path) -> dict[str, object]:
    os.chdir(folder)
    kb = KnowledgeBase.open(Path("dist/kb.duckdb"), config=load_config())
    files = sorted(Path("content/eval").glob("questions*.yaml"))
    dev = load_questions([p for p in files if "_test" not in p.name], [])
    test = load_questions([p for p in files if "_test" in p.name], [])
    result = run_calibration(kb, dev)
    row: dict[str, object] = {"kept": result.verdict.kept, "cv": result.verdict.fitted_cv_f1,
                              "default": result.verdict.default_f1}
    default = gate_for(default_gates(), pipeline_id(kb.store.manifest, kb.config))
    if result.fitted is None or default is None:
        return row
    row["b"], row["c"], row["p"] = result.verdict.fixed, result.verdict.broke, result.verdict.p_value
    for name, gate in (("test_fit", result.fitted), ("test_default", default)):
        if gate.lang_offsets is not None and kb.retriever.crosslingual is not None:
            kb.retriever.crosslingual.offsets = dict(gate.lang_offsets)
        samples, _ = measure(kb, test)
        row[name] = not_found_f1(gate_probabilities(gate, samples), [s.answerable for s in samples])
    kb.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    start = Path.cwd()
    print("| knowledge base | kept | dev: fit out of sample / default | b / c (p) | test: fit / default |")
    print("|---|---|---|---|---|")
    for folder in parser.parse_args().folders:
        row = outcome(folder.resolve())
        os.chdir(start)
        f = lambda v: "–" if v is None else f"{v:.3f}"  # noqa: E731
        print(f"| {folder} | {row['kept']} | {f(row['cv'])} / {f(row['default'])} | {row.get('b', '–')} / "
              f"{row.get('c', '–')} ({f(row.get('p'))}) | {f(row.get('test_fit'))} / {f(row.get('test_default'))} |")


if __name__ == "__main__":
    main()
