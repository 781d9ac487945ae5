"""JSON Schemas generated from the models, and the staleness check for committed ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unitrag.content.json_schema import json_schemas, render, stale_schemas, write_schemas

NAMES = ["unit", "story", "scene", "rule", "document", "citations", "topics", "guard", "questions"]


def test_every_schema_is_generated():
    schemas = json_schemas()
    assert sorted(schemas) == sorted(f"{n}.schema.json" for n in NAMES)
    for name, schema in schemas.items():
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert schema.get("title"), name


def test_unit_schema_discriminates_the_four_kinds():
    unit = json_schemas()["unit.schema.json"]
    disc = unit["discriminator"]
    assert disc["propertyName"] == "kind"
    assert set(disc["mapping"]) == {"story", "scene", "rule", "document"}
    refs = {o["$ref"] for o in unit["oneOf"]}
    assert refs == set(disc["mapping"].values())
    for kind, ref in disc["mapping"].items():
        model = unit["$defs"][ref.rsplit("/", 1)[1]]
        assert model["properties"]["kind"]["const"] == kind


def test_schemas_use_author_field_names():
    scene = json_schemas()["scene.schema.json"]
    assert "citationIds" in scene["properties"] and "citation_ids" not in scene["properties"]
    assert set(scene["required"]) >= {"kind", "id", "title", "topics", "story", "order"}
    assert scene["additionalProperties"] is False  # typos are errors in editors too
    assert scene["properties"]["order"]["minimum"] == 1


def test_rule_schema_has_trigger_and_descriptions():
    rule = json_schemas()["rule.schema.json"]
    assert "trigger" in rule["required"] and "severity" in rule["required"]
    trigger = rule["$defs"]["Trigger"]
    assert trigger["properties"]["comparison"]["enum"] == ["<", "<=", ">", ">=", "between"]
    assert rule["properties"]["id"]["description"]


def test_registry_schemas_are_lists_or_taxonomy():
    schemas = json_schemas()
    assert schemas["citations.schema.json"]["type"] == "array"
    assert schemas["guard.schema.json"]["type"] == "array"
    assert "topics" in schemas["topics.schema.json"]["properties"]


def test_render_is_deterministic_json():
    schema = json_schemas()["story.schema.json"]
    text = render(schema)
    assert text.endswith("\n") and json.loads(text) == schema
    assert render(json_schemas()["story.schema.json"]) == text


def test_written_schemas_are_fresh(tmp_path):
    written = write_schemas(tmp_path / "schema")
    assert sorted(p.name for p in written) == sorted(f"{n}.schema.json" for n in NAMES)
    assert stale_schemas(tmp_path / "schema") == []


def test_tampered_schema_is_stale(tmp_path):
    d = tmp_path / "schema"
    write_schemas(d)
    path = d / "rule.schema.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["required"].remove("trigger")
    path.write_text(render(data), encoding="utf-8")
    assert stale_schemas(d) == ["rule.schema.json"]


@pytest.mark.parametrize("edit", ["delete", "whitespace"])
def test_missing_or_reformatted_schema_is_stale(tmp_path, edit):
    d = tmp_path / "schema"
    write_schemas(d)
    path = d / "topics.schema.json"
    if edit == "delete":
        path.unlink()
    else:
        path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert stale_schemas(d) == ["topics.schema.json"]


def test_empty_directory_is_all_stale(tmp_path):
    assert len(stale_schemas(tmp_path)) == len(NAMES)


def test_committed_schemas_match_the_models():
    """schema/ is what editors validate frontmatter with: it must never lag the models."""
    repo_schema = Path(__file__).resolve().parents[2] / "schema"
    assert stale_schemas(repo_schema) == [], "run `unitrag schema` and commit schema/"
