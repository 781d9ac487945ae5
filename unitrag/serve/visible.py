"""What of the registries a caller may see: a citation or a topic only through content it may read.

The citation registry is bibliographic data, but the entries a knowledge base holds tell what it
covers: a guideline cited by a clinician-only unit alone says what that unit is about. So a
citation is shown only when a unit the caller may read cites it, and a topic the taxonomy names
is hidden when every unit tagged with it is one the caller may not read (a topic no unit is tagged
with is the taxonomy's own vocabulary and tells nothing of restricted content). A hidden id gets
the answer a missing one gets, after the same lookup. Access is set per unit, so a chunk's access
level is its unit's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

_NOBODY: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Visible:
    """Per registry id, the access levels of the chunks that cite it (citations) or are tagged with it (topics)."""

    citing: Mapping[str, frozenset[str]]
    tagged: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, store: Any) -> "Visible":
        """From a store's ``citation_ids``, ``topics`` and ``access`` columns: one vectorised pass each (built once
        per loaded knowledge base, so a request costs one dict lookup)."""
        access = store.columns["access"].array
        return cls(citing=levels_by_id(store.columns["citation_ids"].array, access),
                   tagged=levels_by_id(store.columns["topics"].array, access))

    def citation(self, citation_id: str, roles: Collection[str]) -> bool:
        """Whether a unit a caller holding ``roles`` may read cites ``citation_id`` (False for an unknown id too)."""
        return readable(self.citing.get(citation_id, _NOBODY), roles)

    def topic(self, topic_id: str, roles: Collection[str]) -> bool:
        """Whether the taxonomy's ``topic_id`` is shown to a caller holding ``roles``: no unit is tagged with it,
        or one it may read is."""
        levels = self.tagged.get(topic_id)
        return levels is None or readable(levels, roles)

    def topics(self, rows: list[dict[str, Any]], roles: Collection[str]) -> list[dict[str, Any]]:
        """The taxonomy as ``roles`` see it: hidden topics dropped, and dropped from the groups' members."""
        shown = []
        for row in rows:
            if not self.topic(row["id"], roles):
                continue
            members = row.get("members")
            if members and any(not self.topic(m, roles) for m in members):
                row = {**row, "members": [m for m in members if self.topic(m, roles)]}
            shown.append(row)
        return shown


def readable(levels: Collection[str], roles: Collection[str]) -> bool:
    return "public" in levels or any(level in roles for level in levels)


def levels_by_id(lists: pa.Array, access: pa.Array) -> dict[str, frozenset[str]]:
    """Each id in a list column → the access levels of the rows holding it (a row without a level: "", nobody's)."""
    ids = pc.cast(pc.list_flatten(lists), pa.string())
    levels = pc.fill_null(pc.cast(pc.take(access, pc.list_parent_indices(lists)), pa.string()), "")
    pairs = pa.table({"id": ids, "level": levels}).group_by(["id", "level"]).aggregate([])
    found: dict[str, set[str]] = {}
    for cid, level in zip(pairs.column("id").to_pylist(), pairs.column("level").to_pylist()):
        if cid is not None:
            found.setdefault(cid, set()).add(level)
    return {cid: frozenset(levels) for cid, levels in found.items()}
