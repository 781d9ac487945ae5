"""A data set in BEIR layout: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``.

Read strictly: a data set with a broken line or a judgement naming an unknown id would
otherwise score silently wrong, so every such problem is reported with its file and
line (the first few of each kind), and nothing is evaluated.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

MAX_SHOWN = 5  # problems listed per data set; the rest are counted


class DatasetError(UserError):
    """The data set cannot be read as BEIR layout; the message names each file and line."""


@dataclass(frozen=True)
class BeirDoc:
    id: str
    title: str
    text: str


@dataclass
class BeirDataset:
    name: str
    root: Path
    corpus: list[BeirDoc]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # the split's judgements: query id → doc id → grade
    split: str
    corpus_hash: str  # sha256 of corpus.jsonl: what a cached artifact is keyed by


def load_beir(root: Path, split: str = "test") -> BeirDataset:
    """Read and check a BEIR-layout data set; raises ``DatasetError`` naming every problem found."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"data set folder {root} not found (expected BEIR layout: corpus.jsonl, queries.jsonl, qrels/)")
    qrels_path = root / "qrels" / f"{split}.tsv"
    missing = [p for p in (root / "corpus.jsonl", root / "queries.jsonl", qrels_path) if not p.is_file()]
    if missing:
        splits = sorted(p.stem for p in (root / "qrels").glob("*.tsv")) if (root / "qrels").is_dir() else []
        hint = f" (splits here: {', '.join(splits)}; pass --split)" if splits and qrels_path in missing else ""
        raise DatasetError(f"{root}: missing {', '.join(str(p.relative_to(root)) for p in missing)}{hint}")
    problems: list[str] = []
    corpus_records = _read_jsonl(root / "corpus.jsonl", ("_id",), problems)
    query_records = _read_jsonl(root / "queries.jsonl", ("_id", "text"), problems)
    corpus = [BeirDoc(str(r["_id"]), str(r.get("title") or ""), str(r.get("text") or "")) for _, r in corpus_records]
    queries = {str(r["_id"]): str(r["text"]) for _, r in query_records}
    _check_unique(root / "corpus.jsonl", [(line, str(r["_id"])) for line, r in corpus_records], problems)
    _check_unique(root / "queries.jsonl", [(line, str(r["_id"])) for line, r in query_records], problems)
    qrels = _read_qrels(qrels_path, queries, {d.id for d in corpus}, problems)
    if problems:
        shown = problems[:MAX_SHOWN] + ([f"... and {len(problems) - MAX_SHOWN} more"] if len(problems) > MAX_SHOWN else [])
        raise DatasetError("not a valid BEIR data set:\n  " + "\n  ".join(shown))
    if not qrels:
        raise DatasetError(f"{qrels_path}: no judgements")
    digest = hashlib.sha256((root / "corpus.jsonl").read_bytes()).hexdigest()
    return BeirDataset(root.resolve().name, root, corpus, queries, qrels, split, digest)


def _read_jsonl(path: Path, required: tuple[str, ...], problems: list[str]) -> list[tuple[int, dict]]:
    records = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(f"{path}:{line_no}: not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            absent = [key for key in required if not isinstance(record, dict) or record.get(key) in (None, "")]
            if absent:
                problems.append(f"{path}:{line_no}: missing {', '.join(repr(k) for k in absent)}")
                continue
            records.append((line_no, record))
    return records


def _check_unique(path: Path, ids: list[tuple[int, str]], problems: list[str]) -> None:
    first: dict[str, int] = {}
    for line, item in ids:
        if item in first:
            problems.append(f"{path}:{line}: duplicate _id {item!r} (first at line {first[item]})")
        first.setdefault(item, line)


def _read_qrels(path: Path, queries: dict[str, str], docs: set[str], problems: list[str]) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line_no, line in enumerate(handle, start=1):
            parts = line.rstrip("\n").split("\t") if "\t" in line else line.split()
            if not line.strip() or (line_no == 1 and parts[0] in {"query-id", "query_id", "qid"}):
                continue
            if len(parts) != 3 or not parts[2].strip().lstrip("-").isdigit():
                problems.append(f"{path}:{line_no}: expected 'query-id<TAB>corpus-id<TAB>score' with a whole-number score")
                continue
            qid, doc, grade = parts[0].strip(), parts[1].strip(), int(parts[2])
            if qid not in queries:
                problems.append(f"{path}:{line_no}: query {qid!r} is not in queries.jsonl")
            elif doc not in docs:
                problems.append(f"{path}:{line_no}: document {doc!r} is not in corpus.jsonl")
            else:
                qrels.setdefault(qid, {})[doc] = grade
    return qrels
