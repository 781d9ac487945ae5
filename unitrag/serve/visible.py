"""What of the registries a caller may see: a citation only through content it may read; the topic taxonomy whole.

The citation registry is bibliographic data, but the entries a knowledge base holds tell what it
covers: a guideline cited by a clinician-only unit alone says what that unit is about. So a
citation is shown only when a unit the caller may read cites it. A hidden id gets the answer a
missing one gets, after the same lookup. Access is set per unit, so a chunk's access level is its unit's.

The topic taxonomy is the knowledge base's vocabulary, and it lists topics no unit carries (declared
gaps: a filter or a user context naming one is accepted, and a question naming one scores ``gap``). A
topic only units the caller may not read carry is, for that caller, such a gap (``KnownIds.covered_topics``):
listed as one is, so that neither a listing nor an accepted filter tells it apart from one. Hiding it
here alone would: a topic a filter accepts but the taxonomy leaves out could only be a restricted one.
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
    """Per citation id, the access levels of the chunks that cite it."""

    citing: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, store: Any) -> "Visible":
        """From a store's ``citation_ids`` and ``access`` columns: one vectorised pass (built once per loaded knowledge
        base, so a request costs one dict lookup)."""
        return cls(citing=levels_by_id(store.columns["citation_ids"].array, store.columns["access"].array))

    def citation(self, citation_id: str, roles: Collection[str]) -> bool:
        """Whether a unit a caller holding ``roles`` may read cites ``citation_id`` (False for an unknown id too)."""
        return readable(self.citing.get(citation_id, _NOBODY), roles)

    def topics(self, rows: list[dict[str, Any]], roles: Collection[str]) -> list[dict[str, Any]]:
        """The taxonomy as ``roles`` see it: all of it, whatever units they may read (a topic only restricted units
        carry is listed as a declared gap is, see the module's note; what readable units cover: ``/v1/about``)."""
        return list(rows)


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
