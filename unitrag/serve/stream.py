"""``POST /v1/ask/stream``: an answer as Server-Sent Events, for a page that shows text as it comes.

Events, in order:

- ``sources``: ``{question, lang, guard, not_found, broadened, sources}``: what the answer is written
  from (empty for a guard response), so a page can show the source cards at once;
- ``token`` (repeated): ``{"text": "..."}``, the raw answer text piece by piece (with its ``<Cite/>`` tags);
- ``done``: the whole answer as ``POST /v1/ask`` returns it: citation check, resolved citations,
  the ``numbered`` text and references, timings;
- ``error`` (instead of ``done``): ``{"error": "..."}`` if something failed after the stream began.

A bad request is refused with the usual 4xx JSON before any event is sent: the question is
checked, guarded and retrieved before the response starts.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from ..rag.ask_stream import AskStream
from .limits import within
from .plain import json_keys_once
from .reload import KbHolder, Loaded
from .routes import AskBody, RolesDep, StateDep, answer_json, user_context

log = logging.getLogger("unitrag.serve")
router = APIRouter(prefix="/v1")


def event(name: str, data: Any) -> str:
    """One SSE event; JSON never holds a raw newline, so ``data`` is one line."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _events(stream: AskStream, holder: KbHolder, loaded: Loaded) -> Iterator[str]:
    """The events of one answer; the lease on the knowledge base ends with the stream."""
    try:
        first = stream.answer  # set already for a guard response or "not found"
        yield event("sources", {
            "question": stream.question, "lang": stream.lang, "broadened": stream.broadened,
            "guard": first.guard.to_dict() if first and first.guard else None,
            "not_found": bool(first and first.not_found), "sources": [s.to_dict() for s in stream.sources],
        })
        for piece in stream:
            yield event("token", {"text": piece})
        assert stream.answer is not None
        yield event("done", answer_json(stream.answer))
    except Exception:
        log.exception("stream failed")
        yield event("error", {"error": "the answer stream failed (details are in the server log)"})
    finally:
        stream.close()
        holder.release(loaded)


@router.post("/ask/stream", dependencies=[Depends(json_keys_once)], response_class=StreamingResponse, responses={200: {"content": {"text/event-stream": {}}}})
async def ask_stream(body: AskBody, server: StateDep, roles: RolesDep) -> StreamingResponse:
    """``POST /v1/ask`` as Server-Sent Events: ``sources``, ``token``..., then ``done`` (or ``error``)."""
    user = user_context(body.user, roles)
    holder = server.holder
    loaded = holder.acquire()
    try:
        stream = await within(server.settings.request_timeout_s, lambda: loaded.kb.ask_stream(
            body.question, user=user, lang=body.lang))
    except BaseException:
        holder.release(loaded)
        raise
    return StreamingResponse(
        _events(stream, holder, loaded), media_type="text/event-stream",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},  # nginx: do not buffer the events
    )
