"""The example knowledge bases in other domains (examples/bike-care, home-coffee, houseplants, aquarium) built and
evaluated as a new user would.

No default may quietly depend on the bundled sample: the embedder, the default gate, the guard fit,
the span scorer of the extractive answer all run here on content nobody tuned them on, against its
held-out questions (written from the topic list alone). The floors sit under today's figures
(docs/benchmarks/quality.md, "Second knowledge base") with room for one or two questions of noise between CPUs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def unitrag(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env=env)


def built(name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``examples/<name>`` validated and built from scratch, as its README says."""
    root = tmp_path_factory.mktemp(name) / name
    shutil.copytree(EXAMPLES / name, root, ignore=shutil.ignore_patterns("dist", ".unitrag"))
    for step in (("validate",), ("build",)):
        result = unitrag(*step, cwd=root)
        assert result.returncode == 0, result.stderr
    return root


def evaluated(root: Path) -> dict:
    result = unitrag("eval", "--questions", "content/eval/questions_test.yaml", "--variants", "full", "--json", cwd=root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def bike_care(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("bike-care", tmp_path_factory)


@pytest.fixture(scope="module")
def held_out(bike_care: Path) -> dict:
    return evaluated(bike_care)


@pytest.fixture(scope="module")
def home_coffee_held_out(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The third example, written after every default here was set: its figures are the unseen ones."""
    return evaluated(built("home-coffee", tmp_path_factory))


def test_the_example_finds_the_answer_unit_for_its_held_out_questions(held_out: dict) -> None:
    assert held_out["variants"]["full"]["queries"] >= 30
    assert held_out["variants"]["full"]["success@5"] >= 0.78


def test_the_example_never_shows_a_mechanic_only_unit_to_the_public(held_out: dict) -> None:
    assert held_out["restricted_leaks"] == []


def test_the_extractive_answer_states_the_facts_on_a_domain_nobody_tuned_it_on(held_out: dict) -> None:
    facts = held_out["answer_facts"]["modes"]["extractive"]
    assert facts["questions"] >= 30 and facts["facts_all"] >= 0.3 and facts["fact_recall"] >= 0.45
    # English questions answered from Chinese units: the authors' own translations of the nearest unit question
    # bridge the languages (0.20 without them, 0.47 with)
    assert facts["by_category"]["cross_en_zh"]["fact_recall"] >= 0.4


def test_the_example_answers_a_table_row_question_from_its_row(bike_care: Path) -> None:
    result = unitrag("ask", "What pressure should I run in 28 mm road tyres if I weigh 80 kg?", "--json", cwd=bike_care)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert not answer["not_found"] and "bar" in answer["answer"].splitlines()[1]


def test_an_authors_own_question_is_answered_whatever_the_default_gate_says(bike_care: Path) -> None:
    # the unit's own question; its dense cosine (0.89) is under the sample-fitted default gate's threshold
    result = unitrag("ask", "How much should my knee be bent at the bottom of the pedal stroke?", "--json", cwd=bike_care)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert not answer["not_found"] and "25–35" in answer["answer"]
    assert answer["sources"][0]["scores"]["authored"] >= 0.96


def test_the_third_example_finds_its_answers_and_leaks_nothing(home_coffee_held_out: dict) -> None:
    # first measured at 2ce918e, before anything was fitted or chosen on it: Success@5 0.889, fact recall 0.50
    full = home_coffee_held_out["variants"]["full"]
    assert full["queries"] >= 25 and full["success@5"] >= 0.8
    assert home_coffee_held_out["restricted_leaks"] == []
    assert home_coffee_held_out["answer_facts"]["modes"]["extractive"]["fact_recall"] >= 0.4


@pytest.fixture(scope="module")
def houseplants_held_out(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The fourth example, written after the third's figures were taken: unseen when it was first measured."""
    return evaluated(built("houseplants", tmp_path_factory))


def test_the_fourth_example_finds_its_answers_stops_its_emergencies_and_leaks_nothing(houseplants_held_out: dict) -> None:
    full = houseplants_held_out["variants"]["full"]
    assert full["queries"] >= 25 and full["success@5"] >= 0.85
    assert houseplants_held_out["restricted_leaks"] == []
    assert houseplants_held_out["answer_facts"]["modes"]["extractive"]["fact_recall"] >= 0.35
    assert houseplants_held_out["guard"]["recall"] >= 0.6


@pytest.fixture(scope="module")
def aquarium_held_out(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The fifth example, written after every change before stop 46: unseen when it was first measured."""
    return evaluated(built("aquarium", tmp_path_factory))


def test_the_fifth_example_finds_its_answers_says_not_found_and_stops_its_emergencies(aquarium_held_out: dict) -> None:
    full = aquarium_held_out["variants"]["full"]
    assert full["queries"] >= 25 and full["success@5"] >= 0.9
    assert aquarium_held_out["restricted_leaks"] == []
    assert aquarium_held_out["not_found"]["f1"] >= 0.75
    assert aquarium_held_out["answer_facts"]["modes"]["extractive"]["fact_recall"] >= 0.45
    assert aquarium_held_out["guard"]["recall"] >= 0.8  # indirect emergencies too ("purple lips", "on the floor")


def test_the_example_names_its_own_restricted_role(bike_care: Path, tmp_path: Path) -> None:
    """bike-care's restricted units are `access: mechanic` (restricted_role = "mechanic"): the mechanic role reads them,
    the sample's `clinician` is an unknown role there (an error, never a silent public answer), nobody else sees them."""
    question = "How do I bleed a Shimano hydraulic brake, and which fluid does it take?"
    mechanic = unitrag("search", question, "--restricted", "--json", cwd=bike_care)
    assert mechanic.returncode == 0, mechanic.stderr
    assert "zh-hydraulic-brake-bleed" in {s["unit_id"] for s in json.loads(mechanic.stdout)["sources"]}
    public = unitrag("search", question, "--json", cwd=bike_care)
    assert "zh-hydraulic-brake-bleed" not in {s["unit_id"] for s in json.loads(public.stdout)["sources"]}
    context = tmp_path / "user.json"
    context.write_text('{"roles": ["clinician"]}')
    refused = unitrag("ask", question, "--user-context", str(context), cwd=bike_care)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "unknown role 'clinician'" in refused.stderr and "'mechanic'" in refused.stderr
    context.write_text('{"roles": ["mechanic"]}')
    answered = unitrag("ask", question, "--user-context", str(context), "--json", cwd=bike_care)
    assert answered.returncode == 0, answered.stderr
    assert "zh-hydraulic-brake-bleed" in {s["unit_id"] for s in json.loads(answered.stdout)["sources"]}
