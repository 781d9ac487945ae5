"""What a caller hands the runtime, checked at the edge: one clear error naming the argument.

Apps, the CLI and evaluation files pass questions, ``k``, ``lang``, filters and user
contexts. A wrong type or an unknown value must fail here, loudly, instead of becoming
a silent default further in: a string of roles matched as a substring (a grant), a
mapping reduced to its keys (a grant), ``k="5"`` slicing oddly, a 200k-character
question holding the embedder's lock for minutes. Every failure is an
``InvalidArgument``: a ``ValueError`` for callers, one line for the CLI.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgument

if TYPE_CHECKING:
    from .columns import RowsByKey

#: Most sources one search may return: a prompt takes ``final_k`` (5), a results page a few
#: dozen; and no more than ``dense_k`` candidates are ranked in the first place.
MAX_K = 100
#: What a list of names may arrive as. Strings and mappings are refused: both iterate.
COLLECTIONS = (list, tuple, set, frozenset)
_SHOWN = 60


def shown(value: object) -> str:
    """The start of a value's repr, for a message (a 200k-character string stays short)."""
    text = repr(value)
    return f"{text[:_SHOWN]}{'…' if len(text) > _SHOWN else ''}"


def describe(value: object) -> str:
    """A bad value for a message: the start of its repr and its type."""
    return f"{shown(value)} ({type(value).__name__})"


def names(value: object, argument: str, known: Collection[str] | None = None) -> tuple[str, ...]:
    """A list, tuple or set of non-empty strings as a tuple (first-seen order; sets sorted).

    With ``known``, every name must be one of them (the message lists them).
    """
    hint = f"; known: {', '.join(sorted(known))}" if known is not None else ""
    if not isinstance(value, COLLECTIONS):
        raise InvalidArgument(f"{argument}: expected a list of names, got {describe(value)}{hint}")
    items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InvalidArgument(f"{argument}: expected non-empty strings, got {describe(item)}{hint}")
        if known is not None and item not in known:
            raise InvalidArgument(f"{argument}: unknown {describe(item)}{hint}")
    return tuple(dict.fromkeys(items))


def optional_name(value: object, argument: str) -> str | None:
    """None, or one non-empty string."""
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InvalidArgument(f"{argument}: expected a non-empty string or nothing, got {describe(value)}")
    return value


def question_text(question: object, max_chars: int) -> str:
    """The question, if it is a non-empty string of at most ``max_chars`` characters.

    Checked before the guard, so every later stage (guard patterns, broadening, jieba,
    BM25, the embedder) only ever sees bounded input. ``max_chars`` is the config's
    ``max_question_chars`` (why 2000: see ``unitrag.config``).
    """
    if not isinstance(question, str):
        raise InvalidArgument(f"question: expected a string, got {describe(question)}")
    if not question.strip():
        raise InvalidArgument("question: empty")
    if len(question) > max_chars:
        raise InvalidArgument(
            f"question: {len(question):,} characters, over the limit of {max_chars:,} "
            "(config max_question_chars): ask a shorter question"
        )
    return question


def result_count(k: object, argument: str = "k") -> int:
    """A whole number of results, 1 to ``MAX_K``."""
    if isinstance(k, bool) or not isinstance(k, Integral):
        raise InvalidArgument(f"{argument}: expected a whole number from 1 to {MAX_K}, got {describe(k)}")
    if not 1 <= int(k) <= MAX_K:
        raise InvalidArgument(f"{argument}: expected a whole number from 1 to {MAX_K}, got {int(k)}")
    return int(k)


def user_context(user: object) -> Any:
    """None (an anonymous caller) or a ``UserContext``; a dict or anything else is refused, not guessed at."""
    from .types import UserContext

    if user is None:
        return UserContext()
    if not isinstance(user, UserContext):
        raise InvalidArgument(f"user: expected a UserContext (UserContext.from_dict parses a mapping), got {describe(user)}")
    return user


def choice(value: object, argument: str, known: Collection[str]) -> str | None:
    """None, or one of ``known`` (a language, say)."""
    if value is not None and (not isinstance(value, str) or value not in known):
        raise InvalidArgument(f"{argument}: expected one of {', '.join(known)}, got {describe(value)}")
    return value


def switch(value: object, argument: str) -> bool | None:
    """None (the configured default) or a real bool: ``"no"`` is truthy and would switch a stage on."""
    if value is not None and not isinstance(value, bool):
        raise InvalidArgument(f"{argument}: expected true, false or None, got {describe(value)}")
    return value


@dataclass(frozen=True)
class KnownIds:
    """The ids one knowledge base holds: a user context or filter naming others is refused.

    The type alone cannot know them (a typo in a topic id would silently boost nothing);
    the knowledge base does, so it checks what it receives. Units are looked up in the store's
    own table when asked (a user context names a few): sets of every rule and scene id cost
    ~150 ms and several MiB at open with 61k units.
    """

    topics: frozenset[str]
    kind_of: Callable[[str], str | None]  # unit id → its kind; None: not in this knowledge base

    @classmethod
    def of(cls, topics: Iterable[Mapping[str, Any]], units: RowsByKey) -> "KnownIds":
        """From a store's ``topics`` rows and ``units`` (its ``RowsByKey``: one column of one row, no row made)."""
        return cls(topics=frozenset(t["id"] for t in topics), kind_of=lambda unit_id: units.value(unit_id, "kind"))

    def check(self, argument: str, ids: Iterable[str], known: Callable[[str], bool], what: str) -> None:
        unknown = [i for i in ids if not known(i)]
        if unknown:
            listed = ", ".join(shown(i) for i in unknown[:5]) + (", …" if len(unknown) > 5 else "")
            raise InvalidArgument(f"{argument}: {what} {listed} not in this knowledge base")

    def check_user(self, user: Any) -> None:
        """Every id a ``UserContext`` names is one this knowledge base holds."""
        self.check("current_topic", [user.current_topic] if user.current_topic else [], self.topics.__contains__, "topic")
        self.check("triggered_rules", user.triggered_rules, lambda i: self.kind_of(i) == "rule", "rule")
        self.check("recent_scenes", user.recent_scenes, lambda i: self.kind_of(i) == "scene", "scene")
