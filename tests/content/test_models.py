"""The content models: triggers, strictness, defaults, citations, problems."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from unitrag.content.models import (
    UNIT_ADAPTER,
    UNIT_KINDS,
    Citation,
    Document,
    Rule,
    Scene,
    Story,
    Taxonomy,
    Topic,
    Trigger,
)
from unitrag.content.guard_model import GuardRule
from unitrag.content.problems import Problem


def trig(comparison: str, threshold, sex=None) -> Trigger:
    return Trigger(marker="serum_b12", comparison=comparison, threshold=threshold, unit="pg/mL", sex=sex)


# --- Trigger.matches -------------------------------------------------------------------


@pytest.mark.parametrize(
    "comparison, value, expected",
    [
        ("<", 199.9, True), ("<", 200, False), ("<", 200.1, False),
        ("<=", 199.9, True), ("<=", 200, True), ("<=", 200.1, False),
        (">", 199.9, False), (">", 200, False), (">", 200.1, True),
        (">=", 199.9, False), (">=", 200, True), (">=", 200.1, True),
    ],
)
def test_trigger_single_value_comparisons(comparison, value, expected):
    assert trig(comparison, 200).matches(value) is expected


@pytest.mark.parametrize("value, expected", [(9.99, False), (10, True), (15, True), (20, True), (20.01, False)])
def test_trigger_between_is_inclusive(value, expected):
    t = trig("between", [10, 20])
    assert t.threshold == (10.0, 20.0)
    assert t.matches(value) is expected


def test_trigger_sex_filter():
    t = trig("<", 12, sex="female")
    assert t.matches(10, sex="female")
    assert not t.matches(10, sex="male")
    assert not t.matches(10)  # a sex-specific rule needs the sex to be known
    assert not t.matches(13, sex="female")  # and the value still has to fire


def test_trigger_without_sex_matches_any_sex():
    t = trig(">", 5)
    assert t.matches(6) and t.matches(6, sex="male") and t.matches(6, sex="female")


# --- Trigger validation ----------------------------------------------------------------


def _messages(exc: pytest.ExceptionInfo[ValidationError]) -> str:
    return " | ".join(e["msg"] for e in exc.value.errors())


def test_between_needs_a_pair():
    with pytest.raises(ValidationError) as exc:
        trig("between", 5)
    assert "'between' needs threshold: [low, high]" in _messages(exc)


@pytest.mark.parametrize("pair", [[5, 1], [3, 3]])
def test_between_needs_low_below_high(pair):
    with pytest.raises(ValidationError) as exc:
        trig("between", pair)
    assert "'between' needs low < high" in _messages(exc)


@pytest.mark.parametrize("comparison", ["<", "<=", ">", ">="])
def test_single_value_comparison_rejects_a_list(comparison):
    with pytest.raises(ValidationError) as exc:
        trig(comparison, [1, 5])
    assert f"'{comparison}' needs a single number as threshold" in _messages(exc)


@pytest.mark.parametrize(
    "field, value",
    [("marker", "Serum-B12"), ("comparison", "=="), ("unit", ""), ("sex", "other")],
)
def test_trigger_field_constraints(field, value):
    data = dict(marker="serum_b12", comparison="<", threshold=1, unit="u")
    data[field] = value
    with pytest.raises(ValidationError) as exc:
        Trigger.model_validate(data)
    assert exc.value.errors()[0]["loc"][0] == field


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), True, "5", [1, float("nan")]])
def test_a_threshold_is_a_finite_number_as_written(threshold):
    with pytest.raises(ValidationError):
        trig("between" if isinstance(threshold, list) else "<", threshold)


def test_an_integer_threshold_is_a_number():
    assert trig("<", 5).threshold == 5.0


def test_trigger_threshold_list_of_three_is_rejected():
    with pytest.raises(ValidationError):
        trig("between", [1, 2, 3])


# --- units ------------------------------------------------------------------------------

STORY = dict(kind="story", id="s", title="T", lang="en", topics=["t"], summary="S")
SCENE = dict(kind="scene", id="sc", title="T", story="s", order=1, topics=["t"])
RULE = dict(
    kind="rule", id="r", title="T", lang="en", topics=["t"], severity="info",
    trigger=dict(marker="m", comparison="<", threshold=1, unit="u"),
)
DOCUMENT = dict(kind="document", id="d", title="T", lang="zh", topics=["t"], source="src")


@pytest.mark.parametrize("data, cls", [(STORY, Story), (SCENE, Scene), (RULE, Rule), (DOCUMENT, Document)])
def test_unit_adapter_selects_model_by_kind(data, cls):
    unit = UNIT_ADAPTER.validate_python(data)
    assert type(unit) is cls
    assert UNIT_KINDS[data["kind"]] is cls


def test_unit_adapter_rejects_unknown_kind():
    with pytest.raises(ValidationError) as exc:
        UNIT_ADAPTER.validate_python({**STORY, "kind": "article"})
    assert exc.value.errors()[0]["type"] == "union_tag_invalid"


def test_unknown_field_is_an_error():
    with pytest.raises(ValidationError) as exc:
        Story.model_validate({**STORY, "titel": "typo"})
    err = exc.value.errors()[0]
    assert err["type"] == "extra_forbidden" and err["loc"] == ("titel",)


def test_citation_ids_alias_and_default():
    assert Story.model_validate(STORY).citation_ids == []
    assert Story.model_validate({**STORY, "citationIds": ["a-b"]}).citation_ids == ["a-b"]
    # populate_by_name: the python name is accepted too
    assert Story.model_validate({**STORY, "citation_ids": ["c"]}).citation_ids == ["c"]


@pytest.mark.parametrize("bad_id", ["Upper", "-lead", "has space", "under_score", "", "a" * 101])
def test_slug_pattern(bad_id):
    with pytest.raises(ValidationError):
        Story.model_validate({**STORY, "id": bad_id})


def test_topics_must_not_be_empty():
    with pytest.raises(ValidationError) as exc:
        Story.model_validate({**STORY, "topics": []})
    assert exc.value.errors()[0]["loc"] == ("topics",)


def test_defaults_for_access_and_lang():
    assert Story.model_validate(STORY).access == "public"
    assert Rule.model_validate(RULE).access == "public"
    assert Document.model_validate(DOCUMENT).access == "public"
    scene = Scene.model_validate(SCENE)
    assert scene.lang is None and scene.access is None  # inherited from the story later


def test_a_scenes_blank_access_is_an_error_at_the_field_not_the_storys_access():
    """`access:` (null) on a scene of a public story was taken as left out: the scene built public, silently."""
    with pytest.raises(ValidationError) as exc:
        Scene.model_validate({**SCENE, "access": None})
    assert [e["loc"] for e in exc.value.errors()] == [("access",)]
    assert "access is blank" in exc.value.errors()[0]["msg"]
    assert Scene.model_validate({**SCENE, "access": "public"}).access == "public"


@pytest.mark.parametrize(
    "field, value",
    [("lang", "fr"), ("access", "Private!"), ("order", 0), ("order", "x"),
     ("order", "2"), ("order", True), ("order", 3_000_000_000), ("order", 10**23)],  # an INT32 column; as written
)
def test_scene_field_types(field, value):
    with pytest.raises(ValidationError) as exc:
        Scene.model_validate({**SCENE, field: value})
    assert exc.value.errors()[0]["loc"] == (field,)


@pytest.mark.parametrize("model, data, missing", [
    (Story, STORY, "summary"), (Story, STORY, "lang"), (Rule, RULE, "severity"),
    (Rule, RULE, "trigger"), (Document, DOCUMENT, "source"), (Scene, SCENE, "story"),
])
def test_required_fields(model, data, missing):
    incomplete = {k: v for k, v in data.items() if k != missing}
    with pytest.raises(ValidationError) as exc:
        model.model_validate(incomplete)
    assert [(e["type"], e["loc"]) for e in exc.value.errors()] == [("missing", (missing,))]


@pytest.mark.parametrize("title", ['Compost <Cite id="cit-a"/>', "Compost <cite id=cit-a>", 'x <Ci\u200bte id="a"/>'])
def test_a_title_cannot_carry_a_citation_tag(title):
    with pytest.raises(ValidationError) as exc:
        Story.model_validate({**STORY, "title": title})
    assert "put <Cite/> in the body" in _messages(exc)


@pytest.mark.parametrize("title", ["</script><script>alert('title')</script>", "Ammonia <img src=x onerror=alert(2)>",
                                   "Test <b>kits</b>", "javascript:alert(1)"])
def test_a_title_cannot_carry_markup(title):
    """An attacker's title ``</script><script>alert('title')</script>`` passed validation and the API served it whole."""
    with pytest.raises(ValidationError) as exc:
        Document.model_validate({**DOCUMENT, "title": title})
    assert "a title is plain text" in _messages(exc)


