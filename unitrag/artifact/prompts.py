"""Prompt templates as the artifact stores them: the one sandbox that renders them, and what each is given.

Templates are data (authors change wording without a code release), so the build
and the runtime render them in the same ``SandboxedEnvironment`` (no access to
Python internals) with ``StrictUndefined`` (a misspelt variable is an error, not
a silently empty prompt). The environment has no loader: a template is stored
alone, by name, and cannot include, import or extend another.
"""

from __future__ import annotations

from jinja2 import StrictUndefined

from .bounded_sandbox import BoundedSandbox

#: Every value a template makes and every prompt it renders is bounded (``bounded_sandbox``).
TEMPLATE_ENV = BoundedSandbox(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)

#: The variables the runtime passes to each template it renders (rag.answer.prompt, rag.search.broaden); ``kb_name`` and
#: ``kb_description`` are the knowledge base's name and description from unitrag.toml.
TEMPLATE_VARIABLES: dict[str, tuple[str, ...]] = {
    "system": ("question", "lang", "sources", "allowed_ids", "kb_name", "kb_description"),
    "user": ("question", "lang", "sources", "allowed_ids", "kb_name", "kb_description"),
    "not_found": ("lang", "kb_name", "kb_description"),
    "refusal": ("lang", "kb_name", "kb_description"),
    "broaden": ("question", "group", "members", "lang"),
}
