"""Roll-up, page limits and user-context boosts."""

from __future__ import annotations

import pytest

from unitrag.rag.search.postprocess import Boosts, boost, focus, limit_pages, postprocess, roll_up
from unitrag.rag.types import Source, UserContext


def src(chunk_id: str, score: float, kind: str = "scene", story: str | None = "s1", scene: str | None = None,
        page: int | None = None, topics: tuple[str, ...] = ("iron",)) -> Source:
    unit = chunk_id.split("#")[0]
    return Source(chunk_id=chunk_id, unit_id=unit, kind=kind, title=chunk_id, text="t", topics=list(topics),
                  citation_ids=[], access="public", lang="en", story_id=story,
                  scene_id=scene if scene is not None else (unit if kind == "scene" else None), page=page,
                  scores={"dense": score}, score=score)


def test_story_below_its_own_scene_is_dropped():
    ranked = [src("scene-a", 0.9), src("s1", 0.8, kind="story", story="s1"), src("s2", 0.7, kind="story", story="s2")]
    assert [s.chunk_id for s in roll_up(ranked)] == ["scene-a", "s2"]


def test_story_above_its_scenes_is_kept():
    ranked = [src("s1", 0.95, kind="story", story="s1"), src("scene-a", 0.9)]
    assert [s.chunk_id for s in roll_up(ranked)] == ["s1", "scene-a"]


def test_at_most_two_pages_per_scene():
    ranked = [src(f"sc#p{i}", 1 - i / 10, scene="sc", page=i) for i in range(1, 5)] + [src("other", 0.1)]
    assert [s.chunk_id for s in limit_pages(ranked)] == ["sc#p1", "sc#p2", "other"]
    assert len(limit_pages(ranked, max_pages=3)) == 4


@pytest.mark.parametrize("user, boosted, factor", [
    (UserContext(triggered_rules=("rule-x",)), "rule-x", 1.5),
    (UserContext(recent_scenes=("scene-r",)), "scene-r", 1.2),
    (UserContext(current_topic="iodine"), "topic-hit", 1.6),
])
def test_each_boost_multiplies_the_score_and_reorders(user, boosted, factor):
    sources = [
        src("top", 0.80),
        src("rule-x", 0.60, kind="rule", story=None),
        src("scene-r", 0.70),
        src("topic-hit", 0.55, topics=("iodine",)),
    ]
    before = {s.chunk_id: s.score for s in sources}
    out = boost(sources, user)
    hit = next(s for s in out if s.chunk_id == boosted)
    assert hit.score == pytest.approx(before[boosted] * factor)
    assert hit.scores["boost"] == pytest.approx(factor)
    assert out[0].chunk_id == boosted  # every boosted score here overtakes 0.80
    assert all("boost" not in s.scores for s in out if s.chunk_id != boosted)


def test_boosts_are_configurable_and_compose():
    s = src("scene-r", 0.5, topics=("iodine",))
    [out] = boost([s], UserContext(recent_scenes=("scene-r",), current_topic="iodine"), Boosts(1.0, 2.0, 3.0))
    assert out.score == pytest.approx(3.0)


def test_postprocess_returns_the_final_top_k():
    ranked = [src(f"c{i}", 1 - i / 100) for i in range(10)]
    final = postprocess(ranked, UserContext(), k=5)
    assert [s.chunk_id for s in final] == ["c0", "c1", "c2", "c3", "c4"]
    assert all(s.scores["final"] == s.score for s in final)


def test_a_focused_question_ranks_what_the_context_points_at_first_keeping_each_parts_order():
    def ranked() -> list[Source]:  # fresh sources per call: boosts change scores in place
        return [src("a", 0.9), src("b-iodine", 0.45, topics=("iodine",)), src("c", 0.8), src("d-iodine", 0.4, topics=("iodine",))]

    user = UserContext(current_topic="iodine")
    assert [s.chunk_id for s in postprocess(ranked(), user, k=3, focused=True)] == ["b-iodine", "d-iodine", "a"]
    assert [s.chunk_id for s in postprocess(ranked(), user, k=3)] == ["a", "c", "b-iodine"]  # ×1.6 alone: 0.8 > 0.45·1.6