MARKED = "Payroll <img src=x onerror=alert(1)>"


@pytest.mark.parametrize(("model", "data"), [
    (Citation, {"id": "c", "title": MARKED, "year": 2020}),
    (Citation, {"id": "c", "title": "t", "authors": [MARKED], "year": 2020}),
    (Citation, {"id": "c", "title": "t", "venue": MARKED, "year": 2020}),
    (Topic, {"id": "t", "names": {"en": MARKED}}),
    (Topic, {"id": "t", "names": {"en": "Pay"}, "synonyms": {"zh": [MARKED]}}),
    (Document, {**DOCUMENT, "questions": [MARKED]}),
    (Document, {**DOCUMENT, "questions": [{"q": MARKED}]}),
])
def test_texts_served_as_written_cannot_carry_markup(model, data):
    """An attacker's topic names, unit questions and citation titles, authors and venue held HTML that validated and
    was served raw by /v1/topics, /v1/about and the references (a title had the check)."""
    with pytest.raises(ValidationError) as exc:
        model.model_validate(data)
    assert "is markup: this text is served as written" in _messages(exc)


def test_a_citation_title_may_say_data_colon():
    assert Citation.model_validate({"id": "c", "title": "Big data: a review <of diets", "year": 2020}).title


@pytest.mark.parametrize("title", ["Blood pressure <120/80 mmHg", "Dose < 5 mg", "a -> b", "Sodium: how much?"])
def test_a_title_with_a_less_than_sign_is_plain_text(title):
    assert Document.model_validate({**DOCUMENT, "title": title}).title == title


