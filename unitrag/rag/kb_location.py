"""Where a knowledge base is opened from: an artifact's path or a published database's postgresql:// URL.

What ``KnowledgeBase.open`` is given is checked here, each argument into its one type, before anything is read:
a libpq keyword string, another scheme, an empty path or an LLM object passed as a config is a clear error,
never an AttributeError in the middle of a question.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Config, looks_like_database
from ..errors import InvalidArgument
from ..providers.embedders import Embedder
from .arguments import describe, readable
from .store.artifact_store import ChunkStore

if TYPE_CHECKING:
    from ..postgres.url import DatabaseUrl


def load_store(path: "str | Path | DatabaseUrl") -> ChunkStore:
    """The chunks of an artifact (a path) or of a published database (a postgresql:// URL), loaded."""
    store: ChunkStore
    check_location(path)
    scheme, separator, _ = str(path).partition("://")
    if not separator and not isinstance(path, Path) and looks_like_database(str(path)):
        raise InvalidArgument("knowledge base: a libpq keyword string (host=... dbname=...) is not a location "
                              "unitrag opens: give postgresql://user@host/dbname, the password from PGPASSWORD or "
                              "~/.pgpass (the text given is not repeated: it may hold a password)")
    if separator and scheme not in ("postgres", "postgresql"):
        raise InvalidArgument(f"knowledge base {scheme}://...: not a location unitrag opens; give an artifact path "
                              "(dist/kb.duckdb) or a postgresql:// URL published with `unitrag publish`")
    if separator:  # a postgresql:// URL, published with `unitrag publish`
        from ..postgres.url import DatabaseUrl
        from .store.pg_store import PgChunkStore

        store = PgChunkStore.load(path if isinstance(path, DatabaseUrl) else str(path))  # str() of one hides the password
    else:
        store = ChunkStore.load(Path(path))
    return store


def check_location(path: object) -> None:
    """What ``open`` is given is a path or a URL that says something, before anything reads it."""
    from ..postgres.url import DatabaseUrl

    if isinstance(path, DatabaseUrl):
        return
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise InvalidArgument(f"knowledge base: expected an artifact path (dist/kb.duckdb) or a postgresql:// URL, "
                              f"got {describe(path)}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("knowledge base: empty path: give an artifact path (dist/kb.duckdb) or a postgresql:// URL")
    readable(text, "knowledge base")


def open_arguments(config: Any, embedder: Any, llm: Any) -> tuple[Config, Any]:
    """``open``'s config and LLM, each of its one type: a spec string for an embedder or an LLM object for a config
    would fail later, as an AttributeError in the middle of a question."""
    if config is not None and not isinstance(config, Config):
        raise InvalidArgument(f"config: expected a unitrag.config.Config (load_config() reads unitrag.toml), got "
                              f"{describe(config)}")
    if embedder is not None and not isinstance(embedder, Embedder):
        raise InvalidArgument(f"embedder: expected an Embedder (unitrag.providers.embedders.load_embedder(spec)), got "
                              f"{describe(embedder)}; without one the artifact's own model is loaded")
    config = config or Config()
    if isinstance(llm, str):  # a spec, as config ``llm`` takes it ("none": answer extractively)
        return config.with_overrides(llm=llm), None
    if llm is not None and not callable(getattr(llm, "complete", None)):
        raise InvalidArgument(f"llm: expected an LLM (unitrag.providers.llm.load_llm(spec)) or a spec string, got "
                              f"{describe(llm)}")
    return config, llm
