"""`unitrag ask` / `search` at the edge, on the built sample: a bad user context or argument is one line and exit 1.

The leak repro of issue 9: ``{"roles": {"clinician": false}}`` (and ``"roles": "nonclinician"``) used to
return the clinician-only B12 treatment pages to a caller who is not a clinician.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

USER_CONTEXT_DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"  # its "User context" example
RESTRICTED_QUESTION = "Treating B12 deficiency: hydroxocobalamin IM regimens"


def _run(ws, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "unitrag", *args, "--kb", str(ws.artifact)], cwd=ws.root, capture_output=True,
        text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"},
    )


def _ask_as(ws, tmp_path, context: object) -> subprocess.CompletedProcess:
    path = tmp_path / "user.json"
    path.write_text(json.dumps(context), encoding="utf-8")
    return _run(ws, "ask", RESTRICTED_QUESTION, "--user-context", str(path), "--json")


def _one_error_line(result: subprocess.CompletedProcess, *words: str) -> str:
    assert result.returncode == 1, (result.stdout[-2000:], result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == ""  # no answer, no sources
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_the_question_reaches_restricted_pages_for_a_clinician_only(built_sample, tmp_path):
    ws, _ = built_sample
    clinician = _ask_as(ws, tmp_path, {"roles": ["clinician"]})
    assert clinician.returncode == 0, clinician.stderr
    assert any(s["access"] == "clinician" for s in json.loads(clinician.stdout)["sources"])
    public = _ask_as(ws, tmp_path, {"roles": []})
    assert public.returncode == 0, public.stderr
    assert all(s["access"] == "public" for s in json.loads(public.stdout)["sources"])


@pytest.mark.parametrize("roles", [{"clinician": False}, "nonclinician", "clinician", ["admin"], 1, None])
def test_a_roles_value_that_is_not_a_list_of_known_roles_is_refused(built_sample, tmp_path, roles):
    ws, _ = built_sample
    _one_error_line(_ask_as(ws, tmp_path, {"roles": roles}), "--user-context", "roles")


@pytest.mark.parametrize("context, words", [
    ({"current_topic": "sodum"}, ("current_topic", "sodum", "not in this knowledge base")),
    ({"recent_scenes": ["no-such-scene"]}, ("recent_scenes", "no-such-scene")),
    ({"triggered_rules": "en-blood-pressure-severe"}, ("triggered_rules", "list")),
    (["clinician"], ("object",)),
])
def test_other_bad_user_contexts_are_one_line(built_sample, tmp_path, context, words):
    ws, _ = built_sample
    _one_error_line(_ask_as(ws, tmp_path, context), *words)


@pytest.mark.parametrize("args, words", [
    (("search", "salt", "--k=-5"), ("--k",)),
    (("search", "salt", "--k=0"), ("--k",)),
    (("search", "salt", "--k=100000"), ("--k", "100")),
    (("ask", "salt", "--lang", "fr"), ("--lang", "zh", "en")),
    (("ask", "salt " * 20_000), ("question", "100,000 characters", "max_question_chars")),
    (("search", "salt " * 20_000), ("question", "max_question_chars")),
])
def test_bad_arguments_are_one_line_before_the_knowledge_base_opens(built_sample, args, words):
    ws, _ = built_sample
    started = time.perf_counter()
    result = _run(ws, *args)
    _one_error_line(result, *words)
    assert time.perf_counter() - started < 30


def test_the_readme_example_user_json_is_accepted(built_sample, tmp_path):
    ws, _ = built_sample
    example = re.search(r"^## User context$.*?```json\n(.*?)```", USER_CONTEXT_DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert example, "docs/python-api.md: the user-context section and its example"
    result = _ask_as(ws, tmp_path, json.loads(example.group(1)))
    assert result.returncode == 0, result.stderr


def _ask_with_context(tmp_path: Path, context: Path) -> subprocess.CompletedProcess:
    """``ask`` with a user-context file and no knowledge base: the file is refused before one would be opened."""
    return subprocess.run(
        [sys.executable, "-m", "unitrag", "ask", "salt", "--user-context", str(context), "--kb", str(tmp_path / "none.duckdb")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"},
    )


@pytest.mark.parametrize("depth, words", [
    (100_000, ("--user-context", "larger than 65,536 bytes")),  # the file: a RecursionError traceback before
    (30_000, ("--user-context", "nested too deeply")),  # within the size: json's own recursion limit
])
def test_deeply_nested_json_is_one_line(tmp_path, depth, words):
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth, encoding="utf-8")
    _one_error_line(_ask_with_context(tmp_path, path), *words)


def test_a_number_too_long_to_read_is_one_line(tmp_path):
    path = tmp_path / "user.json"
    path.write_text('{"roles": ' + "1" * 5_000 + "}", encoding="utf-8")  # a ValueError traceback before
    _one_error_line(_ask_with_context(tmp_path, path), "--user-context", "not a readable JSON file")


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "folder"])
def test_a_user_context_that_is_not_a_regular_file_is_refused_unread(tmp_path, kind):
    import os

    path = Path(kind)
    if kind == "fifo":
        path = tmp_path / "user.json"
        os.mkfifo(path)  # no writer: opening it for reading used to wait forever
    elif kind == "folder":
        path = tmp_path
    started = time.perf_counter()
    _one_error_line(_ask_with_context(tmp_path, path), "--user-context", "not a regular file")
    assert time.perf_counter() - started < 60  # /dev/zero was read without end: 15.9 GB in 20 s


@pytest.mark.parametrize("command", ["search", "ask"])
def test_a_fifo_as_the_knowledge_base_is_refused_before_it_is_opened(tmp_path, command):
    import os

    os.mkfifo(tmp_path / "kb.duckdb")
    result = subprocess.run(  # a timeout: a FIFO opened for reading with no writer blocks forever
        [sys.executable, "-m", "unitrag", command, "How much salt?", "--kb", "kb.duckdb"], cwd=tmp_path,
        capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"},
    )
    _one_error_line(result, "kb.duckdb", "not a regular file")


@pytest.mark.parametrize("text, key", [
    ('{"roles": [], "roles": ["clinician"]}', "roles"),  # the narrowing undone: the last one won before
    ('{"roles": ["clinician"], "roles": []}', "roles"),
    ('{"current_topic": "sodium", "recent_scenes": [], "current_topic": "iodine"}', "current_topic"),
])
def test_a_user_context_key_given_twice_is_refused_in_the_http_apis_words(tmp_path, text, key):
    path = tmp_path / "user.json"
    path.write_text(text, encoding="utf-8")
    line = _one_error_line(_ask_with_context(tmp_path, path), "--user-context")
    assert line == f"error: --user-context {path}: the JSON holds the key {key!r} more than once"


def test_search_says_when_it_finds_fewer_sources_than_asked_for(built_sample):
    """A new team's audit: `search --k 20` printed 10 sources, silently (the candidates held no more units)."""
    ws, _ = built_sample
    result = _run(ws, "search", "How much salt per day?", "--k", "100")
    assert result.returncode == 0, result.stderr
    shown = len([line for line in result.stdout.splitlines() if re.match(r"\d+\. ", line)])
    assert 0 < shown < 100 and f"{shown} of the 100 sources asked for" in " ".join(result.stderr.split())