def test_updated_is_parsed_as_a_date():
    assert str(Story.model_validate({**STORY, "updated": "2024-05-01"}).updated) == "2024-05-01"


# --- registries ---------------------------------------------------------------------------


@pytest.mark.parametrize("field, value", [("year", "2019"), ("year", True), ("doi", "not a doi <script>"),
                                          ("doi", "https://doi.org/10.1000/x"), ("pmid", "PMC123"), ("pmid", "12 34")])
def test_citation_fields_as_written(field, value):
    with pytest.raises(ValidationError) as exc:
        Citation.model_validate({"id": "a", "title": "T", "year": 2020, field: value})
    assert exc.value.errors()[0]["loc"] == (field,)


def test_a_doi_and_a_pmid_as_written_are_kept():
    cited = Citation.model_validate({"id": "a", "title": "T", "year": 2020, "doi": "10.1056/NEJMoa2024816", "pmid": "33301246"})
    assert (cited.doi, cited.pmid) == ("10.1056/NEJMoa2024816", "33301246")


@pytest.mark.parametrize("url", ["http://x.org", "https://x.org/a", None])
def test_citation_url_ok(url):
    assert Citation(id="a", title="T", year=2020, url=url).url == url


@pytest.mark.parametrize("url", ["ftp://x.org", "www.x.org", "x"])
def test_citation_url_must_be_http(url):
    with pytest.raises(ValidationError) as exc:
        Citation(id="a", title="T", year=2020, url=url)
    assert "url must start with http:// or https://" in exc.value.errors()[0]["msg"]


@pytest.mark.parametrize("year", [1799, 2101])
def test_citation_year_range(year):
    with pytest.raises(ValidationError):
        Citation(id="a", title="T", year=year)


def test_taxonomy_group_needs_members():
    with pytest.raises(ValidationError):
        Taxonomy.model_validate({"topics": [], "groups": [{"id": "g", "names": {"en": "G", "zh": "G"}, "members": []}]})


