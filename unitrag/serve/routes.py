"""The ``/v1`` endpoints: the same JSON as ``unitrag search/ask --json``, with roles from ``auth``.

Each request leases the knowledge base it starts with (``reload.KbHolder``) and runs the
blocking work in a worker thread under the request timeout. A unit the caller may not read
is "not found", exactly like an id that does not exist.
"""

from __future__ import annotations

import inspect
import logging
import typing
from collections.abc import Sequence
from typing import Annotated, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException

from ..errors import InvalidArgument
from ..rag.arguments import names, shown
from ..rag.answer.citations import number_citations
from ..rag.knowledge_base import Answer
from ..rag.types import UserContext
from .about import about as about_kb
from .limits import within
from .plain import once_each, plain_json_body, query_names
from .state import ServerState

#: Results go out as they are (already plain JSON types): FastAPI's generic encoder would walk every
#: source's scores again, a measurable share of a search's time (docs/benchmarks/serve.md).
router = APIRouter(prefix="/v1", default_response_class=JSONResponse)
log = logging.getLogger("unitrag.serve")


class UserBody(BaseModel):
    """The caller's context. ``roles`` can only narrow what the credentials grant, never widen it."""

    model_config = ConfigDict(extra="forbid")
    triggered_rules: list[str] = Field(default_factory=list)
    recent_scenes: list[str] = Field(default_factory=list)
    current_topic: str | None = None
    # left out: whatever the credentials grant; ``null`` is refused, as the library and the other lists refuse it
    roles: Annotated[list[str] | None, WithJsonSchema({"type": "array", "items": {"type": "string"}})] = None

    @field_validator("roles", mode="before")
    @classmethod
    def _roles_not_null(cls, value: Any) -> Any:
        """An explicit ``null`` (a default is not validated): ``UserContext.from_dict`` refuses it too."""
        if value is None:
            raise PydanticCustomError("roles_null", "expected a list of names, got null (leave roles out for what "
                                                   "the credentials grant)")
        return value


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(description="The question (at most the server's max_question_chars).")
    lang: str | None = Field(None, description="Answer language: zh or en (default: the question's).")
    user: UserBody | None = None


def state(request: Request) -> ServerState:
    return request.app.state.unitrag  # type: ignore[no-any-return]


StateDep = Annotated[ServerState, Depends(state)]


def granted_roles(request: Request) -> tuple[str, ...]:
    """The roles the operator's configuration gives this request's credentials (empty: anonymous)."""
    peer = request.client.host if request.client else None
    server = state(request)
    return server.auth.roles(request.headers, peer, (server.holder.current.kb.restricted_role,))


RolesDep = Annotated[tuple[str, ...], Depends(granted_roles)]


def user_context(body: UserBody | None, granted: Sequence[str], server: ServerState) -> UserContext:
    """The context the knowledge base sees: the body's ids, and roles that are granted (and, if the
    body names roles, also named there). To a caller whose credentials grant no role, every role the body claims is
    dropped silently, whatever its name: were the restricted role's name answered otherwise than another's, an
    anonymous caller could learn it. A caller holding the role is told (422) a name that is not it, a typo."""
    if body is None:
        return UserContext(roles=tuple(granted))
    role = server.holder.current.kb.restricted_role
    claimed = granted if body.roles is None else UserContext(roles=names(body.roles, "user.roles")).roles
    unknown = [r for r in claimed if r != role]
    if unknown and granted:
        raise InvalidArgument(f"user.roles: {unknown[0]!r} is not this knowledge base's role ({role!r})")
    return UserContext(
        triggered_rules=tuple(body.triggered_rules), recent_scenes=tuple(body.recent_scenes),
        current_topic=body.current_topic, roles=tuple(r for r in claimed if r in granted),
    )