@pytest.mark.parametrize("args", [("ask", "How is vitamin B12 deficiency treated?"), ("ask", "发电量比预期低"),
                                  ("ask", "hello"), ("search", "vitamin B12")])
def test_free_text_output_ends_with_a_newline(built_sample, args):
    """A note on stderr after it (a shell prompt, a log joining both streams) must start on a line of its own."""
    result = _run(built_sample[0], *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() and result.stdout.endswith("\n"), result.stdout[-200:]
    assert not result.stderr or result.stderr.endswith("\n")


# -- --restricted on ask, whatever the role is called -------------------------------------------------


def _accesses(result: subprocess.CompletedProcess) -> set[str]:
    assert result.returncode == 0, result.stderr[-2000:]
    return {source["access"] for source in json.loads(result.stdout)["sources"]}


@pytest.mark.parametrize("flag", ["--restricted", "--clinician"])
def test_ask_restricted_reads_the_restricted_pages_as_search_does(built_sample, flag):
    """`ask` took the role only through a --user-context file: `ask --role agent` was "No such option"."""
    ws, _ = built_sample
    assert "clinician" in _accesses(_run(ws, "ask", RESTRICTED_QUESTION, flag, "--json"))
    assert _accesses(_run(ws, "ask", RESTRICTED_QUESTION, "--json")) == {"public"}


@pytest.mark.parametrize("roles", [[], ["clinician"]])
def test_ask_restricted_adds_the_role_to_a_user_context_file(built_sample, tmp_path, roles):
    ws, _ = built_sample
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"recent_scenes": [], "roles": roles}), encoding="utf-8")
    both = _run(ws, "ask", RESTRICTED_QUESTION, "--user-context", str(path), "--restricted", "--json")
    assert "clinician" in _accesses(both)


def test_the_restricted_flag_holds_the_configured_role_not_clinician(tmp_path):
    """A help desk's role is `agent`: init names it, a unit says `access: agent`, and `ask --restricted` reads it."""
    from unitrag.scaffold import init_knowledge_base
    from unitrag.scaffold.identity import KnowledgeBaseIdentity

    kb = tmp_path / "kb"
    init_knowledge_base(kb, identity=KnowledgeBaseIdentity.checked("Help desk", restricted_role="agent"))
    (kb / "content" / "documents" / "en-refund-override.md").write_text(AGENT_UNIT, encoding="utf-8")

    def unitrag(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=kb, capture_output=True, text=True,
                              timeout=300, env={"PATH": "/usr/bin:/bin", "UNITRAG_LLM": "none"})

    built = unitrag("build")
    assert built.returncode == 0, built.stdout + built.stderr
    question = "How far may an agent override the refund limit?"
    assert "agent" in _accesses(unitrag("ask", question, "--restricted", "--json"))
    assert _accesses(unitrag("ask", question, "--json")) == {"public"}
    assert "here 'agent'" in " ".join(unitrag("ask", "--help").stdout.split())


AGENT_UNIT = """---
kind: document
id: en-refund-override
title: "Refund overrides for agents"
lang: en
topics: [writing-units]
access: agent
source: "Written for a test"
---
# Refund overrides for agents

An agent may override the refund limit up to twice the order value, once per customer per year, after
checking the order history. Anything above that goes to the team lead.
"""


def test_a_user_context_path_with_an_escape_sequence_is_shown_escaped(tmp_path):
    """`--lang` showed an escape sequence escaped; `--user-context` printed the raw ESC byte to the terminal."""
    path = tmp_path / "\x1b[31mx.json"
    line = _one_error_line(_ask_with_context(tmp_path, path), "--user-context", "not found")
    assert "\x1b" not in line and f"{tmp_path}/\\x1b[31mx.json" in line
    path.write_text("{", encoding="utf-8")
    assert "\\x1b[31mx.json: not a readable JSON file" in _one_error_line(_ask_with_context(tmp_path, path))