def _iron(*excludes: str, **more: object) -> dict[str, object]:
    return {"id": "iron", "names": {"en": "Iron", "zh": "铁"}, "synonyms": {"en": ["heme iron"]}, "excludes": list(excludes),
            **more}


def test_topic_excludes_contain_a_name_or_synonym_after_normalisation():
    tax = Taxonomy.model_validate({"topics": [_iron("  高铁 ", "地铁", "CAST IRON", "ＨＥＭＥ ＩＲＯＮ tablets")],
                                   "groups": [{"id": "minerals", "names": {"en": "Minerals", "zh": "矿物质"},
                                               "members": ["iron"], "excludes": ["矿物质水"]}]})
    assert tax.topics[0].excludes == ["高铁", "地铁", "CAST IRON", "ＨＥＭＥ ＩＲＯＮ tablets"]  # stripped, else as written
    assert tax.groups[0].excludes == ["矿物质水"]
    assert Taxonomy.model_validate({"topics": [{"id": "a", "names": {"en": "A", "zh": "甲"}}]}).topics[0].excludes == []


@pytest.mark.parametrize("section", ["topics", "groups"])
def test_an_exclude_without_any_name_of_its_topic_is_an_error_naming_topic_and_entry(section):
    entry = _iron("高铁", "高速公路", **({"members": ["iron"]} if section == "groups" else {}))
    with pytest.raises(ValidationError) as exc:
        Taxonomy.model_validate({"topics": [], section: [entry]})
    [error] = exc.value.errors()
    assert error["loc"] == (section, 0, "excludes", 1)
    assert "'高速公路'" in error["msg"] and "'iron'" in error["msg"] and "names or synonyms" in error["msg"]


def test_an_empty_exclude_is_an_error():
    with pytest.raises(ValidationError) as exc:
        Taxonomy.model_validate({"topics": [_iron("高铁", "   ")]})
    assert [(e["loc"], e["msg"]) for e in exc.value.errors()] == [
        (("topics", 0, "excludes", 1), "Value error, an exclude must not be empty")]


@pytest.mark.parametrize("entry", ["铁", "Heme Iron", " IRON "])
def test_an_exclude_that_is_a_name_itself_is_an_error(entry):
    with pytest.raises(ValidationError) as exc:
        Taxonomy.model_validate({"topics": [_iron("高铁", entry)]})
    [error] = exc.value.errors()
    assert error["loc"] == ("topics", 0, "excludes", 1) and "would hide every mention" in error["msg"]


def test_guard_rule_type():
    data = {"id": "g", "type": "red_flag", "patterns": {"en": ["x"]}, "response": {"en": "a", "zh": "b"}}
    assert GuardRule.model_validate(data).patterns.zh == []
    with pytest.raises(ValidationError):
        GuardRule.model_validate({**data, "type": "warning"})


def test_a_guard_caution_note_needs_a_language_and_a_red_flag():
    data = {"id": "g", "type": "red_flag", "patterns": {"en": ["x"]}, "response": {"en": "a", "zh": "b"}}
    assert GuardRule.model_validate({**data, "caution": {"en": "note", "zh": "提示"}}).caution.zh == "提示"
    assert GuardRule.model_validate(data).caution is None
    # which languages are required is the knowledge base's (unitrag.toml), checked by the registry: one is a note
    assert GuardRule.model_validate({**data, "caution": {"en": "note"}}).caution.get("zh") == "note"
    with pytest.raises(ValidationError, match="at least one language") as exc:
        GuardRule.model_validate({**data, "caution": {}})
    assert exc.value.errors()[0]["loc"] == ("caution",)
    with pytest.raises(ValidationError, match="caution is for red_flag rules"):
        GuardRule.model_validate({**data, "type": "out_of_scope", "caution": {"en": "note", "zh": "提示"}})