def test_focus_puts_a_triggered_rule_and_a_recent_scene_first():
    sources = [src("a", 0.9), src("rule-x", 0.2, kind="rule", story=None), src("scene-r", 0.1)]
    user = UserContext(triggered_rules=("rule-x",), recent_scenes=("scene-r",))
    assert [s.chunk_id for s in focus(sources, user)] == ["rule-x", "scene-r", "a"]
    assert focus(sources, None) == sources


def test_named_topics_boost_by_the_weighted_share_a_source_covers():
    sources = [src("pregnancy-only", 1.0, topics=("pregnancy",)), src("iodine", 0.8, topics=("iodine",)),
               src("both", 0.5, topics=("iodine", "pregnancy"))]
    named = {"iodine": 0.7, "pregnancy": 0.3}
    out = {s.chunk_id: s for s in boost(sources, UserContext(), Boosts(named_topic=2.5), named)}
    assert out["both"].score == pytest.approx(0.5 * 2.5) and out["iodine"].score == pytest.approx(0.8 * (1 + 1.5 * 0.7))
    assert out["pregnancy-only"].score == pytest.approx(1.0 * (1 + 1.5 * 0.3))
    assert [s.chunk_id for s in boost(sources, UserContext(), Boosts(named_topic=2.5), named)][0] == "iodine"
    assert [s.chunk_id for s in boost([src("a", 1.0, topics=("pregnancy",)), src("b", 0.8, topics=("iodine",))],
                                      UserContext())] == ["a", "b"]  # no named topics: no change


def test_the_units_whose_authors_wrote_the_question_come_first():
    """A new team's audit: "书还晚了一天要罚多少钱？", word for word a unit's own question, was answered from three English
    units ranked above it. Its unit now comes first, in the order given; a story the roll-up left out is stood for by
    its best scene alone (promoting every scene stated fewer facts); the rest keep their order, nothing added or
    dropped."""
    ranked = [src("x", 0.9, story="s2"), src("scene-a", 0.8, story="s9"), src("y", 0.7, story="s2"),
              src("owned", 0.5, story="s2"), src("z", 0.4, story="s9"), src("also", 0.3)]
    final = postprocess(ranked, UserContext(), k=6, authored=("owned", "s9", "also"))
    assert [s.chunk_id for s in final] == ["owned", "scene-a", "also", "x", "y", "z"]
    assert [s.chunk_id for s in postprocess([src("x", 0.9), src("owned", 0.5)], UserContext(), k=5)] == ["x", "owned"]


def test_a_story_asked_its_own_question_comes_first_itself_not_one_of_its_scenes():
    """A new team's audit: "What are the four bin colours for?", word for word a story's own question, was answered
    from the red bin's scene and a rule: the story's own chunk was among the candidates (the authored probe) but ranked
    below its scenes, so the roll-up dropped it and one scene stood for it. The story's chunk is kept and comes first;
    a story not authored for the question is still rolled up."""
    ranked = [src("scene-red", 0.9, story="bins"), src("rule-oil", 0.85, kind="rule", story=None),
              src("scene-green", 0.8, story="bins"), src("bins", 0.7, kind="story", story="bins"),
              src("scene-a", 0.6, story="s2"), src("s2", 0.5, kind="story", story="s2")]
    final = postprocess(ranked, UserContext(), k=5, authored=("bins",))
    assert [s.chunk_id for s in final] == ["bins", "scene-red", "rule-oil", "scene-green", "scene-a"]
    assert "bins" not in [s.chunk_id for s in postprocess(ranked, UserContext(), k=6)]
    assert [s.chunk_id for s in roll_up(ranked, keep={"bins"})] == ["scene-red", "rule-oil", "scene-green", "bins",
                                                                     "scene-a"]


def test_the_users_context_still_comes_before_an_authored_unit():
    """A question on the iodine page that a B12 unit's author also wrote ("how much a day?") is about iodine there."""
    ranked = [src("a-iron", 0.9), src("b-iodine", 0.45, topics=("iodine",)), src("c-b12", 0.4, topics=("b12",))]
    final = postprocess(ranked, UserContext(current_topic="iodine"), k=3, focused=True, authored=("c-b12",))
    assert [s.chunk_id for s in final] == ["b-iodine", "c-b12", "a-iron"]
