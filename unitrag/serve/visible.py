"""What of the registries a caller may see: a citation only through content it may read; the topic taxonomy whole.

The citation registry is bibliographic data, but the entries a knowledge base holds tell what it
covers: a guideline cited by a restricted unit alone says what that unit is about. So a
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

from ..rag.store.columns import levels_by_id, readable

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
