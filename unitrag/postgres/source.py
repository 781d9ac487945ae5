"""The artifact as a publish reads it: chunk hashes to diff first; rows, vectors and registries only when sent.

A publish that changes one chunk of 100,000 reads three short columns, the manifest and
that one chunk: diffing costs what the plan costs, not what the artifact weighs.
"""

from __future__ import annotations

import hashlib
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ..artifact.reader import has_table, open_artifact, read_manifest, read_vectors, rows_as_dicts
from ..compiler.hashing import canonical_json
from ..config import identity_hash
from .schema import REGISTRIES

#: Registries hashed from their stored rows, never from the manifest: the build records the guard examples'
#: hash before they are embedded (a ``--reconcile`` build may store fewer) and none for the fitted model.
HASHED_FROM_ROWS = ("guard_examples", "guard_model")


@dataclass
class ArtifactSource:
    path: Path
    manifest: dict[str, Any]
    hashes: dict[str, tuple[str, str]]  # chunk_id -> (content_hash, meta_hash)
    #: The build's own hash of each registry (the manifest's ``table_hashes``), else one computed from the rows.
    table_hashes: dict[str, str]
    _tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    #: One read-only connection for every batch (opening the artifact costs ~50-300 ms; a publish has many batches).
    _open: ExitStack = field(default_factory=ExitStack, repr=False)
    _con: Any = field(default=None, repr=False)

    @property
    def dim(self) -> int:
        return int(self.manifest["embedder"]["dim"])

    @property
    def embedder_id(self) -> str:
        return str(self.manifest["embedder"]["id"])

    def table(self, name: str) -> list[dict[str, Any]]:
        """A registry table's rows (read on first use)."""
        if name not in self._tables:
            self._tables[name] = _table(self._connection(), name)
        return self._tables[name]

    def chunks(self, ids: list[str]) -> tuple[list[dict[str, Any]], np.ndarray]:
        """These chunks' rows (no embedding) and vectors, in this order."""
        con = self._connection()
        con.register("wanted", pa.table({"chunk_id": pa.array(ids, type=pa.string())}))
        try:
            found = con.execute(
                "SELECT * EXCLUDE (embedding) FROM chunks WHERE chunk_id IN (SELECT chunk_id FROM wanted) ORDER BY chunk_id"
            ).to_arrow_table().to_pylist()
            vector_ids, matrix = read_vectors(con, "WHERE chunk_id IN (SELECT chunk_id FROM wanted)")
        finally:
            con.unregister("wanted")
        assert vector_ids == [row["chunk_id"] for row in found], "chunk order of metadata and vectors must agree"
        position = {cid: i for i, cid in enumerate(vector_ids)}
        order = [position[cid] for cid in ids]
        return [found[i] for i in order], matrix[order]

    def rows(self, ids: list[str]) -> list[dict[str, Any]]:
        return self.chunks(ids)[0]

    def close(self) -> None:
        """Close the artifact, if a batch opened it."""
        self._open.close()
        self._con = None

    def _connection(self) -> Any:
        if self._con is None:
            self._con = self._open.enter_context(open_artifact(self.path))
        return self._con


def read_source(path: Path) -> ArtifactSource:
    """What the plan needs: the manifest, every chunk's two hashes and every registry's hash."""
    with open_artifact(path) as con:
        manifest = read_manifest(con)
        table = con.execute("SELECT chunk_id, content_hash, meta_hash FROM chunks ORDER BY chunk_id").to_arrow_table()
        recorded = {k: v for k, v in (manifest.get("table_hashes") or {}).items() if k not in HASHED_FROM_ROWS}
        tables = {name: _table(con, name) for name in REGISTRIES if name not in recorded}
    hashes = dict(zip(table.column("chunk_id").to_pylist(),
                      zip(table.column("content_hash").to_pylist(), table.column("meta_hash").to_pylist())))
    computed = {name: rows_digest(rows) for name, rows in tables.items()}
    return ArtifactSource(
        path=path, manifest=manifest, hashes=hashes,
        table_hashes={**{name: recorded.get(name) or computed[name] for name in REGISTRIES},
                      "identity": identity_hash(manifest.get("identity"))},  # not a table: the manifest says it
        _tables=tables,
    )


def rows_digest(rows: list[dict[str, Any]]) -> str:
    """A registry's hash from its rows, vectors hashed as float32 bytes: JSON-encoding the guard examples'
    vectors took 2 s of every publish (a no-op one included) for 1,913 examples."""
    hashed = hashlib.sha256()
    for row in rows:
        vectors = {k: v for k, v in row.items() if isinstance(v, list) and v and isinstance(v[0], float)}
        hashed.update(canonical_json({k: v for k, v in row.items() if k not in vectors}).encode("utf-8"))
        for name in sorted(vectors):
            hashed.update(name.encode("utf-8") + np.asarray(vectors[name], dtype="<f4").tobytes())
    return hashed.hexdigest()


def _table(con: Any, name: str) -> list[dict[str, Any]]:
    """A registry's rows; an empty list for one an older artifact does not have."""
    return rows_as_dicts(con, f"SELECT * FROM {name} ORDER BY 1") if has_table(con, name) else []
