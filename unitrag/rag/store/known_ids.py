"""Which unit, scene and topic ids a caller may name: checked against the knowledge base, the same answer for hidden and missing."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ...access import DEFAULT_ROLE
from ...errors import InvalidArgument
from ..arguments import shown
from .columns import Column, RowsByKey, levels_by_id, readable


@dataclass(frozen=True)
class KnownIds:
    """The ids one knowledge base holds for a caller: a user context or filter naming others is refused.

    The type alone cannot know them (a typo in a topic id would silently boost nothing);
    the knowledge base does, so it checks what it receives. Units are looked up in the store's
    own table when asked (a user context names a few): sets of every rule and scene id cost
    ~150 ms and several MiB at open with 61k units.

    A unit the caller's roles may not read is not in this knowledge base *for that caller*: a
    restricted id, a missing one and one of the wrong kind get the same message, after the same
    lookups, so an anonymous caller cannot confirm that a restricted id exists. A role other than the
    knowledge base's restricted one (``roles``) is refused: it would read nothing here, and an app
    that sends one believes it grants something.

    A topic of the taxonomy is known to every caller (it is the taxonomy's vocabulary: a topic no unit
    carries, a declared gap, is accepted in a filter and a user context). One that only units the caller
    may not read carry is, for that caller, a declared gap (``covered_topics``): accepted as one is, and
    the gate's ``gap`` feature and the named-topic boosts read it as one, so nothing tells it from a topic
    no unit carries.
    """

    topics: frozenset[str]
    kind_of: Callable[[str], str | None]  # unit id → its kind; None: not in this knowledge base
    access_of: Callable[[str], str | None]  # unit id → its access level when not public; None: public or missing
    #: a set of roles → the topics units it may read carry (none given: no topic is covered, for anyone)
    covered: Mapping[frozenset[str], frozenset[str]] = field(default_factory=dict)
    roles: tuple[str, ...] = (DEFAULT_ROLE,)  # the roles a caller may hold here: the restricted one

    @classmethod
    def of(cls, topics: Iterable[Mapping[str, Any]], units: RowsByKey, unit_ids: Column, access: Column,
           chunk_topics: Column, role: str = DEFAULT_ROLE) -> "KnownIds":
        """From a store's ``topics`` rows, ``units`` (its ``RowsByKey``: one column of one row, no row made), its
        chunks' ``unit_id``, ``access`` and ``topics`` columns (only the restricted chunks' units are indexed) and
        its restricted ``role``."""
        return cls(topics=frozenset(t["id"] for t in topics), kind_of=_evenly_timed(units, "kind"),
                   access_of=_evenly_timed(restricted_units(unit_ids, access), "access"),
                   covered=covered_topics(chunk_topics, access, (role,)), roles=(role,))

    def covered_topics(self, roles: Collection[str]) -> frozenset[str]:
        """The topics some unit a caller holding ``roles`` may read carries (one dict lookup: made per set of roles
        at open). Any other topic of the taxonomy is, for that caller, one no unit carries: a declared gap."""
        return self.covered.get(frozenset(roles).intersection(self.roles), frozenset())

    def check(self, argument: str, ids: Iterable[str], known: Callable[[str], bool], what: str) -> None:
        unknown = [i for i in ids if not known(i)]
        if unknown:
            listed = ", ".join(shown(i) for i in unknown[:5]) + (", …" if len(unknown) > 5 else "")
            raise InvalidArgument(f"{argument}: {what} {listed} not in this knowledge base")

    def visible(self, unit_id: str, roles: Collection[str], kind: str | None = None) -> bool:
        """A unit (of ``kind``, when given) that a caller holding ``roles`` may read. Both lookups run whatever
        the answer: a restricted id costs what a missing one does."""
        found, level = self.kind_of(unit_id), self.access_of(unit_id)
        return found is not None and (kind is None or found == kind) and (level is None or level in roles)

    def check_user(self, user: Any) -> None:
        """Every id a ``UserContext`` names is one this knowledge base holds and its roles may read."""
        roles = user.roles
        unknown = [role for role in roles if role not in self.roles]
        if unknown:
            raise InvalidArgument(f"roles: unknown role {shown(unknown[0])}: this knowledge base's restricted role is "
                                  f"{shown(self.roles[0])} (restricted_role in its unitrag.toml)")
        self.check("current_topic", [user.current_topic] if user.current_topic else [], self.topics.__contains__, "topic")
        self.check("triggered_rules", user.triggered_rules, lambda i: self.visible(i, roles, "rule"), "rule")
        self.check("recent_scenes", user.recent_scenes, lambda i: self.visible(i, roles, "scene"), "scene")


def _evenly_timed(rows: RowsByKey, column: str) -> Callable[[str], Any]:
    """``rows.value(key, column)``, a miss reading a value too (the first row's, thrown away): reading one is
    most of a hit's cost (~15 µs), so a miss and a hit take as long and no timing tells an id exists."""
    def value(key: str) -> Any:
        found = rows.value(key, column)
        if found is None and len(rows):
            rows.table.column(column)[0].as_py()  # as a hit reads its row's
        return found

    return value


def covered_topics(chunk_topics: Column, access: Column, roles: tuple[str, ...]) -> dict[frozenset[str], frozenset[str]]:
    """For every set of roles (each subset of ``roles``, the empty one an anonymous caller's), the topics carried by
    a chunk it may read: ``public`` ones, or of a level the set holds (a chunk without a level: no role's). One
    vectorised pass over the chunks' topic lists (``levels_by_id``, as serve.visible reads citations), then a few sets."""
    levels_of = levels_by_id(chunk_topics.array, access.array) if len(chunk_topics.array) else {}
    return {held: frozenset(t for t, levels in levels_of.items() if readable(levels, held))
            for held in (frozenset(c) for n in range(len(roles) + 1) for c in combinations(roles, n))}


def restricted_units(unit_ids: Column, access: Column) -> RowsByKey:
    """The units of the chunks that are not public, with their access level: all a role check needs to hold
    (a public knowledge base: an empty table; 100k chunks, half restricted: ~25 ms at open, 0.8 MB). A chunk
    without a level is restricted to no role."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from .columns import RowsByKey, codes

    # compared per distinct level, and the rows taken by a NumPy index: a Python value made into Arrow ("public")
    # imports pandas (1.3 s, ~35 MiB at open; see artifact.arrow_numpy)
    values, indices = codes(access.array)
    rows = np.flatnonzero(np.array([value != "public" for value in values] + [True], dtype=bool)[indices])
    taken = pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(rows.astype(np.int64))])
    unit_ids_taken, levels = pc.take(unit_ids.array, taken), pc.take(access.array, taken).cast(pa.string())
    if levels.null_count:  # "" (no role holds it), from the ids' own empty prefixes: again no Python value
        levels = pc.coalesce(levels, pc.utf8_slice_codeunits(unit_ids_taken, 0, 0))
    return RowsByKey(pa.table({"unit_id": unit_ids_taken, "access": levels}), "unit_id", dict)
