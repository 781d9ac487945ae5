"""An artifact whose tables do not hold what its manifest counts, or whose citation links were changed after the build, is refused at open."""

from __future__ import annotations

import duckdb
import pytest

from unitrag.artifact.reader import ArtifactDamaged
from unitrag.errors import UserError
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


@pytest.mark.parametrize("url", ["javascript:alert(document.domain)", "https://exa mple.org/x", "data:text/html,hi"])
def test_a_citation_url_changed_after_the_build_is_refused_at_open(workspace, url: str) -> None:
    """An attacker's ``UPDATE citations SET url = 'javascript:…'`` on a copy was served as every answer's reference link."""
    artifact = workspace.root / "dist" / "kb.duckdb"
    assert ChunkStore.load(artifact).citations  # the intact one opens
    with duckdb.connect(str(artifact)) as con:
        cited = con.execute("SELECT id FROM citations WHERE url IS NOT NULL LIMIT 1").fetchone()[0]
        con.execute("UPDATE citations SET url = ? WHERE id = ?", [url, cited])
    with pytest.raises(UserError, match=f"citation '{cited}' has a URL no reader may be sent to.*rebuild"):
        ChunkStore.load(artifact)
