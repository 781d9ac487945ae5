"""The prompt: the artifact's Jinja templates, rendered in a sandbox.

Templates live in the artifact (``prompts`` table, name → template), so content
authors can change the wording without a code release. That makes them data,
not code: they are rendered with Jinja's sandbox (no access to Python internals),
bounded (``artifact.bounded_sandbox``: no value and no prompt over ``max_prompt_chars``,
so an over-long prompt is a PromptError, never an LLM call), and ``StrictUndefined``
(a misspelt variable is an error, not a silently empty prompt). Sources reach
templates as plain dicts, never as Python objects with methods.

The user message puts the numbered sources first and the question after them,
then restates the rules: models follow instructions nearest the end best, and
the sources cannot be mistaken for part of the question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from jinja2 import Template, TemplateError, TemplateSyntaxError

from ...artifact.bounded_sandbox import MAX_PROMPT_CHARS, render_bounded
from ...artifact.prompts import TEMPLATE_ENV as _ENV
from ...config import DEFAULT_NAME
from ...errors import UserError
from ..types import Source

#: The templates the runtime renders; an artifact must carry all of them.
SYSTEM, USER, NOT_FOUND, REFUSAL, BROADEN = "system", "user", "not_found", "refusal", "broaden"


@dataclass(frozen=True)
class Identity:
    """What the knowledge base says it is (``name`` and ``description`` of unitrag.toml): the prompts, the
    refusal and "not found" name it, so no wording of the sample's domain is baked into a template."""

    name: str = DEFAULT_NAME
    description: str = ""
    # each language's own name and description (``name_zh``...): language → {"name": ..., "description": ...}
    localized: Mapping[str, Mapping[str, str]] = field(default_factory=dict, hash=False)

    def in_lang(self, lang: str | None) -> Identity:
        """The name and description said in ``lang``: its own where the config gives one, else the main ones."""
        own = self.localized.get(lang or "") or {}
        return Identity(own.get("name") or self.name, own.get("description") or self.description)

    def variables(self, lang: str | None = None) -> dict[str, str]:
        """The template variables: ``kb_name`` and ``kb_description``, in ``lang`` where given."""
        said = self.in_lang(lang)
        return {"kb_name": said.name, "kb_description": said.description}

    def service(self) -> str:
        """The knowledge base in a phrase, for the LLM prompts outside the templates (the guard's second opinion,
        the query translation): they must judge a question against this knowledge base's domain, not the sample's."""
        if self.name == DEFAULT_NAME and not self.description:
            return "a question-answering service over a curated knowledge base"
        about = f" ({self.description.rstrip('. ')})" if self.description else ""
        return f'the question-answering service "{self.name}"{about}'


UNNAMED = Identity()  # a knowledge base whose unitrag.toml names nothing


class PromptError(UserError):
    """A prompt template is missing from the artifact or does not render."""


class TemplateMissing(PromptError):
    """The artifact's ``prompts`` table has no template of this name."""

    def __init__(self, name: str, available: Sequence[str]) -> None:
        self.name = name
        have = ", ".join(sorted(available)) or "none"
        super().__init__(
            f"prompt template {name!r} is missing from the artifact's prompts table (it has: {have}); "
            f"add prompts/{name}.j2 to the content and rebuild"
        )


def prompt_lang(lang: str) -> str:
    """The two languages templates know: ``zh`` for any Chinese tag, else ``en``."""
    return "zh" if (lang or "").lower().startswith("zh") else "en"


@lru_cache(maxsize=64)
def _compile(name: str, source: str) -> Template:
    try:
        return _ENV.from_string(source)
    except TemplateSyntaxError as exc:
        raise PromptError(f"prompt template {name!r} has a syntax error on line {exc.lineno}: {exc.message}") from None


def render_text(name: str, templates: Mapping[str, str], *, max_chars: int = MAX_PROMPT_CHARS,
                identity: Identity = UNNAMED, **variables: Any) -> str:
    """Render template ``name`` with ``variables`` and the knowledge base's ``identity``, stripped; used for
    not_found / refusal and by ``build_messages``.

    Stopped as soon as it passes ``max_chars`` (config ``max_prompt_chars``): a PromptError, never a huge prompt.
    """
    if name not in templates:
        raise TemplateMissing(name, list(templates))
    template = _compile(name, templates[name])
    if "lang" in variables:
        variables["lang"] = prompt_lang(str(variables["lang"]))
    variables = {**identity.variables(variables.get("lang")), **variables}
    try:
        return render_bounded(template, variables, max_chars).strip()
    except TemplateError as exc:  # StrictUndefined, sandbox violations, over the budget, filter errors
        raise PromptError(f"prompt template {name!r} does not render: {exc}") from None
    except RecursionError:  # the build refuses such templates; an older artifact may still hold one
        raise PromptError(f"prompt template {name!r} does not render: runaway recursion") from None


def source_vars(sources: Sequence[Source]) -> list[dict[str, Any]]:
    """What templates see of each source: its number, title, allowed citation ids and text."""
    return [
        {
            "index": number,
            "title": source.title,
            "citation_ids": list(dict.fromkeys(source.citation_ids or ())),
            "text": (source.text or "").strip(),
            "kind": source.kind,
            "unit_id": source.unit_id,
        }
        for number, source in enumerate(sources, start=1)
    ]


def build_messages(question: str, lang: str, sources: Sequence[Source], templates: Mapping[str, str],
                   max_chars: int = MAX_PROMPT_CHARS, identity: Identity = UNNAMED) -> list[dict[str, str]]:
    """The chat messages for one question: the ``system`` template, then the ``user`` template
    (numbered sources [1]..[n], the question, the rules restated), within ``max_chars`` characters together."""
    variables: dict[str, Any] = {
        "question": question.strip(),
        "lang": lang,
        "sources": source_vars(sources),
        "allowed_ids": sorted({cid for source in sources for cid in source.citation_ids or ()}),
    }
    system = render_text(SYSTEM, templates, max_chars=max_chars, identity=identity, **variables)
    user = render_text(USER, templates, max_chars=max(max_chars - len(system), 1), identity=identity, **variables)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
