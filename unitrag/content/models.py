"""The content model: what an author may write, as pydantic v2 models.

The frontmatter of every unit is validated against one of the unit models,
selected by ``kind``. These models are also the source of the JSON Schemas in
``schema/`` that editors use, so field descriptions here are user-facing.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, ClassVar, Literal, Union

from pydantic import (
    AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt, StringConstraints, TypeAdapter,
    ValidationInfo,
    field_validator, model_validator,
)

from ..access import ACCESS_PATTERN
from .body_markup import MARKUP, TAG
from .errors import SLUG_PATTERN
from .text.citation_tags import find_tags
from .text.unicode_fold import normalize_question
from .urls import check_url

#: Ids become URL paths (/v1/units/{id}), file names of caches and keys of every table: 100 is far past any real one.
SLUG_MAX_CHARS = 100
Slug = Annotated[str, Field(pattern=SLUG_PATTERN, max_length=SLUG_MAX_CHARS,
                            description="lowercase slug: a-z, 0-9 and '-'")]
Lang = Literal["zh", "en"]
#: A scene's position: an INT32 column of the artifact; no story has a million scenes.
ORDER_MAX = 1_000_000
#: ``public``, or the knowledge base's restricted role (``restricted_role`` in unitrag.toml; validation checks which).
Access = Annotated[str, Field(pattern=ACCESS_PATTERN,
                              description="public, or the knowledge base's restricted role (restricted_role in "
                                          "unitrag.toml, clinician unless set): only callers holding it read the unit")]


class Strict(BaseModel):
    """Unknown keys are errors: a typo in a field name must not pass silently."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _one_spelling(fact: object) -> object:
    """A bare string is a fact with one spelling: ``- 1,000 mg`` is ``- ["1,000 mg"]``."""
    return [fact] if isinstance(fact, str) else fact


def _check_spelling(spelling: str) -> str:
    if not any(c.isalnum() for c in spelling):
        raise ValueError(f"spelling {spelling!r} has no letter or digit: it would be found in any answer")
    return spelling


Spelling = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200),
                     AfterValidator(_check_spelling)]
_Spellings = Annotated[list[Spelling], Field(min_length=1)]
AnswerFact = Annotated[_Spellings, BeforeValidator(_one_spelling, json_schema_input_type=Union[Spelling, _Spellings])]

def _no_tag(text: str) -> str:
    """A text served as written (``/v1/about``'s questions, ``/v1/topics``, the references) holds no HTML tag: an
    attacker's ``<img src=x onerror=…>`` in a topic's name or a citation's title validated and was served raw, and
    an app that renders it as HTML would run it (titles had the check, these texts not)."""
    found = TAG.search(text)
    if found is not None:
        raise ValueError(f"{found.group(0)[:40]!r} is markup: this text is served as written, so an app that renders "
                         "it as HTML would run it; write plain text")
    return text


#: Plain text: any HTML tag in it is an error (``_no_tag``).
PlainText = Annotated[str, AfterValidator(_no_tag)]
_QuestionText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300),
                          AfterValidator(_no_tag)]


class UnitQuestion(Strict):
    """A unit's question with the facts its answer states: a content test next to the content it tests."""

    q: _QuestionText = Field(description="The question, as a reader would ask it.")
    facts: list[AnswerFact] = Field(
        default_factory=list,
        description="The facts an answer drawn from this unit states, each a list of accepted spellings (any one is "
                    "enough) or a bare string; matched like a labelled question's answer_facts. `unitrag eval "
                    "--unit-questions` fails when the unit is not among the first 5 sources or a fact is not stated.")
    guard: Literal["red_flag", "out_of_scope"] | None = Field(
        default=None,
        description="The guard stops this question before any unit is read (a unit about what to do in an emergency "
                    "its red flag stops: \"I clicked a phishing link and typed my password\"): its content test passes "
                    "when the guard stops it so, and it teaches the answerability gate nothing. No facts with it.")

    @model_validator(mode="after")
    def _guard_or_facts(self) -> "UnitQuestion":
        if self.guard is not None and self.facts:
            raise ValueError("a question the guard stops is answered with the rule's response, not this unit: give it "
                             "facts or guard, not both")
        return self


def _plain_question(entry: object) -> object:
    """A bare string is a question with no facts: ``- How much?`` is ``- {q: How much?}``."""
    if isinstance(entry, str):
        return {"q": entry}
    if not isinstance(entry, (dict, UnitQuestion)):
        raise ValueError("a question is its text, or {q: text, facts: [...]} (a content test)")
    return entry


UnitQuestionEntry = Annotated[UnitQuestion, BeforeValidator(_plain_question,
                                                            json_schema_input_type=Union[_QuestionText, UnitQuestion])]


