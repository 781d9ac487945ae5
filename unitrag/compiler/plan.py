"""The build plan: what a build would do to the previous artifact, decided by hashes alone.

Planning needs no model and no network, which is what lets PR CI run
``unitrag build --dry-run`` without secrets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..artifact.reader import PreviousState
from .chunking import Chunk
from .hashing import content_hash, meta_hash

ACTIONS = ("new", "changed", "metadata_only", "deleted", "unchanged")


@dataclass(frozen=True)
class HashedChunk:
    chunk: Chunk
    content_hash: str
    meta_hash: str


@dataclass
class Plan:
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    metadata_only: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    #: Why every chunk is re-embedded (a different embedder), or None.
    full_reembed_reason: str | None = None
    #: Citations, topics, guard rules or prompts differ from the artifact's.
    tables_changed: list[str] = field(default_factory=list)
    #: Deletes are swept only when the whole content tree was read.
    sweep_deletes: bool = True
    #: Units kept from the previous artifact whose access differs: ``{"unit", "from", "to"}``, by unit id. A scene
    #: that takes its story's access changes with the story's.
    access_changes: list[dict[str, str]] = field(default_factory=list)

    @property
    def made_public(self) -> list[str]:
        """Units that were restricted and will be served to anyone: what a reviewer must not miss."""
        return [c["unit"] for c in self.access_changes if c["to"] == "public"]

    @property
    def made_restricted(self) -> list[str]:
        """Units that were public and will be served only to callers with a role."""
        return [c["unit"] for c in self.access_changes if c["from"] == "public"]

    @property
    def to_embed(self) -> list[str]:
        return self.new + self.changed

    @property
    def is_noop(self) -> bool:
        return not (self.new or self.changed or self.metadata_only or self.deleted or self.tables_changed)

    def counts(self) -> dict[str, int]:
        return {action: len(getattr(self, action)) for action in ACTIONS}

    def to_dict(self) -> dict[str, object]:
        return {
            **self.counts(),
            "ids": {action: getattr(self, action) for action in ACTIONS if action != "unchanged"},
            "full_reembed_reason": self.full_reembed_reason,
            "tables_changed": self.tables_changed,
            "sweep_deletes": self.sweep_deletes,
            "access_changes": self.access_changes,
            "made_public": self.made_public,
            "made_restricted": self.made_restricted,
        }


def hash_chunks(chunks: list[Chunk]) -> list[HashedChunk]:
    return [HashedChunk(c, content_hash(c), meta_hash(c)) for c in chunks]


def make_plan(
    chunks: list[HashedChunk], previous: PreviousState | None, embedder_id: str,
    table_hashes: dict[str, str], complete: bool = True,
) -> Plan:
    """Compare the chunks of this build with the previous artifact's, chunk by chunk."""
    plan = Plan(sweep_deletes=complete)
    if previous is None:
        plan.new = [h.chunk.chunk_id for h in chunks]
        plan.tables_changed = sorted(table_hashes)
        return plan
    if previous.embedder_id != embedder_id:
        plan.full_reembed_reason = (
            f"embedder changed from {previous.embedder_id!r} to {embedder_id!r}: vectors of different models "
            "are not comparable, so every chunk is embedded again"
        )
    plan.tables_changed = sorted(k for k, v in table_hashes.items() if previous.table_hashes.get(k) != v)
    seen: set[str] = set()
    for h in chunks:
        cid = h.chunk.chunk_id
        seen.add(cid)
        old = previous.chunks.get(cid)
        if old is None:
            plan.new.append(cid)
        elif plan.full_reembed_reason or old.content_hash != h.content_hash:
            plan.changed.append(cid)
        elif old.meta_hash != h.meta_hash:
            plan.metadata_only.append(cid)
        else:
            plan.unchanged.append(cid)
    plan.access_changes = access_changes(chunks, previous.unit_access)
    gone = sorted(set(previous.chunks) - seen)
    if complete:
        plan.deleted = gone
    return plan


def access_changes(chunks: list[HashedChunk], before: dict[str, str]) -> list[dict[str, str]]:
    """The units of the previous artifact still here whose (effective) access differs, by unit id."""
    now: dict[str, str] = {}
    for h in chunks:
        now.setdefault(h.chunk.unit_id, h.chunk.access)
    return [{"unit": unit_id, "from": before[unit_id], "to": access}
            for unit_id, access in sorted(now.items()) if unit_id in before and before[unit_id] != access]