def answer_json(answer: Answer) -> dict[str, Any]:
    """``Answer.to_dict()`` plus the text for reading: ``[n]`` markers and the numbered references.

    ``llm_error`` is the failure's fixed category (``llm_unavailable``, ``llm_auth`` ...), never the provider's
    text, which can echo an endpoint's password or a key: that line goes to the server log, redacted.
    """
    category = answer.llm_error_kind or ("llm_error" if answer.llm_error else None)
    if answer.llm_error:
        log.warning("the LLM's answer was not used (%s): %s", category, answer.llm_error)
    text, references = number_citations(answer.answer, answer.citations)
    return {**answer.to_dict(), "llm_error": category, "llm_error_kind": category,
            "numbered": {"text": text, "references": [r.to_dict() for r in references]}}


def no_query_params(request: Request) -> None:
    """An endpoint that reads no query parameter refuses any, as ``/v1/search`` refuses one it does not take
    (``known_search_params``): ``/v1/units/x?role=staff`` is not silently the anonymous unit, nor a typo ignored,
    nor ``POST /v1/ask?role=clinician`` an answer that looks like it honoured the role. A name is quoted shortened."""
    given = query_names(request)  # 400 first for a name or value that is not UTF-8, as on /v1/search
    if given:
        route = request.scope.get("route")
        endpoint = getattr(route, "path", request.url.path)
        raise HTTPException(422, f"unknown query parameter {shown(given[0])} for {endpoint}; it takes no query parameters")


#: What every endpoint but /v1/search (which checks its own, ``known_search_params``) depends on.
NO_QUERY = [Depends(no_query_params)]


@router.get("/health", dependencies=[*NO_QUERY, Depends(granted_roles)])
def health(server: StateDep) -> dict[str, Any]:
    """The artifact being served: its id changes when a new build is swapped in. ``status`` is "degraded" while
    the last reload failed (an older build still serving); ``last_reload`` says how and when it ended;
    ``generation`` is the publish generation served from PostgreSQL (None for an artifact file); ``units`` and
    ``chunks`` count what every caller may read (``unitrag inspect`` counts them all). Public, so a probe sends no
    key; but a key that is sent is checked (``granted_roles``): a wrong or empty one is the 401 of every other
    endpoint, never a 200 that tells a client its key works."""
    holder = server.holder
    loaded = holder.current
    manifest = loaded.kb.store.manifest
    units, chunks = loaded.public_counts
    return {
        "status": "degraded" if holder.degraded else "ok", "artifact_id": loaded.id, "loaded_at": loaded.loaded_at,
        "generation": loaded.generation,
        "reloads": holder.reloads, "last_reload": holder.last_reload.to_dict() if holder.last_reload else None,
        "embedder": manifest.get("embedder", {}).get("id"), "units": units, "chunks": chunks,
        "built_at": manifest.get("built_at"),
        "schema_version": manifest.get("schema_version"), "max_question_chars": loaded.kb.config.max_question_chars,
    }


@router.get("/me", dependencies=NO_QUERY)
def me(roles: RolesDep) -> dict[str, Any]:
    """The roles this request's credentials hold (the preview page shows role controls only then)."""
    return {"authenticated": bool(roles), "roles": list(roles)}


@router.get("/about", dependencies=NO_QUERY)
def about(server: StateDep, roles: RolesDep) -> dict[str, Any]:
    """What the knowledge base is (name, description, languages, from ``unitrag.toml``) and example questions and
    topics from the artifact, for the units these credentials may read: the preview page's texts and examples."""
    with server.holder.lease() as loaded:
        return about_kb(loaded.kb, roles)


def takes_list(annotation: Any) -> bool:
    """``list[...]``, also inside ``Annotated`` or ``| None``."""
    return typing.get_origin(annotation) is list or any(takes_list(a) for a in typing.get_args(annotation))


def takes(annotation: Any, kind: type) -> bool:
    """``kind`` itself, also inside ``Annotated`` or ``| None`` (not as a list's items)."""
    return annotation is kind or (typing.get_origin(annotation) is not list
                                  and any(takes(a, kind) for a in typing.get_args(annotation)))


