"""An artifact whose tables do not hold what its manifest counts is refused at open, not served with a part missing."""

from __future__ import annotations

import duckdb
import pytest

from unitrag.artifact.reader import ArtifactDamaged
from unitrag.rag.store.artifact_store import ChunkStore


@pytest.mark.parametrize("table", ["guard_rules", "guard_model", "guard_examples"])
def test_an_artifact_with_its_guard_emptied_is_damaged_not_answered_with_the_guard_off(workspace, table: str) -> None:
    """An attacker's copy with `DELETE FROM guard_rules` answered "crushing chest pain right now" as if no rule existed,
    and a running server took the swapped file as a good reload."""
    artifact = workspace.root / "dist" / "kb.duckdb"
    assert ChunkStore.load(artifact).guard_rules  # the intact one opens
    with duckdb.connect(str(artifact)) as con:
        con.execute(f"DELETE FROM {table}")
    with pytest.raises(ArtifactDamaged, match=f"in {table}, the table holds 0.*unitrag build --full"):
        ChunkStore.load(artifact)
