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
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.types import Receive, Scope, Send

from ..rag.ask_stream import AskStream
from .limits import within
from .plain import plain_json_body
from .reload import KbHolder, Loaded
from .routes import NO_QUERY, AskBody, RolesDep, StateDep, answer_json, user_context

log = logging.getLogger("unitrag.serve")
router = APIRouter(prefix="/v1")


def event(name: str, data: Any) -> str:
    """One SSE event; JSON never holds a raw newline, so ``data`` is one line."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _events(stream: AskStream) -> Iterator[str]:
    """The events of one answer (``EventStream`` pulls them, closes the stream and ends the lease)."""
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


class EventStream(StreamingResponse):
    """The events of one answer, each pulled from the blocking stream in a worker thread; when the answer ends, or
    the client goes away (the task cancelled, a send that fails), the LLM stream is closed and the lease on the
    knowledge base released at once, never left to the garbage collector (the LLM generating on for nobody, a
    retired artifact kept in memory)."""

    def __init__(self, stream: AskStream, holder: KbHolder, loaded: Loaded) -> None:
        self._stream, self._holder, self._loaded = stream, holder, loaded
        self._events = _events(stream)
        self._ended = False
        super().__init__(self._pulled(), media_type="text/event-stream",
                         headers={"cache-control": "no-cache", "x-accel-buffering": "no"})  # nginx: no buffering

    async def _pulled(self) -> AsyncIterator[str]:
        while True:
            piece = await run_in_threadpool(next, self._events, None)
            if piece is None:
                await run_in_threadpool(self._end)  # before the last (empty) body message: the lease ends first
                return
            yield piece

    def _end(self) -> None:
        """Close the events (a generator suspended mid-answer), the LLM stream and the lease; once."""
        if self._ended:
            return
        self._ended = True
        try:
            self._events.close()
            self._stream.close()
        finally:
            self._holder.release(self._loaded)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):  # also when cancelled: the client went away
                await self.body_iterator.aclose()  # type: ignore[attr-defined]
                await run_in_threadpool(self._end)


@router.post("/ask/stream", dependencies=[Depends(plain_json_body), *NO_QUERY], response_class=StreamingResponse, responses={200: {"content": {"text/event-stream": {}}}})
async def ask_stream(body: AskBody, server: StateDep, roles: RolesDep) -> StreamingResponse:
    """``POST /v1/ask`` as Server-Sent Events: ``sources``, ``token``..., then ``done`` (or ``error``)."""
    user = user_context(body.user, roles, server)
    holder = server.holder
    loaded = holder.acquire()
    try:
        stream = await within(server.settings.request_timeout_s, lambda: loaded.kb.ask_stream(
            body.question, user=user, lang=body.lang))
    except BaseException:
        holder.release(loaded)
        raise
    return EventStream(stream, holder, loaded)
