"""CLI error paths: one readable message, the right exit code, never a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.expect import one_error_line

from unitrag.config import DEFAULT_EMBEDDER

REPO = Path(__file__).resolve().parents[2]


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_validate_bundled_content_is_clean():
    result = _run(REPO, "validate")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok:")


def test_validate_prints_every_problem_and_exits_1(tmp_path):
    content = tmp_path / "content"
    (content / "rules").mkdir(parents=True)
    (content / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (content / "rules" / "a.md").write_text("---\nkind: rule\nid: a\n---\n\nbody\n", encoding="utf-8")
    (content / "rules" / "b.md").write_text("---\nkind: nope\n---\n\nbody\n", encoding="utf-8")
    result = _run(tmp_path, "validate")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert "content/rules/a.md:2: title: required field is missing" in lines
    assert "content/rules/b.md:2: kind: unknown kind 'nope' (expected one of story, scene, rule, document)" in lines
    # validate never writes: the last line says what it read, not "nothing was written"
    assert lines[-1] == ("6 problem(s) in 2 file(s); checked every file in content and prompts; "
                         "valid: 0 units, 0 citations, 0 topics, 0 guard rules, 0 prompt templates")
    assert "Traceback" not in result.stderr


def test_validate_checks_calibration_json_as_the_build_reads_it(tmp_path):
    """A gate whose slope is infinite would switch "not found" off: the pull request's validate says so."""
    import json
    import shutil

    shutil.copytree(REPO / "content", tmp_path / "content")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    calibration = json.loads((REPO / "calibration.json").read_text(encoding="utf-8"))
    (tmp_path / "calibration.json").write_text(json.dumps(calibration), encoding="utf-8")
    assert _run(tmp_path, "validate").returncode == 0
    text = json.dumps(calibration).replace(f'"a": {json.dumps(calibration["gates"][0]["a"])}', '"a": 1e400', 1)
    (tmp_path / "calibration.json").write_text(text, encoding="utf-8")
    result = _run(tmp_path, "validate")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "calibration.json:1: file: gates[0].a: expected a finite number, not inf" in result.stderr


def test_validate_checks_the_prompt_templates_too(tmp_path):
    import shutil

    shutil.copytree(REPO / "content", tmp_path / "content")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    with open(tmp_path / "prompts" / "user.j2", "a", encoding="utf-8") as handle:
        handle.write("{{ question | no_such_filter }}\n")
    line = (tmp_path / "prompts" / "user.j2").read_text(encoding="utf-8").count("\n")
    for command in (("validate",), ("build", "--dry-run")):
        result = _run(tmp_path, *command)
        assert result.returncode == 1, command
        assert f"prompts/user.j2:{line}: template: No filter named 'no_such_filter'." in result.stderr.splitlines()
        assert "Traceback" not in result.stderr


def test_unknown_flag_is_a_usage_error_not_a_traceback(tmp_path):
    result = _run(tmp_path, "build", "--no-such-flag")
    assert one_error_line(result, code=2) == "error: build: no such option --no-such-flag (run 'unitrag build --help')"


def test_inspect_without_an_artifact_says_what_to_do(tmp_path):
    result = _run(tmp_path, "inspect")
    assert result.returncode == 1
    assert result.stderr.strip() == "error: artifact dist/kb.duckdb not found: run `unitrag build` first (or pass --kb/--out)"


def test_a_misspelled_artifact_or_questions_file_names_the_one_meant(tmp_path):
    """A new team typed --kb dist/kb.duckbd and was told to build first; and --questions question_test.yaml, and was
    told to pass --questions, which it had."""
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "kb.duckdb").write_bytes(b"")
    result = _run(tmp_path, "inspect", "dist/kb.duckbd")
    assert one_error_line(result) == f"error: artifact dist/kb.duckbd not found: did you mean {Path('dist/kb.duckdb')}?"
    (tmp_path / "questions_test.yaml").write_text("[]\n")
    result = _run(tmp_path, "eval", "--questions", "question_test.yaml", "--kb", "dist/kb.duckdb")
    assert one_error_line(result) == "error: labelled questions question_test.yaml not found: did you mean questions_test.yaml?"
    result = _run(tmp_path, "eval", "--questions", "other.yaml", "--kb", "dist/kb.duckdb")
    assert "give the path of a labelled questions file with --questions" in one_error_line(result)


