"""A fresh ``unitrag init`` in a temporary folder, and the compiler tests' fake embedder to build it in milliseconds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from unitrag.scaffold import init_knowledge_base

REPO = Path(__file__).resolve().parents[2]


def _fake_embedder_class() -> type:
    """``FakeEmbedder`` of tests/compiler/conftest.py (conftest modules are not importable by name)."""
    spec = importlib.util.spec_from_file_location("compiler_conftest", REPO / "tests" / "compiler" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FakeEmbedder


@pytest.fixture
def embedder() -> object:
    """An embedder with deterministic hash vectors: the build's logic without loading a model."""
    return _fake_embedder_class()()


@pytest.fixture
def fresh_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A knowledge base as ``unitrag init`` writes it, made the working folder (its unitrag.toml applies)."""
    kb = tmp_path / "kb"
    init_knowledge_base(kb)
    monkeypatch.chdir(kb)
    return kb
