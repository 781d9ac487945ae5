"""A tiny workspace (the bundled registries and two rules) and a fake embedder: builds in milliseconds."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from unitrag.compiler.pipeline import BuildReport, build
from unitrag.config import Config
from unitrag.providers.embedders import Embedder

REPO = Path(__file__).resolve().parents[2]
RULES = ("en-blood-pressure-severe.md", "en-blood-pressure-stage-1.md")


class FakeEmbedder(Embedder):
    """Deterministic vectors from a hash of the text; counts what it was asked to embed."""

    provider = "fake"

    def __init__(self, model: str = "tiny") -> None:
        super().__init__(model)
        self.calls = 0
        self.texts = 0

    @property
    def dim(self) -> int:
        return 8

    def embed(self, texts: list[str], *, query: bool = False) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8).astype(np.float32) + 1 for t in texts]
        matrix = np.stack(rows)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


class TinyWorkspace:
    """Bundled topics, citations, guard rules and prompts, plus two rules; built with ``FakeEmbedder``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.embedder = FakeEmbedder()
        content = root / "content"
        (content / "rules").mkdir(parents=True)
        for name in ("topics.yaml", "guard.yaml", "citations"):
            src = REPO / "content" / name
            (shutil.copytree if src.is_dir() else shutil.copy)(src, content / name)
        for rule in RULES:
            shutil.copy(REPO / "content" / "rules" / rule, content / "rules" / rule)
        shutil.copytree(REPO / "prompts", root / "prompts")
        self.config = Config(
            content_dir=content, artifact=root / "dist" / "kb.duckdb", prompts_dir=root / "prompts",
            cache_dir=root / "cache", calibration_file=root / "calibration.json", embedder="fake:tiny",
        )

    @property
    def content(self) -> Path:
        return self.config.content_dir

    @property
    def artifact(self) -> Path:
        return self.config.artifact

    def build(self, config: Config | None = None, **kwargs: object) -> BuildReport:
        return build(config or self.config, embedder=self.embedder, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TinyWorkspace:
    monkeypatch.chdir(tmp_path)
    return TinyWorkspace(tmp_path)