def known_search_params(request: Request) -> None:
    """Any query parameter ``search`` does not take is refused, as POST /v1/ask refuses unknown fields, so that a typo
    (``topics=``, ``language=``) is not silently a search with no filter; so is one that is not UTF-8 (400), and one
    given twice that takes one value (``k=1&k=9``: which was meant?)."""
    given = query_names(request)
    unknown = sorted(set(given) - set(SEARCH_PARAMS))
    if unknown:
        raise HTTPException(422, f"unknown query parameter {shown(unknown[0])} for /v1/search; known: {', '.join(SEARCH_PARAMS)}")
    once_each(given, SEARCH_REPEATABLE, "/v1/search")
    for name in SEARCH_INTEGERS & set(given):
        digits_only(request.query_params[name], name)


def digits_only(value: str, name: str) -> None:
    """422 for a whole number not written as plain ASCII digits: pydantic's reading takes ``3_0`` (30), ``3.0``,
    ``+3``, `` 7 `` and other digits, where the library refuses ``2.0`` and a proxy or a log reads what was sent."""
    if not (value.isascii() and value.isdigit()):
        raise HTTPException(422, f"{name}: expected a whole number in plain digits (0-9), got {shown(value)}")


@router.get("/search", dependencies=[Depends(known_search_params)])
async def search(
    server: StateDep, roles: RolesDep,
    q: Annotated[str, Query(description="The question.")],
    k: Annotated[int | None, Query(description="How many sources (1-100).")] = None,
    lang: Annotated[str | None, Query(description="Only chunks in this language: zh or en.")] = None,
    kind: Annotated[list[str] | None, Query(description="Only these unit kinds (repeatable).")] = None,
    topic: Annotated[list[str] | None, Query(description="Only chunks with any of these topics (repeatable).")] = None,
    current_topic: Annotated[str | None, Query()] = None,
    recent_scene: Annotated[list[str] | None, Query(description="Recently read scenes (repeatable).")] = None,
    triggered_rule: Annotated[list[str] | None, Query(description="Rules the user's report triggered (repeatable).")] = None,
) -> dict[str, Any]:
    """Ranked sources with every stage's score (no guard, no LLM): ``unitrag search --json``."""
    try:  # the context's own checks too (``recent_scene=``: an empty name), not only the search's
        user = user_context(UserBody(current_topic=current_topic, recent_scenes=recent_scene or [],
                                     triggered_rules=triggered_rule or []), roles, server)
        with server.holder.lease() as loaded:
            result = await within(server.settings.request_timeout_s, lambda: loaded.kb.search(
                q, k=k, user=user, lang=lang, kinds=kind, topics=topic))
    except InvalidArgument as exc:
        raise InvalidArgument(as_query_parameter(str(exc))) from None
    return JSONResponse(result.to_dict())  # type: ignore[return-value]


#: The query parameters of GET /v1/search: its own arguments, but the injected state and roles.
SEARCH_PARAMS = tuple(name for name in inspect.signature(search).parameters if name not in ("server", "roles"))
_SEARCH_ANNOTATIONS = {name: p.annotation for name, p in inspect.signature(search, eval_str=True).parameters.items()}
#: Those that take a list: given once per value (``kind=scene&kind=rule``); any other given twice is refused.
SEARCH_REPEATABLE = frozenset(name for name, annotation in _SEARCH_ANNOTATIONS.items() if takes_list(annotation))
#: Those that take a whole number (``k``): written in plain digits only (``digits_only``).
SEARCH_INTEGERS = frozenset(name for name, annotation in _SEARCH_ANNOTATIONS.items() if takes(annotation, int))
#: The knowledge base's argument → the query parameter that carries it, where the names differ.
SEARCH_ARGUMENTS = {"kinds": "kind", "topics": "topic", "recent_scenes": "recent_scene", "triggered_rules": "triggered_rule"}


