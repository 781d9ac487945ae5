"""JSON Schemas for editors, generated from the content models (never written by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from .models import UNIT_ADAPTER, Citation, Document, Rule, Scene, Story, Taxonomy
from .guard_model import GuardRule
from .labelled_question import LabelledQuestion

_MODELS: dict[str, type[BaseModel] | TypeAdapter[Any]] = {
    "unit": UNIT_ADAPTER, "story": Story, "scene": Scene, "rule": Rule, "document": Document,
    "citations": TypeAdapter(list[Citation]), "topics": Taxonomy, "guard": TypeAdapter(list[GuardRule]),
    "questions": TypeAdapter(list[LabelledQuestion]),
}


def json_schemas() -> dict[str, dict[str, Any]]:
    """File name → schema, as ``unitrag schema`` writes them."""
    schemas = {}
    for name, model in _MODELS.items():
        schema = model.json_schema(by_alias=True) if isinstance(model, TypeAdapter) else model.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema.setdefault("title", name)
        schemas[f"{name}.schema.json"] = schema
    return schemas


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in json_schemas().items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def stale_schemas(directory: Path) -> list[str]:
    """Names of committed schema files that differ from the models (or are missing)."""
    stale = []
    for name, schema in json_schemas().items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != render(schema):
            stale.append(name)
    return stale