class UnitBase(Strict):
    id: Slug = Field(description="Stable identity, unique across all units.")
    title: str = Field(min_length=1, description="Shown to users and put in the prompt.")
    topics: list[Slug] = Field(min_length=1, description="Topic ids from topics.yaml.")

    @field_validator("title")
    @classmethod
    def _title_cites_nothing(cls, title: str) -> str:
        # a title is shown as plain text beside the answer and the sources: a tag there would reach the reader unchecked
        if find_tags(title):
            raise ValueError("a title cannot carry a citation tag (it is shown as plain text): put <Cite/> in the body")
        markup = MARKUP.search(title)
        if markup is not None:  # an attacker's '</script><script>alert(1)</script>' was served as written by the API
            raise ValueError(f"a title is plain text, and {markup.group(0)[:40]!r} is markup: the HTTP API returns the "
                             "title as written, so an app that renders it as HTML would run it; write the words")
        return title
    citation_ids: list[Slug] = Field(
        default_factory=list, alias="citationIds", description="Every id cited in the body; ids from the registry."
    )
    updated: date | None = Field(default=None, description="Optional date of the last review (YYYY-MM-DD).")
    starter: StrictBool = Field(
        default=False, description="true on the example units `unitrag init` writes: replace them with your own.")
    questions: list[UnitQuestionEntry] = Field(
        default_factory=list,
        description="Questions readers ask that this unit answers, in their own words and either language. Not shown: "
                    "they teach the answerability gate what this knowledge base answers (a question near one of them "
                    "is answered rather than \"not found\"). A question may be {q: text, facts: [...]}: a content test "
                    "(`unitrag eval --unit-questions`) then asks it and expects this unit among the sources and every "
                    "fact in the answer.",
    )

    @property
    def question_texts(self) -> list[str]:
        """The questions' text, facts or not, but those the guard stops (``UnitQuestion.guard``): what is embedded as
        answerability exemplars and sets where the guard may not stop."""
        return [q.q for q in self.questions if q.guard is None]


class Story(UnitBase):
    """An article; its chunk is its title and summary."""

    kind: Literal["story"]
    summary: str = Field(min_length=1, description="One to three sentences; embedded with the title.")
    lang: Lang
    access: Access = "public"


class Scene(UnitBase):
    """One section of a story; one chunk, or several pages."""

    kind: Literal["scene"]
    story: Slug = Field(description="Id of the story this scene belongs to.")
    order: StrictInt = Field(ge=1, le=ORDER_MAX, description="Position within the story, unique per story.")
    lang: Lang | None = Field(default=None, description="Defaults to the story's language.")
    access: Access | None = Field(default=None, description="Defaults to the story's access level.")

    @field_validator("access", mode="before")
    @classmethod
    def _access_written_or_left_out(cls, access: object) -> object:
        # only a key left out takes the story's access (pydantic never validates the default); a blank `access:` is a
        # mistake, as on every other kind, and must not quietly make a scene of a public story public
        if access is None:
            raise ValueError("access is blank: write public or the restricted role (restricted_role in unitrag.toml), "
                             "or remove the key to take the story's access")
        return access


Comparison = Literal["<", "<=", ">", ">=", "between"]
#: A number a trigger compares with: finite, and a number as written ("5", true and .nan are not).
Threshold = Annotated[float, Field(strict=True, allow_inf_nan=False)]


class Trigger(Strict):
    """A machine-checkable condition on one measured value of a user's report."""

    marker: Annotated[str, Field(pattern=r"^[a-z0-9_]+$")] = Field(description="snake_case measurement name.")
    comparison: Comparison
    threshold: Threshold | tuple[Threshold, Threshold] = Field(description="A number, or [low, high] for 'between'.")
    unit: str = Field(min_length=1)
    sex: Literal["female", "male"] | None = None

    @field_validator("threshold")
    @classmethod
    def _threshold_matches_comparison(
        cls, threshold: float | tuple[float, float], info: ValidationInfo
    ) -> float | tuple[float, float]:
        comparison = info.data.get("comparison")
        if comparison == "between":
            if not isinstance(threshold, tuple):
                raise ValueError("'between' needs threshold: [low, high]")
            low, high = threshold
            if low >= high:
                raise ValueError(f"'between' needs low < high, got [{low}, {high}]")
        elif comparison is not None and isinstance(threshold, tuple):
            raise ValueError(f"'{comparison}' needs a single number as threshold")
        return threshold

    def matches(self, value: float, sex: str | None = None) -> bool:
        """True when a measured value fires this trigger (a sex-specific rule needs that sex)."""
        if self.sex is not None and sex != self.sex:
            return False
        if isinstance(self.threshold, tuple):
            return self.threshold[0] <= value <= self.threshold[1]
        t = self.threshold
        return {"<": value < t, "<=": value <= t, ">": value > t, ">=": value >= t}[self.comparison]


class Rule(UnitBase):
    """A rule a user's report can trigger, and what it means."""

    kind: Literal["rule"]
    trigger: Trigger
    severity: Literal["info", "warning", "urgent"]
    lang: Lang
    access: Access = "public"


class Document(UnitBase):
    """Free-form Markdown, chunked by its heading structure."""

    kind: Literal["document"]
    source: str = Field(min_length=1, description="Where the text comes from.")
    lang: Lang
    access: Access = "public"


