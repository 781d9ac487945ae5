"""The runtime's vocabulary: who asks, what moves through the pipeline, what comes back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..errors import InvalidArgument
from ..languages import LANGS, Lang  # noqa: F401 - part of this module's API
from ..access import ROLE_SPELLING, is_role_name
from .arguments import describe, names, optional_name, shown



@dataclass(frozen=True)
class UserContext:
    """What the app knows about the caller; every field optional (a public, anonymous caller).

    Parsed strictly on construction, into tuples: the sequences may arrive as any list,
    tuple or set, but a string, a mapping, a number or a name no role is spelled as is an
    ``InvalidArgument`` (a ``ValueError``), never a grant. Whether the ids exist, and whether
    each role is the knowledge base's restricted role (``restricted_role``; a role unlocks the
    units whose ``access`` names it), is checked by the knowledge base that receives the
    context (it knows them): an unknown role is an error there, never ignored.
    """

    triggered_rules: tuple[str, ...] = ()
    recent_scenes: tuple[str, ...] = ()
    current_topic: str | None = None
    roles: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "triggered_rules", names(self.triggered_rules, "triggered_rules"))
        object.__setattr__(self, "recent_scenes", names(self.recent_scenes, "recent_scenes"))
        object.__setattr__(self, "current_topic", optional_name(self.current_topic, "current_topic"))
        object.__setattr__(self, "roles", names(self.roles, "roles"))
        misspelled = [role for role in self.roles if not is_role_name(role)]
        if misspelled:
            raise InvalidArgument(f"roles: {shown(misspelled[0])} is not a role name ({ROLE_SPELLING}; every caller "
                                  "reads public units)")

    def holds(self, role: str) -> bool:
        """Whether the caller holds ``role`` (a knowledge base's ``restricted_role``: it reads that role's units)."""
        return role in self.roles

    @property
    def has_context(self) -> bool:
        """It points at something a follow-up question may be about: a topic, a triggered rule, a recent scene."""
        return bool(self.current_topic or self.triggered_rules or self.recent_scenes)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "UserContext":
        """From parsed JSON (a ``--user-context`` file); a missing field takes its default, a ``null`` list is an error."""
        if not isinstance(data, Mapping):
            raise InvalidArgument(f"user context: expected an object with UserContext fields, got {describe(data)}")
        known = {"triggered_rules", "recent_scenes", "current_topic", "roles"}
        unknown = set(data) - known
        if unknown:
            raise InvalidArgument(
                f"unknown user-context field(s): {', '.join(sorted(map(str, unknown)))} (known: {', '.join(sorted(known))})"
            )
        return cls(**data)


@dataclass(frozen=True)
class SearchFilter:
    """Which chunks a search may return: pushed down to every store (NumPy mask or SQL WHERE)."""

    restricted: bool = False  # False: public chunks only; True: the restricted role's too
    lang: str | None = None
    kinds: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()  # any of them


@dataclass
class Source:
    """One chunk on its way through the pipeline, with the score each stage gave it."""

    chunk_id: str
    unit_id: str
    kind: str
    title: str
    text: str  # the prompt text (with inline <Cite/> tags)
    topics: list[str]
    citation_ids: list[str]
    access: str
    lang: str
    story_id: str | None = None
    scene_id: str | None = None
    page: int | None = None
    scores: dict[str, float] = field(default_factory=dict)
    score: float = 0.0  # the current ranking score (the last stage's)

    def to_dict(self, with_text: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not with_text:
            data.pop("text")
        data["scores"] = {k: round(v, 6) for k, v in self.scores.items()}
        data["score"] = round(self.score, 6)
        return data


@dataclass(frozen=True)
class GuardOutcome:
    #: caution: a red flag fired but the question's framing is clearly not acute (past, study, prevention...):
    #: it is answered normally and ``response`` is the rule's short safety note shown with the answer.
    type: Literal["red_flag", "out_of_scope", "caution"]
    rule: str
    response: str
    #: Why it fired: "pattern" (a regular expression matched), "similarity" (the classifier's score reached
    #: its threshold), "sign" (a red-flag score just short of it, with one of the rules' signs told as it is) or
    #: "llm" (the second opinion added a red flag the score was just short of); with type caution also "warning" (a
    #: warning sign told that nothing stopped) or "exempt" (a red flag the restricted role is answered past).
    reason: str = "pattern"
    score: float | None = None  # the type's probability (similarity, llm)
    threshold: float | None = None
    nearest_example: str | None = None  # the rule's example closest to the question
    similarity: float | None = None  # cosine similarity to it
    #: With type caution: the framing cue kinds that made the red flag a note (guard_framing: past, study, ...).
    framing: tuple[str, ...] = ()

    @property
    def stops(self) -> bool:
        """Whether the question stops here (red flag, out of scope); a caution is answered, with its note."""
        return self.type != "caution"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "rule": self.rule, "reason": self.reason}
        if self.type == "caution":
            data.update(note=self.response, framing=list(self.framing))
        if self.score is not None:
            data.update(score=round(self.score, 4), threshold=round(self.threshold or 0.0, 4),
                        nearest_example=self.nearest_example, similarity=round(self.similarity or 0.0, 4))
        return data


@dataclass(frozen=True)
class FaithfulnessReport:
    valid_ids: list[str]
    invalid_ids: list[str]
    score: float  # valid / total citations; 1.0 when nothing was cited
    uncited_long_answer: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ResolvedCitation:
    id: str
    title: str
    authors: list[str]
    year: int
    venue: str | None = None
    url: str | None = None
    doi: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def user_context(user: object) -> Any:
    """None (an anonymous caller) or a ``UserContext``; a dict or anything else is refused, not guessed at."""
    if user is None:
        return UserContext()
    if not isinstance(user, UserContext):
        raise InvalidArgument(f"user: expected a UserContext (UserContext.from_dict parses a mapping), got {describe(user)}")
    # made again, a plain one, from its fields: a subclass's own ``holds``, or a ``roles`` tuple whose ``in`` says yes to
    # every role, was checked by iterating it and then granted by asking it (an attacker's; the names are parsed again)
    try:
        fields = (tuple(user.triggered_rules), tuple(user.recent_scenes), user.current_topic, tuple(user.roles))
    except Exception:  # noqa: BLE001 - whatever a subclass's fields do, they are no context
        raise InvalidArgument(f"user: its fields cannot be read as a UserContext's, got {describe(user)}") from None
    return UserContext(triggered_rules=fields[0], recent_scenes=fields[1], current_topic=fields[2], roles=fields[3])
