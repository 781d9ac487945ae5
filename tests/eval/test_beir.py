"""Reading a BEIR-layout data set: the fixture loads; every malformed part is named with its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from unitrag.eval.beir import DatasetError, load_beir

TINY = Path(__file__).parent / "data" / "tinybeir"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    shutil.copytree(TINY, tmp_path / "tiny")
    return tmp_path / "tiny"


def test_the_fixture_loads_with_graded_judgements():
    data = load_beir(TINY)
    assert (data.name, data.split, len(data.corpus), len(data.queries)) == ("tinybeir", "test", 24, 10)
    assert data.qrels["q1"] == {"d02": 2, "d23": 1}
    assert data.qrels["q8"] == {"d09": 0}  # judged, nothing relevant
    assert set(data.qrels) == {f"q{i}" for i in range(1, 9)}
    assert load_beir(TINY, "train").qrels == {"q9": {"d15": 1}, "q10": {"d16": 1}}
    assert len(data.corpus_hash) == 64 and data.corpus[22].title == ""


def test_a_missing_folder_or_file_is_named(tmp_path: Path, tiny: Path):
    with pytest.raises(DatasetError, match="folder .* not found"):
        load_beir(tmp_path / "nowhere")
    (tiny / "queries.jsonl").unlink()
    with pytest.raises(DatasetError, match=r"missing queries.jsonl"):
        load_beir(tiny)


def test_a_missing_split_lists_the_splits_there(tiny: Path):
    with pytest.raises(DatasetError, match=r"missing qrels/dev.tsv \(splits here: test, train; pass --split\)"):
        load_beir(tiny, "dev")


def test_bad_json_lines_and_missing_fields_have_line_numbers(tiny: Path):
    lines = (tiny / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = '{"_id": "d03", "title": "x", '  # cut short
    lines[4] = json.dumps({"title": "no id", "text": "..."})
    (tiny / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_beir(tiny)
    message = str(caught.value)
    assert f"{tiny / 'corpus.jsonl'}:3: not valid JSON" in message
    assert f"{tiny / 'corpus.jsonl'}:5: missing '_id'" in message


def test_qrels_naming_unknown_ids_and_duplicates_are_problems(tiny: Path):
    with (tiny / "qrels" / "test.tsv").open("a", encoding="utf-8") as handle:
        handle.write("q404\td01\t1\nq1\td404\t1\nq1\td01\tvery\n")
    with (tiny / "queries.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"_id": "q1", "text": "again"}) + "\n")
    with pytest.raises(DatasetError) as caught:
        load_beir(tiny)
    message = str(caught.value)
    qrels = tiny / "qrels" / "test.tsv"
    assert f"{qrels}:13: query 'q404' is not in queries.jsonl" in message
    assert f"{qrels}:14: document 'd404' is not in corpus.jsonl" in message
    assert f"{qrels}:15: expected 'query-id<TAB>corpus-id<TAB>score'" in message
    assert f"{tiny / 'queries.jsonl'}:11: duplicate _id 'q1' (first at line 1)" in message


def test_many_problems_are_summarised(tiny: Path):
    with (tiny / "qrels" / "test.tsv").open("a", encoding="utf-8") as handle:
        handle.writelines(f"q{i}00\td01\t1\n" for i in range(9))
    with pytest.raises(DatasetError, match=r"\.\.\. and 4 more"):
        load_beir(tiny)