Unit = Annotated[Union[Story, Scene, Rule, Document], Field(discriminator="kind")]
UNIT_ADAPTER: TypeAdapter[Story | Scene | Rule | Document] = TypeAdapter(Unit)
UNIT_KINDS: dict[str, type[UnitBase]] = {"story": Story, "scene": Scene, "rule": Rule, "document": Document}


_IDENTIFIERS = {"doi": (re.compile(r"10\.\d{4,9}/[^\s<>\"']{1,300}"), "a DOI like 10.1000/xyz123 (without https://doi.org/)"),
                "pmid": (re.compile(r"[0-9]{1,9}"), "a PubMed id (digits only)")}


class Citation(Strict):
    """One entry of the citation registry; never an invented identifier."""

    id: Slug
    title: PlainText = Field(min_length=1)
    authors: list[PlainText] = Field(default_factory=list)
    year: StrictInt = Field(ge=1800, le=2100)
    venue: PlainText | None = None
    url: str | None = None
    doi: str | None = Field(default=None, description="A DOI as 10.NNNN/suffix, without the https://doi.org/ prefix.")
    pmid: str | None = Field(default=None, description="A PubMed id: digits.")

    @field_validator("url")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        return None if v is None else check_url(v)

    @field_validator("doi", "pmid")
    @classmethod
    def _identifier(cls, v: str | None, info: ValidationInfo) -> str | None:
        # shown as a link beside every answer that cites it: the identifier's syntax, nothing a page could render as markup
        syntax, expected = _IDENTIFIERS[info.field_name or ""]
        if v is not None and not syntax.fullmatch(v):
            raise ValueError(f"expected {expected}, got {v[:80]!r}")
        return v


class InOurLanguages(Strict):
    """A text in each of the knowledge base's languages (unitrag.toml: languages); a language it does not declare
    may be left out (the other language's text stands in for it). Which ones are required is the registry's check
    (``registry.missing_languages``), which knows the languages; here, only that one is written at all."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})
    _noun: ClassVar[str] = "text"

    en: str | None = Field(default=None, min_length=1)
    zh: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _written(self) -> "InOurLanguages":
        if not (self.en or self.zh):
            raise ValueError(f"give the {self._noun} in at least one language (en, zh): in each of this knowledge "
                             "base's languages (unitrag.toml)")
        return self

    def get(self, lang: str) -> str:
        """The text in ``lang``, else in the other language (one always exists)."""
        return getattr(self, lang, None) or self.en or self.zh or ""


class LocalizedNames(InOurLanguages):
    """A topic's name in each of the knowledge base's languages (unitrag.toml: languages); a language it does not
    declare may be left out (the other language's name stands in for it)."""

    _noun: ClassVar[str] = "name"
    en: PlainText | None = Field(default=None, min_length=1)
    zh: PlainText | None = Field(default=None, min_length=1)

    def forms(self) -> list[str]:
        """Every name written, English first."""
        return [name for name in (self.en, self.zh) if name]


class LocalizedSynonyms(Strict):
    en: list[PlainText] = Field(default_factory=list)
    zh: list[PlainText] = Field(default_factory=list)


def _check_exclude(entry: str, info: ValidationInfo) -> str:
    """An exclude must contain one of its topic's names or synonyms (else it could never mask a mention)."""
    entry = entry.strip()
    if not entry:
        raise ValueError("an exclude must not be empty")
    names, synonyms = info.data.get("names"), info.data.get("synonyms")
    if names is None or synonyms is None:
        return entry  # the names are wrong already, and reported on their own
    forms = [*names.forms(), *synonyms.en, *synonyms.zh]
    matched = [normalize_question(form).lower() for form in forms]
    text, topic = normalize_question(entry).lower(), info.data.get("id", "?")
    if not any(form in text for form in matched):
        raise ValueError(
            f"exclude {entry!r} of topic {topic!r} contains none of its names or synonyms ({', '.join(forms)}): "
            "an exclude is a word that contains a name but is not about the topic"
        )
    if text in matched:
        raise ValueError(f"exclude {entry!r} of topic {topic!r} is one of its own names or synonyms: "
                         "it would hide every mention of the topic; list the longer word that is not about it")
    return entry


class Topic(Strict):
    id: Slug
    names: LocalizedNames = Field(
        description="The topic's name in each of the knowledge base's languages (unitrag.toml: languages = [\"zh\"] "
                    "needs zh only).")
    synonyms: LocalizedSynonyms = Field(default_factory=LocalizedSynonyms)
    excludes: list[Annotated[str, AfterValidator(_check_exclude)]] = Field(
        default_factory=list,
        description="False friends: words that contain one of the topic's names or synonyms but are not about it "
                    "(铁 iron: 高铁, 地铁). A name found only inside one of them does not count as a mention.",
    )


class TopicGroup(Topic):
    """A named set of topics ("B vitamins"); a question about it is broadened to its members."""

    members: list[Slug] = Field(min_length=1)


class Taxonomy(Strict):
    topics: list[Topic]
    groups: list[TopicGroup] = Field(default_factory=list)