def test_unknown_embedder_is_named(tmp_path):
    result = _run(REPO, "build", "--dry-run", "--embedder", "bogus:model", "--out", str(tmp_path / "kb.duckdb"))
    assert result.returncode == 1
    assert "unknown embedder 'bogus:model'" in result.stderr and "Traceback" not in result.stderr


def test_bad_config_value_from_the_environment(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "unitrag", "build", "--dry-run"], cwd=REPO, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "UNITRAG_BATCH_SIZE": "many"}, timeout=120,
    )
    assert result.returncode == 1
    assert "batch_size" in result.stderr and "positive whole number" in result.stderr


def _registry_only(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    content.mkdir()
    for name in ("topics.yaml", "guard.yaml"):
        (content / name).write_bytes((REPO / "content" / name).read_bytes())
    return content


def test_building_registry_files_only_is_refused_unless_allow_empty(tmp_path):
    content, out = _registry_only(tmp_path), tmp_path / "kb.duckdb"
    result = _run(tmp_path, "build", "--dry-run", "--content", str(content), "--out", str(out))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "--allow-empty" in result.stderr
    allowed = _run(tmp_path, "build", "--dry-run", "--allow-empty", "--content", str(content), "--out", str(out))
    assert allowed.returncode == 0, allowed.stderr


def test_an_output_path_that_cannot_be_created_is_one_line_before_any_embedding(tmp_path):
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    out = tmp_path / "a-file" / "kb.duckdb"
    result = _run(REPO, "build", "--out", str(out), "--cache-dir", str(tmp_path / "cache"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"error: cannot write the artifact {out}: a part of the path is a file, not a folder; choose another --out or fix the folder"
    ]
    assert not (tmp_path / "cache").exists()  # failed before the embedding cache was opened


def test_the_dry_run_plan_shows_the_embedding_estimate(tmp_path):
    import json
    import re

    # an empty embedding cache: the repository's own would hold every chunk (counted apart, not to embed)
    args = ("build", "--dry-run", "--out", str(tmp_path / "kb.duckdb"), "--cache-dir", str(tmp_path / "cache"))
    data = json.loads(_run(REPO, *args, "--json").stdout)
    chunks = data["plan"]["new"]
    assert data["estimate"]["chunks"] == chunks and data["estimate"]["seconds"] > 0
    assert data["estimate"]["from_cache"] == 0
    human = _run(REPO, *args)
    assert human.returncode == 0, human.stderr
    text = " ".join(human.stdout.split())
    assert re.search(rf"would embed {chunks} chunk\(s\) with {re.escape(DEFAULT_EMBEDDER)}: ~\d+ (s|min|h)", text), text


def _run_bounded(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """``_run`` that cannot hang on a FIFO (timeout) nor fill memory from /dev/zero (1 GiB address-space cap)."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, preexec_fn=cap)


def _sample(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(REPO / "content", tmp_path / "content")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    return tmp_path


@pytest.mark.parametrize("args", [
    ("build", "--dry-run", "--out", "content/eval/questions.yaml"),
    ("build", "--full", "--out", "content/topics.yaml"),
    ("build", "--full", "--out", "content/new.duckdb"),
    ("build", "--dry-run", "--out", "prompts/user.j2"),
])
def test_build_refuses_an_out_inside_the_content_or_prompts_folder(tmp_path: Path, args: tuple[str, ...]) -> None:
    root = _sample(tmp_path)
    target = root / args[-1]
    before = target.read_bytes() if target.exists() else None
    line = one_error_line(_run_bounded(root, *args), "inside the", "--out")
    assert "--full" not in line
    assert (target.read_bytes() if target.exists() else None) == before


def test_build_refuses_an_artifact_in_the_config_inside_the_content_folder(tmp_path: Path) -> None:
    root = _sample(tmp_path)
    (root / "unitrag.toml").write_text('artifact = "content/kb.duckdb"\n', encoding="utf-8")
    one_error_line(_run_bounded(root, "build", "--full"), "inside the content_dir folder")
    assert not (root / "content" / "kb.duckdb").exists()


@pytest.mark.parametrize("flags", [("--dry-run",), ("--full",), ("--dry-run", "--full")])
def test_build_refuses_an_existing_out_that_is_not_a_duckdb_artifact(tmp_path: Path, flags: tuple[str, ...]) -> None:
    root = _sample(tmp_path)
    notes = root / "notes.yaml"
    notes.write_text("- keep: me\n", encoding="utf-8")
    line = one_error_line(_run_bounded(root, "build", *flags, "--out", "notes.yaml"),
                           "not a DuckDB artifact", "delete the file yourself")
    assert "--full" not in line
    assert notes.read_text(encoding="utf-8") == "- keep: me\n"


def test_build_tells_a_damaged_artifact_from_a_file_that_is_not_one(tmp_path: Path) -> None:
    import duckdb

    root = _sample(tmp_path)
    (root / "dist").mkdir()
    damaged = root / "dist" / "kb.duckdb"
    con = duckdb.connect(str(damaged))
    con.execute("CREATE TABLE t AS SELECT range AS i FROM range(100000)")
    con.close()
    damaged.write_bytes(damaged.read_bytes()[:8192])  # truncated: DuckDB's header is still there
    one_error_line(_run_bounded(root, "build", "--dry-run"), "rebuild it with `unitrag build --full`")
    result = _run_bounded(root, "build", "--dry-run", "--full")  # what the message advises is allowed
    assert result.returncode == 0, result.stderr[-2000:]


def test_build_refuses_a_fifo_as_out_before_opening_it(tmp_path: Path) -> None:
    root = _sample(tmp_path)
    os.mkfifo(root / "kb.duckdb")
    one_error_line(_run_bounded(root, "build", "--dry-run", "--out", "kb.duckdb"), "not a regular file")


def test_inspect_refuses_a_fifo_before_opening_it(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "kb.duckdb")
    one_error_line(_run_bounded(tmp_path, "inspect", "kb.duckdb"), "not a regular file")


@pytest.mark.parametrize("command", [("build", "--dry-run"), ("inspect",), ("eval", "--questions", "q.yaml")])
@pytest.mark.parametrize("kind", ["folder", "fifo", "/dev/zero"])
def test_a_config_that_is_not_a_regular_file_is_one_line(tmp_path: Path, command: tuple[str, ...], kind: str) -> None:
    config = {"folder": tmp_path / "conf", "fifo": tmp_path / "conf.toml", "/dev/zero": Path("/dev/zero")}[kind]
    if kind == "folder":
        config.mkdir()
    elif kind == "fifo":
        os.mkfifo(config)
    words = ("is a folder",) if kind == "folder" else ("not a regular file",)
    one_error_line(_run_bounded(tmp_path, *command, "--config", str(config)), "config file", *words)


@pytest.mark.skipif(sys.platform == "win32", reason="no fcntl: builds are not locked")
def test_a_build_while_another_writes_the_artifact_is_one_line(tmp_path: Path) -> None:
    from tests.compiler.test_build_lock import hold_lock

    out = tmp_path / "kb.duckdb"
    holder = hold_lock(out)
    try:
        line = one_error_line(_run(REPO, "build", "--out", str(out), "--cache-dir", str(tmp_path / "cache")))
    finally:
        holder.kill()
        holder.wait()
    assert line == f"error: another build is writing {out} (pid {holder.pid}): wait for it or stop it"
    assert not out.exists() and not (tmp_path / "cache").exists()


def test_a_near_miss_stopped_by_its_rule_s_pattern_is_warned_unless_the_framing_answers_it() -> None:
    from unitrag.cli.build_cmds import _stopped_whatever_the_framing

    found = [{"rule": "red-shock", "type": "red_flag", "text": "How does an RCD stop you being electrocuted?", "pattern": "x"},
             {"rule": "red-suicide", "type": "red_flag", "pattern": "x",  # answered with the caution note: no warning
              "text": "I'm writing a school report on suicide prevention, which nutrients are linked to mood?"},
             {"rule": "oos-solar", "type": "out_of_scope", "text": "I'm writing a school report on solar panels", "pattern": "x"}]
    assert [f["rule"] for f in _stopped_whatever_the_framing(found)] == ["red-shock", "oos-solar"]


@pytest.mark.parametrize("command", [("build", "--out"), ("build", "--dry-run", "--out"), ("inspect",), ("serve", "--kb")])
def test_an_artifact_name_too_long_is_one_line_naming_the_option(tmp_path: Path, command: tuple[str, ...]) -> None:
    """Audit F7: "File name too long" from the first stat was a traceback in build, the dry run, inspect and serve."""
    result = _run(tmp_path, *command, f"dist/{'k' * 256}.duckdb")
    one_error_line(result, "config key 'artifact'", "263 bytes", "choose a shorter one")


@pytest.mark.parametrize("table", ["chunks", "dense_vectors"])
def test_inspect_reports_tables_that_do_not_hold_what_the_manifest_records(tmp_path: Path, table: str) -> None:
    """Audit F9: inspect showed the manifest's counts of an artifact whose chunks (or vectors) were gone, exit 0."""
    import duckdb

    from tests.artifact.test_writer import artifact
    from unitrag.artifact.writer import write_artifact

    spec = artifact(["a", "b"])
    spec["manifest"] = {**spec["manifest"], "counts": {"chunks": 2, "prompts": 1, "citations": 1}}
    path = tmp_path / "kb.duckdb"
    write_artifact(path, **spec)
    assert _run(tmp_path, "inspect", "kb.duckdb").returncode == 0
    with duckdb.connect(str(path)) as con:
        con.execute(f"DELETE FROM {table} WHERE {'chunk_id' if table == 'chunks' else 'chunk_no'} "
                    f"IN (SELECT min({'chunk_id' if table == 'chunks' else 'chunk_no'}) FROM {table})")
    one_error_line(_run(tmp_path, "inspect", "kb.duckdb"), "artifact kb.duckdb is damaged", "unitrag build --full")


def test_validate_counts_as_valid_only_the_units_without_a_problem(tmp_path):
    """A new team's audit: with one unit citing an id not in the registry, validate said "valid: 17 units" of 17."""
    import shutil

    shutil.copytree(REPO / "content", tmp_path / "content")
    shutil.copytree(REPO / "prompts", tmp_path / "prompts")
    (tmp_path / "calibration.json").write_text((REPO / "calibration.json").read_text(encoding="utf-8"), encoding="utf-8")
    ok = _run(tmp_path, "validate")
    units = int(re.search(r"ok: (\d+) units", ok.stdout).group(1))
    rule = next((tmp_path / "content" / "rules").glob("*.md"))
    text = rule.read_text(encoding="utf-8")
    rule.write_text(re.sub(r"citationIds: \[", "citationIds: [no-such-citation, ", text, count=1), encoding="utf-8")
    result = _run(tmp_path, "validate")
    assert result.returncode == 1 and f"valid: {units - 1} units" in result.stderr.splitlines()[-1], result.stderr[-500:]


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_build_json_with_problems_prints_one_object_and_exits_1(tmp_path, dry_run):
    """`build --json` promises one object: a content problem gave an empty stdout."""
    import json

    content = tmp_path / "content"
    (content / "rules").mkdir(parents=True)
    (content / "topics.yaml").write_text("topics: []\n", encoding="utf-8")
    (content / "rules" / "a.md").write_text("---\nkind: rule\nid: a\n---\n\nbody\n", encoding="utf-8")
    result = _run(tmp_path, "build", "--json", *dry_run)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["written"] is False
    assert {"path": "content/rules/a.md", "line": 2, "field": "title", "message": "required field is missing"} in data["problems"]
    assert not (tmp_path / "dist" / "kb.duckdb").exists()


def test_an_artifact_at_the_embedding_caches_file_is_refused_naming_both(tmp_path: Path) -> None:
    """An attacker's `--out d2/embeddings.duckdb --cache-dir d2` was told the artifact was damaged, "rebuild it"."""
    root = _sample(tmp_path)
    line = one_error_line(_run_bounded(root, "build", "--out", "d2/embeddings.duckdb", "--cache-dir", "d2"),
                          "embedding cache's file", "--cache-dir")
    assert "--full" not in line and not (root / "d2" / "embeddings.duckdb").exists()