def as_query_parameter(message: str) -> str:
    """The knowledge base's message (``kinds: unknown 'poem'``) naming the query parameter the caller sent (``kind``)."""
    argument, sep, rest = message.partition(":")
    return f"{SEARCH_ARGUMENTS[argument]}{sep}{rest}" if sep and argument in SEARCH_ARGUMENTS else message


@router.post("/ask", dependencies=[Depends(plain_json_body), *NO_QUERY])
async def ask(body: AskBody, server: StateDep, roles: RolesDep) -> dict[str, Any]:
    """An answer with checked citations: ``unitrag ask --json``, plus ``numbered`` for display."""
    user = user_context(body.user, roles, server)
    with server.holder.lease() as loaded:
        answer = await within(server.settings.request_timeout_s, lambda: loaded.kb.ask(
            body.question, user=user, lang=body.lang))
    return JSONResponse(answer_json(answer))  # type: ignore[return-value]


@router.get("/units/{unit_id}", dependencies=NO_QUERY)
def unit(unit_id: str, server: StateDep, roles: RolesDep) -> dict[str, Any]:
    """A unit's metadata and its chunks' text; restricted units only for a role that may read them."""
    with server.holder.lease() as loaded:
        store = loaded.kb.store
        # the same lookups and the same 404 for a unit that is missing and one the caller may not read:
        # no time or byte tells them apart (issue 22); the unit's row and text are read only once allowed
        visible = loaded.kb.known.visible(unit_id, roles)
        rows = unit_rows(store.columns["unit_id"].array, unit_id)
        if not visible or not rows or any(store.access[i] != "public" and store.access[i] not in roles for i in rows):
            raise HTTPException(404, f"no unit {_shown_id(unit_id)}")
        meta = store.units[unit_id]
        chunks = [store.source(i).to_dict(with_text=True) for i in rows]
    for chunk in chunks:
        chunk.pop("scores", None)
        chunk.pop("score", None)
    return {**meta, "access": chunks[0]["access"], "lang": chunks[0]["lang"], "chunks": chunks}


def _shown_id(requested: str, limit: int = 100) -> str:
    """An id as a 404 names it: a path of 100 kB is not sent back whole (no id is longer than 100 characters)."""
    return repr(requested) if len(requested) <= limit else repr(requested[:limit]) + f"… ({len(requested)} characters)"


def unit_rows(unit_ids: pa.Array, unit_id: str) -> list[int]:
    """The chunk rows of one unit: one vectorised pass over the column (a Python loop over 100k ids took ms)."""
    return np.flatnonzero(pc.equal(unit_ids, unit_id).fill_null(False).to_numpy(zero_copy_only=False)).tolist()


@router.get("/citations/{citation_id}", dependencies=NO_QUERY)
def citation(citation_id: str, server: StateDep, roles: RolesDep) -> dict[str, Any]:
    """One entry of the citation registry, when a unit the caller may read cites it: one cited only by restricted
    units is the same 404 as an unknown id (its title would tell what the restricted content covers)."""
    with server.holder.lease() as loaded:
        row, shown = loaded.kb.store.citations.get(citation_id), loaded.visible.citation(citation_id, roles)  # both, always
        if row is None or not shown:
            raise HTTPException(404, f"no citation {_shown_id(citation_id)}")
        return dict(row)


@router.get("/topics", dependencies=NO_QUERY)
def topics(server: StateDep, roles: RolesDep) -> dict[str, Any]:  # roles: the credentials are checked (401) all the same
    """The topic taxonomy (ids, names and synonyms per language, groups), whole: a topic only units the caller may not
    read carry is listed as a declared gap (one no unit carries) is, and nothing else tells the two apart (serve.visible)."""
    return {"topics": server.holder.current.kb.store.topics}
