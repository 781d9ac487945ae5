"""Every labelled question of several knowledge bases, answered with the current code: what changed since a saved run?

Usage (each folder built with ``unitrag build``; its ``content/eval/questions*.yaml`` are the sets, a name
with ``_test`` a test set, any other a dev set)::

    .venv/bin/python benchmarks/quality/sweep.py . examples/aquarium examples/bike-care examples/home-coffee \
        examples/houseplants benchmarks/teams/* --out /tmp/before.json
    # change the code, then
    .venv/bin/python benchmarks/quality/sweep.py <the same folders> --out /tmp/after.json --against /tmp/before.json

Each set goes through ``unitrag eval --questions <set> --variants full --json`` in its folder, as a team would run
it, and the units' own questions with facts (the content tests, ``unitrag eval --unit-questions``) as a third
split. Per split it prints Success@5 (answerable questions whose unit is in the top five), "not found"
(pooled precision, recall and F1, and the mean F1 over the sets), the facts the extractive answer states (a
"not found" answer states none; also split by whether the question is asked across languages, its first expected unit
among the sources written in the other language) and the answers stating every fact. With ``--against``, the totals of both runs
and every question whose outcome moved. Counts, not timings: the load does not change them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import duckdb

from unitrag.content.registry import load_questions

UNITRAG = Path(sys.executable).with_name("unitrag")


def question_sets(folder: Path) -> list[Path]:
    return sorted((folder / "content" / "eval").glob("questions*.yaml"))


def split_of(path: Path) -> str:
    return "test" if "_test" in path.stem else "dev"


def outcomes(folder: Path, questions: Path | None) -> list[dict]:
    """One row per question of ``questions`` (None: the units' own questions with facts, the content tests): its
    label and what the answer did."""
    which = ["--questions", str(questions.relative_to(folder)), "--variants", "full"] if questions else ["--unit-questions"]
    run = subprocess.run([str(UNITRAG), "eval", *which, "--json"], cwd=folder, capture_output=True, text=True)
    if run.returncode not in (0, 1) or not run.stdout.strip():  # 1: content tests failed, as reported
        raise SystemExit(f"{folder}: eval {' '.join(which)} failed:\n{run.stderr.strip()}")
    if questions is None:
        return [{"key": f"{folder.name}/units/{q['id']}", "split": "units", "set": f"{folder.name}/units",
                 "question": q["question"], "label": "answerable", "hit": float(q["found"]), "nf_expected": False,
                 "nf_got": q["not_found"], "facts": _facts(q)["facts"], "stated": _facts(q)["stated"]}
                for q in json.loads(run.stdout)["questions"] if q.get("answer_facts")]
    rows = []
    expected = _expected_units(questions)
    for q in json.loads(run.stdout)["questions"]:
        facts = _facts(q)
        full = (q.get("variants") or {}).get("full") or {}
        answering = [u for u in full.get("top", []) if u in expected.get(q["id"], ())] or expected.get(q["id"], [])
        unit_lang = _unit_langs(folder).get(answering[0]) if answering else None
        rows.append({
            "key": f"{folder.name}/{questions.name}/{q['id']}", "split": split_of(questions), "set": f"{folder.name}/{questions.name}",
            "question": q["question"], "label": q["label"],
            "hit": full.get("success@5"), "nf_expected": (q.get("not_found") or {}).get("expected"),
            "nf_got": (q.get("not_found") or {}).get("got"),
            "facts": facts.get("facts", 0), "stated": facts.get("stated", 0),
            "across": None if unit_lang is None else unit_lang != q.get("lang"),
        })
    return rows


def _expected_units(questions: Path) -> dict[str, list[str]]:
    """Each question's expected units, read as eval reads the file."""
    return {item.question.id: list(item.question.expected_units or []) for item in load_questions([questions], [])}


@cache
def _unit_langs(folder: Path) -> dict[str, str]:
    """Each unit's language in the folder's artifact: a question is asked across languages when the first of its
    expected units among the sources (or in its label) is written in the other one."""
    with duckdb.connect(str(folder / "dist" / "kb.duckdb"), read_only=True) as con:
        return dict(con.execute("SELECT DISTINCT unit_id, lang FROM chunks").fetchall())


def _facts(q: dict) -> dict:
    found = (q.get("answer_facts") or {}).get("extractive") or {}
    return {"facts": found.get("facts", 0), "stated": found.get("stated", 0)}


def totals(rows: list[dict]) -> dict[str, dict[str, float]]:
    out = {}
    for split in ("dev", "test", "units"):
        part = [r for r in rows if r["split"] == split]
        graded = [r for r in part if r["nf_expected"] is not None and r["nf_got"] is not None]
        tp = sum(r["nf_expected"] and r["nf_got"] for r in graded)
        fp = sum((not r["nf_expected"]) and r["nf_got"] for r in graded)
        fn = sum(r["nf_expected"] and not r["nf_got"] for r in graded)
        f1s = [_f1(*_counts([r for r in graded if r["set"] == name])) for name in sorted({r["set"] for r in graded})]
        hits = [r["hit"] for r in part if r["hit"] is not None]
        with_facts = [r for r in part if r["facts"]]
        out[split] = {
            "success@5": sum(hits), "answerable": len(hits), "nf_tp": tp, "nf_fp": fp, "nf_fn": fn,
            "nf_f1": round(_f1(tp, fp, fn), 3), "nf_f1_mean": round(sum(f1s) / len(f1s), 3) if f1s else 0.0,
            "facts": sum(r["facts"] for r in with_facts), "stated": sum(r["stated"] for r in with_facts),
            "all_stated": sum(r["stated"] == r["facts"] for r in with_facts), "with_facts": len(with_facts),
            **{f"{key}_{side}": sum(r[key] for r in with_facts if r.get("across") is across)
               for side, across in (("across", True), ("one_lang", False)) for key in ("facts", "stated")},
        }
    return out


def _counts(rows: list[dict]) -> tuple[int, int, int]:
    return (sum(r["nf_expected"] and r["nf_got"] for r in rows), sum((not r["nf_expected"]) and r["nf_got"] for r in rows),
            sum(r["nf_expected"] and not r["nf_got"] for r in rows))


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def show(name: str, total: dict[str, dict[str, float]]) -> None:
    for split, t in total.items():
        print(f"{name:>8} {split:<4}  Success@5 {t['success@5']}/{t['answerable']}   not found F1 {t['nf_f1']:.3f} "
              f"(mean over sets {t['nf_f1_mean']:.3f}; tp {t['nf_tp']} fp {t['nf_fp']} fn {t['nf_fn']})   "
              f"facts {t['stated']}/{t['facts']} (across languages {t.get('stated_across', 0)}/"
              f"{t.get('facts_across', 0)}, in one {t.get('stated_one_lang', 0)}/{t.get('facts_one_lang', 0)})   "
              f"every fact {t['all_stated']}/{t['with_facts']}")


def moved(old: list[dict], new: list[dict]) -> list[str]:
    before = {r["key"]: r for r in old}
    lines = []
    for r in new:
        o = before.get(r["key"])
        if o is None:
            continue
        what = [f"{k} {o[k]}→{r[k]}" for k in ("hit", "nf_got", "stated") if o[k] != r[k]]
        if what:
            lines.append(f"{r['key']}: {', '.join(what)}  | {r['question'][:70]}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="where to write this run's rows (JSON)")
    parser.add_argument("--against", type=Path, help="a saved run to compare with")
    args = parser.parse_args()
    rows = [row for folder in args.folders if folder.is_dir()
            for qs in [*question_sets(folder.resolve()), None] for row in outcomes(folder.resolve(), qs)]
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=0))
    if args.against:
        old = json.loads(args.against.read_text())
        show("before", totals(old))
        print("\n".join(moved(old, rows)) or "no question's outcome moved")
    show("now", totals(rows))


if __name__ == "__main__":
    main()
