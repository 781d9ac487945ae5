"""A new knowledge base's name, description and languages: checked like unitrag.toml, written into it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from unitrag.config import IDENTITY_LIMITS, load_config
from unitrag.errors import UserError
from unitrag.scaffold import init_knowledge_base
from unitrag.scaffold.identity import KnowledgeBaseIdentity, default_name


@pytest.mark.parametrize("name, description", [
    ('The "Garden" club', "Plots, seeds \\ tools: what members ask."),
    ("园艺俱乐部", "关于种菜的问答。"),
    ("Tab\tand  spaces", ""),
])
def test_any_text_lands_in_unitrag_toml_as_given(tmp_path: Path, name: str, description: str) -> None:
    identity = KnowledgeBaseIdentity.checked(name, description, "zh,en")
    init_knowledge_base(tmp_path / "kb", identity=identity)
    config = load_config(tmp_path / "kb" / "unitrag.toml", env={})
    assert (config.name, config.description, config.languages) == (identity.name, identity.description, ("zh", "en"))
    assert config.name == " ".join(name.split())  # one line, whitespace runs as one space


def test_without_an_identity_the_name_comes_from_the_folder(tmp_path: Path) -> None:
    init_knowledge_base(tmp_path / "garden-club_kb")
    table = tomllib.loads((tmp_path / "garden-club_kb" / "unitrag.toml").read_text(encoding="utf-8"))["unitrag"]
    assert (table["name"], table["description"], table["languages"]) == ("Garden club kb", "", ["en", "zh"])


def test_a_long_folder_name_is_cut_to_the_limit(tmp_path: Path) -> None:
    name = default_name(tmp_path / ("a" * 200))
    assert len(name) == IDENTITY_LIMITS["name"] and KnowledgeBaseIdentity.checked(name).name == name


@pytest.mark.parametrize("name, description, languages, message", [
    ("", "", None, "'name': the knowledge base needs a name"),
    ("Garden", "x" * 501, None, "'description': at most 500 characters"),
    ("Garden\x07", "", None, "'name': expected text without control characters"),
    ("Garden", "", "fr", "unknown language 'fr' \\(supported: en, zh\\)"),
    ("Garden", "", "en,en", "listed twice"),
    ("Garden", "", "", "expected language codes"),
])
def test_bad_values_are_one_error_naming_the_key(name: str, description: str, languages: str | None,
                                                   message: str) -> None:
    with pytest.raises(UserError, match=message):
        KnowledgeBaseIdentity.checked(name, description, languages)


def test_the_readme_shows_the_name_and_description_as_text_not_markup(tmp_path: Path) -> None:
    identity = KnowledgeBaseIdentity.checked("Garden <b>club</b>", "Notes </script><img src=x onerror=alert(1)>")
    init_knowledge_base(tmp_path / "kb", identity=identity)
    head = (tmp_path / "kb" / "README.md").read_text(encoding="utf-8").splitlines()[:3]
    assert head[0] == "# Garden &lt;b&gt;club&lt;/b&gt;" and "<" not in "".join(head)


def test_an_ampersand_in_the_name_stays_one_in_the_readme(tmp_path: Path) -> None:
    """A new team's "City Waste & Recycling Help Desk" was written as "City Waste &amp; Recycling" in its README."""
    init_knowledge_base(tmp_path / "kb", identity=KnowledgeBaseIdentity.checked("Waste & Recycling", "Bins & pickups"))
    head = (tmp_path / "kb" / "README.md").read_text(encoding="utf-8").splitlines()[:3]
    assert head[0] == "# Waste & Recycling" and head[2] == "Bins & pickups"


def test_init_names_its_own_options_in_an_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "unitrag", "init", "kb", "--name", "x", "--languages", "fr"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1 and "--languages: unknown language 'fr'" in result.stderr
    assert not (tmp_path / "kb").exists()


@pytest.mark.parametrize("languages", ["en,zh", "zh,en"])  # the template's README, and the Chinese overlay's
def test_a_restricted_role_of_its_own_is_named_wherever_the_scaffold_names_the_role(tmp_path: Path, languages: str) -> None:
    """`init --restricted-role agent`: unitrag.toml and the README say `agent`, never the template's `staff`, and a
    unit marked `access: agent` validates."""
    from unitrag.content.validate import validate_content

    kb = tmp_path / "kb"
    init_knowledge_base(kb, identity=KnowledgeBaseIdentity.checked("Help desk", "", languages, "agent"))
    config = load_config(kb / "unitrag.toml", env={})
    assert config.restricted_role == "agent"
    texts = {path.relative_to(kb).as_posix(): path.read_text(encoding="utf-8") for path in kb.rglob("*") if path.is_file()}
    assert [name for name, text in texts.items() if "staff" in text] == []
    assert "`access: agent`" in texts["README.md"] and "`access: agent`" in texts["unitrag.toml"]
    (kb / "content" / "documents" / "en-agents-only.md").write_text(
        '---\nkind: document\nid: en-agents-only\ntitle: "For agents"\nlang: en\ntopics: [writing-units]\n'
        'access: agent\nsource: "A test"\n---\n# For agents\n\nWhat only agents read.\n', encoding="utf-8")
    assert validate_content(kb / "content", languages=config.languages, restricted_role="agent").problems == []


def test_without_a_restricted_role_the_template_keeps_its_own() -> None:
    assert KnowledgeBaseIdentity.checked("Kb").restricted_role == "staff"
    with pytest.raises(UserError, match="'restricted_role': expected a role name .*got 'public'"):
        KnowledgeBaseIdentity.checked("Kb", restricted_role="public")