def test_noting_a_red_flag_by_similarity_alone_needs_the_rules_caution_note():
    data = {"id": "g", "type": "red_flag", "patterns": {"en": ["x"]}, "response": {"en": "a", "zh": "b"}}
    assert GuardRule.model_validate(data).similar_without_sign == "unsure"  # stops when there is no note to show
    assert GuardRule.model_validate({**data, "similar_without_sign": "stop"}).similar_without_sign == "stop"
    noted = {**data, "caution": {"en": "note", "zh": "提示"}, "similar_without_sign": "caution"}
    assert GuardRule.model_validate(noted).similar_without_sign == "caution"
    with pytest.raises(ValidationError, match="needs the rule's caution note"):
        GuardRule.model_validate({**data, "similar_without_sign": "caution"})
    with pytest.raises(ValidationError):
        GuardRule.model_validate({**noted, "similar_without_sign": "pass"})


def test_a_labelled_question_may_expect_a_caution():
    from unitrag.content.labelled_question import LabelledQuestion

    q = LabelledQuestion.model_validate({"id": "q", "question": "a school report on suicide prevention", "lang": "en",
                                         "guard": "caution", "guard_rule": "red-flag-suicide-self-harm"})
    assert q.guard == "caution" and not q.answerable
    with pytest.raises(ValidationError):
        LabelledQuestion.model_validate({"id": "q", "question": "x", "lang": "en", "guard": "note"})


# --- Problem ------------------------------------------------------------------------------


def test_problem_format_and_order():
    p = Problem("content/a.md", 3, "order", "bad")
    assert str(p) == "content/a.md:3: order: bad"
    assert p.to_dict() == {"path": "content/a.md", "line": 3, "field": "order", "message": "bad"}
    ps = [Problem("b.md", 1, "x", "m"), Problem("a.md", 10, "x", "m"), Problem("a.md", 2, "x", "m")]
    assert [(q.path, q.line) for q in sorted(ps)] == [("a.md", 2), ("a.md", 10), ("b.md", 1)]


# --- a unit's questions ------------------------------------------------------------------

STORY = {"kind": "story", "id": "s", "title": "T", "topics": ["iron"], "summary": "S.", "lang": "en"}


def test_a_units_questions_are_stripped_strings():
    unit = UNIT_ADAPTER.validate_python({**STORY, "questions": ["  What should I eat for iron?  ", "补铁吃什么？"]})
    assert unit.question_texts == ["What should I eat for iron?", "补铁吃什么？"]
    assert UNIT_ADAPTER.validate_python(STORY).questions == []


@pytest.mark.parametrize("questions", ["one string, not a list", ["   "], ["x" * 301], [42], [None]])
def test_a_bad_question_list_is_an_error_naming_the_field(questions):
    with pytest.raises(ValidationError) as info:
        UNIT_ADAPTER.validate_python({**STORY, "questions": questions})
    assert all(error["loc"][1] == "questions" for error in info.value.errors())


def test_a_question_the_guard_should_stop_is_no_exemplar_and_has_no_facts():
    unit = UNIT_ADAPTER.validate_python({**STORY, "questions": [
        "What should I eat for iron?", {"q": "I swallowed my whole bottle of iron pills", "guard": "red_flag"}]})
    assert unit.questions[1].guard == "red_flag"
    assert unit.question_texts == ["What should I eat for iron?"]  # not taught to the gate as a question it answers
    for wrong in ({"q": "x?", "guard": "red_flag", "facts": ["2 mg"]}, {"q": "x?", "guard": "caution"}):
        with pytest.raises(ValidationError):
            UNIT_ADAPTER.validate_python({**STORY, "questions": [wrong]})


def test_a_rules_exemption_for_the_restricted_role_is_a_boolean_off_by_default():
    data = {"id": "g", "type": "red_flag", "patterns": {"en": ["x"]}, "response": {"en": "a", "zh": "b"}}
    assert GuardRule.model_validate(data).exempt_restricted_role is False
    assert GuardRule.model_validate({**data, "exempt_restricted_role": True}).exempt_restricted_role is True
    for wrong in ("yes", "staff", 1, [True]):
        with pytest.raises(ValidationError) as exc:
            GuardRule.model_validate({**data, "exempt_restricted_role": wrong})
        assert exc.value.errors()[0]["loc"] == ("exempt_restricted_role",)
