"""One bounded call to the configured LLM whose answer must be one small JSON object.

The guard's second opinion and the translation probe both ask the LLM a side question
on the way to an answer. Neither may hold the answer up for long or trust free text:
the call runs on a small shared pool with a deadline, and the reply is accepted only
as one JSON object (a ```json fence allowed). Every failure comes back as a short
reason, never an exception, so the caller keeps its offline decision.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="unitrag-llm")


def ask_json(llm: Any, messages: list[dict[str, str]], deadline_s: float) -> tuple[dict[str, Any] | None, str | None]:
    """``llm``'s answer to ``messages`` as a JSON object, or None and why not, within ``deadline_s``.

    The deadline starts after ``llm.prepare()`` (loading the client library is not the request's time).
    """
    try:
        getattr(llm, "prepare", lambda: None)()
    except Exception as exc:  # e.g. the client library is missing: a UserError naming the install
        return None, f"{type(exc).__name__}: {exc}"
    future = _POOL.submit(llm.complete, messages)
    try:
        text = future.result(timeout=deadline_s)
    except FutureTimeout:
        future.cancel()
        return None, f"no answer within {deadline_s:g} s"
    except Exception as exc:  # LLMUnavailable, or anything a provider let through
        return None, f"{type(exc).__name__}: {exc}"
    return json_object(text)


def json_object(text: Any) -> tuple[dict[str, Any] | None, str | None]:
    """``text`` as one JSON object (whitespace and a ```json fence allowed), or None and why not."""
    raw = str(text).strip()
    if raw.startswith("```"):
        raw = raw.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(raw)
    except ValueError:
        return None, f"not JSON: {raw[:60]!r}"
    if not isinstance(data, dict):
        return None, f"not a JSON object: {raw[:60]!r}"
    return data, None
