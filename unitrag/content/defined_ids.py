"""The ids a registry defines: those of its valid entries, and those of entries that failed their schema.

One bad entry of topics.yaml or of the citation registry is one problem, at the entry. A unit naming it
names something defined, only wrong, so it is not reported too. The usual way an entry fails is its id
itself (``id: Warranty``, ``id: lost_property``) while the units spell it right (``warranty``), so a
failed entry's id is compared as its author meant it: case, surrounding spaces and ``_`` for ``-`` aside.
A suggestion ("did you mean ...?") only ever names a valid id: an invalid one is no fix.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator

#: What a failed entry's id and a name written in a unit may differ by and still be the same id.
_SEPARATORS = re.compile(r"[\s_]+")


def id_key(written: str) -> str:
    """``written`` as its author meant it: ``Lost_Property`` and ``lost-property`` are one id."""
    return _SEPARATORS.sub("-", written.strip()).casefold()


class DefinedIds(Collection[str]):
    """``in``: a valid id, or a name meaning a failed entry's id (``id_key``). Iterating and ``len`` give the valid
    ids only, so ``did_you_mean`` over it never suggests an id that is itself a problem."""

    def __init__(self, valid: Iterable[str], failed: Iterable[str] = ()) -> None:
        self.valid = frozenset(valid)
        self.failed = frozenset(id_key(name) for name in failed)

    def __contains__(self, name: object) -> bool:
        return name in self.valid or (isinstance(name, str) and id_key(name) in self.failed)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.valid))

    def __len__(self) -> int:
        return len(self.valid)

    @property
    def empty(self) -> bool:
        """No entry at all, valid or failed (a registry file missing or unreadable)."""
        return not self.valid and not self.failed
