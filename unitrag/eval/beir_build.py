"""A BEIR corpus as ``document`` units, compiled by the real build into a cached artifact.

Evaluating through the same build and runtime an app uses is the point: chunking,
BM25 terms and embeddings are exactly those of ``unitrag build``. The content tree is
written once per corpus (keyed by its hash) and the artifact once per embedder; the
build's embedding cache makes a rebuild after an interruption, or a second data set
sharing documents, cost only what is new.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from ..compiler.pipeline import Progress, build
from ..config import Config
from ..content.files import CONTROL_CHARACTERS
from ..providers.embedders import embedder_id
from ..content.text.lang import detect_lang
from .beir import BeirDataset, BeirDoc

CONVERTER_VERSION = "1"  # bump when the unit text changes: the cached content is then rewritten
TOPIC = "corpus"
TOPICS_YAML = f"""\
# One topic for every document of the corpus (written by unitrag eval --beir).
topics:
  - id: {TOPIC}
    names: {{en: "Corpus", zh: "语料"}}
"""
_MARKDOWN_LINE = re.compile(r"^(\s{0,3})(#|=+\s*$|-{2,}\s*$|>)", re.MULTILINE)  # would become headings or quotes


@dataclass(frozen=True)
class BeirArtifact:
    path: Path
    doc_ids: dict[str, str]  # unit id → the data set's document id
    skipped: list[str]  # documents with neither title nor text
    built: bool  # False: the cached artifact was already up to date


def beir_artifact(dataset: BeirDataset, config: Config, cache_root: Path, progress: Progress | None = None) -> BeirArtifact:
    """Build (or reuse) the artifact of ``dataset``'s corpus for ``config.embedder``."""
    folder = Path(cache_root) / "beir" / f"{_slug(dataset.name)}-{dataset.corpus_hash[:12]}-v{CONVERTER_VERSION}"
    content, done = folder / "content", folder / "content.complete"
    if not done.is_file():  # written fully once; a half-written tree from an interrupted run is redone
        shutil.rmtree(content, ignore_errors=True)
        doc_ids, skipped = write_units(dataset.corpus, content)
        (folder / "doc_ids.json").write_text(json.dumps({"doc_ids": doc_ids, "skipped": skipped}), encoding="utf-8")
        done.write_text(dataset.corpus_hash, encoding="utf-8")
    saved = json.loads((folder / "doc_ids.json").read_text(encoding="utf-8"))
    artifact = folder / f"{_slug(embedder_id(config.embedder))}.duckdb"
    # retrieval only: no prompts, no gate, so the artifact depends on the corpus and the embedder alone
    settings = replace(config, content_dir=content, artifact=artifact, prompts_dir=folder / "no-prompts",
                       calibration_file=folder / "no-calibration.json")
    report = build(settings, progress=progress)
    return BeirArtifact(artifact, saved["doc_ids"], saved["skipped"], report.written)


def write_units(corpus: list[BeirDoc], content: Path) -> tuple[dict[str, str], list[str]]:
    """One Markdown ``document`` unit per corpus document; returns (unit id → doc id, skipped doc ids)."""
    (content / "documents").mkdir(parents=True, exist_ok=True)
    (content / "topics.yaml").write_text(TOPICS_YAML, encoding="utf-8")
    doc_ids: dict[str, str] = {}
    skipped: list[str] = []
    for doc in corpus:
        # content refuses control characters; corpora hold a few (mojibake such as \x96 in SciFact): spaces
        text, title = CONTROL_CHARACTERS.sub(" ", doc.text).strip(), " ".join(CONTROL_CHARACTERS.sub(" ", doc.title).split())
        if not text and not title:
            skipped.append(doc.id)
            continue
        unit_id = unit_id_for(doc.id, doc_ids)
        doc_ids[unit_id] = doc.id
        meta = {
            "kind": "document", "id": unit_id, "title": title or _lead(text), "lang": detect_lang(f"{title} {text}"),
            "topics": [TOPIC], "source": f"BEIR {doc.id}", "citationIds": [],
        }
        front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100_000)
        body = _MARKDOWN_LINE.sub(r"\1\\\2", text or title)
        (content / "documents" / f"{unit_id}.md").write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")
    return doc_ids, skipped


def unit_id_for(doc_id: str, taken: dict[str, str]) -> str:
    """A unit id (a slug) for a document id; a short hash keeps ids that slug alike apart."""
    base = "doc-" + (_slug(doc_id) or "x")
    if base not in taken and len(base) <= 100:
        return base
    return f"{base[:80]}-{hashlib.sha1(doc_id.encode('utf-8')).hexdigest()[:8]}"


def _lead(text: str, words: int = 12) -> str:
    head = text.split()[:words]
    return " ".join(head) + ("…" if len(text.split()) > words else "")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
