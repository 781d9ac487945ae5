"""Fixtures shared across test folders: a built copy of the bundled sample content, made once per session
with the real default embedder (the e2e and PostgreSQL tests both use it, so it is built once)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from unitrag.compiler.pipeline import BuildReport, build
from unitrag.config import Config

REPO = Path(__file__).resolve().parents[1]
# litellm's import would fetch its price list from the network (three retries, then a warning) in any test that
# imports it before a unitrag provider has set this: no test may reach past the package registries
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@dataclass
class Workspace:
    root: Path

    @property
    def config(self) -> Config:
        return Config(
            content_dir=self.root / "content", artifact=self.root / "dist" / "kb.duckdb",
            prompts_dir=self.root / "prompts", cache_dir=self.root / "cache",
            calibration_file=self.root / "calibration.json",
        )

    @property
    def artifact(self) -> Path:
        return self.config.artifact

    def build(self, **kwargs: object) -> BuildReport:
        return build(self.config, **kwargs)  # type: ignore[arg-type]

    def drop_guard_examples(self, rule_id: str) -> None:
        """Remove one guard rule's ``examples`` from this workspace's guard.yaml."""
        import yaml

        path = self.config.content_dir / "guard.yaml"
        rules = yaml.safe_load(path.read_text(encoding="utf-8"))
        for rule in rules:
            if rule["id"] == rule_id:
                del rule["examples"]
        path.write_text(yaml.safe_dump(rules, allow_unicode=True, sort_keys=False), encoding="utf-8")


@pytest.fixture(scope="session")
def built_sample(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, BuildReport]:
    root = tmp_path_factory.mktemp("sample")
    shutil.copytree(REPO / "content", root / "content")
    shutil.copytree(REPO / "prompts", root / "prompts")
    if (REPO / "calibration.json").exists():
        shutil.copy(REPO / "calibration.json", root / "calibration.json")
    ws = Workspace(root)
    return ws, ws.build()


@pytest.fixture
def workspace(built_sample: tuple[Workspace, BuildReport], tmp_path: Path) -> Workspace:
    """A private copy of the built sample: content, artifact and embedding cache."""
    base, _ = built_sample
    for name in ("content", "prompts", "dist", "cache"):
        shutil.copytree(base.root / name, tmp_path / name)
    if (base.root / "calibration.json").exists():
        shutil.copy(base.root / "calibration.json", tmp_path / "calibration.json")
    return Workspace(tmp_path)


@pytest.fixture
def requests(monkeypatch: pytest.MonkeyPatch) -> Any:
    """What litellm is about to send, mocked or real: ``requests.messages`` holds each request's messages."""
    import litellm
    from litellm.integrations.custom_logger import CustomLogger

    class Requests(CustomLogger):
        def __init__(self) -> None:
            super().__init__()
            self.messages: list[list[dict[str, Any]]] = []

        def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:  # called before every API call
            self.messages.append(list(messages))

    recorder = Requests()
    # input_callback, not litellm.callbacks: litellm copies `callbacks` into its internal lists
    # on the first call and never removes them, so recorders would leak between tests.
    monkeypatch.setattr(litellm, "input_callback", [recorder])
    return recorder
