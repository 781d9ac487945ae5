"""After ranking: roll-up, page limits and user-context boosts, then the final top-k.

* A story summary ranked below one of its own scenes says less than the scene: it is
  dropped (roll-up), unless the question is one the story's authors wrote for it.
* At most ``max_pages`` pages of one scene, so one long scene cannot fill the prompt.
* Boosts from what the app knows about the user: a rule their report triggered,
  a scene they read recently, the topic they are looking at.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ..types import Source, UserContext


@dataclass(frozen=True)
class Boosts:
    triggered_rule: float = 1.5
    recent_scene: float = 1.2
    current_topic: float = 1.6
    #: A source covering every topic the question names gets ×2.5, one covering some of them its share,
    #: weighted by how specific each topic is (``Retriever.named_topics``): "how much iodine does a pregnant
    #: woman need?" is about iodine more than pregnancy. Chosen on dev (docs/benchmarks/quality.md, issue 12).
    named_topic: float = 2.5


def roll_up(ranked: list[Source], keep: Collection[str] = ()) -> list[Source]:
    """Drop a story chunk when one of its scenes ranks above it, unless the story is one of ``keep``: the question is
    one its authors wrote for the story itself (``authored_first`` then puts it first), which its summary answers and
    no one scene does ("What are the four bin colours for?" is no question about the red bin alone)."""
    seen_stories: set[str] = set()
    kept = []
    for source in ranked:
        if source.kind == "scene" and source.story_id:
            seen_stories.add(source.story_id)
        if source.kind == "story" and source.unit_id in seen_stories and source.unit_id not in keep:
            continue
        kept.append(source)
    return kept


def limit_pages(ranked: list[Source], max_pages: int = 2) -> list[Source]:
    """Keep the best ``max_pages`` pages of each scene."""
    per_scene: dict[str, int] = {}
    kept = []
    for source in ranked:
        if source.scene_id:
            per_scene[source.scene_id] = per_scene.get(source.scene_id, 0) + 1
            if per_scene[source.scene_id] > max_pages:
                continue
        kept.append(source)
    return kept


def boost(
    sources: list[Source], user: UserContext, boosts: Boosts = Boosts(), named: Mapping[str, float] | None = None,
) -> list[Source]:
    """Multiply each source's score by every boost that applies to it; re-sort.

    ``named``: the topics the question names, each with its weight (summing to 1).
    """
    for source in sources:
        factor = 1.0
        if named:
            factor *= 1.0 + (boosts.named_topic - 1.0) * sum(w for topic, w in named.items() if topic in source.topics)
        if source.kind == "rule" and source.unit_id in user.triggered_rules:
            factor *= boosts.triggered_rule
        if source.scene_id and source.scene_id in user.recent_scenes:
            factor *= boosts.recent_scene
        if user.current_topic and user.current_topic in source.topics:
            factor *= boosts.current_topic
        if factor != 1.0:
            source.scores["boost"] = factor
        source.score = source.score * factor if source.score >= 0 else source.score / factor
        source.scores["final"] = source.score
    return sorted(sources, key=lambda s: s.score, reverse=True)


def in_context(source: Source, user: UserContext) -> bool:
    """What the user's context points at: the current topic, a rule their report triggered, a scene they read."""
    return (user.current_topic is not None and user.current_topic in source.topics) or source.unit_id in user.triggered_rules \
        or (source.scene_id is not None and source.scene_id in user.recent_scenes)


def focus(sources: list[Source], user: UserContext | None) -> list[Source]:
    """The sources ``user``'s context points at first (each part keeps its order); None: unchanged.

    For a question that names nothing beyond that context ("which foods have the most?" on the
    calcium page, "what should I check next?" after a rule fired), which is then what it is about.
    """
    if user is None:
        return sources
    return sorted(sources, key=lambda s: not in_context(s, user))  # stable


def postprocess(
    ranked: list[Source], user: UserContext, k: int = 5, boosts: Boosts = Boosts(), max_pages: int = 2,
    focused: bool = False, named: Mapping[str, float] | None = None, authored: Sequence[str] = (),
) -> list[Source]:
    """Roll-up → page limit → boosts → the ``authored`` units first → (``focused``) the user's context first (what the
    caller says it is about outranks a question many units were written for) → top ``k``; ``ranked`` is best first."""
    boosted = boost(limit_pages(roll_up(ranked, keep=frozenset(authored)), max_pages), user, boosts, named)
    return focus(authored_first(boosted, authored), user if focused else None)[:k]


def authored_first(sources: list[Source], units: Sequence[str]) -> list[Source]:
    """The chunks of ``units`` first, in that order, and for a story without its own chunk among the sources (a ``kinds``
    filter, say, left it out; the roll-up keeps an authored story's) its best scene (the rest keep their order): the
    question is, nearly word for word, one their authors wrote for them (``Exemplars.authored_units``); no fusion of
    scores outranks the author saying so, and such questions were answered from other units before."""
    if not units:
        return sources
    place = {unit: n for n, unit in enumerate(units)}
    present = {u for s in sources for u in (s.unit_id, s.scene_id) if u in place}
    # a story whose own chunk is not among the sources: its best scene stands for it, only that one
    standing: dict[str, str] = {}
    for source in sources:
        if source.story_id in place and source.story_id not in present and source.story_id not in standing:
            standing[source.story_id] = source.chunk_id

    def order(source: Source) -> int:
        own = [place[u] for u in (source.unit_id, source.scene_id) if u in place]
        if standing.get(source.story_id or "") == source.chunk_id:
            own.append(place[source.story_id])
        return min(own, default=len(place))

    return sorted(sources, key=order)  # stable
