"""The install line of a new knowledge base's workflows: checked at `unitrag init --install`, or taken
from where the running unitrag came from (PEP 610)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from unitrag.errors import UserError
from unitrag.scaffold import init_knowledge_base
from unitrag.scaffold.install import installed_origin, parse_install, requirement_from_origin

VCS = "unitrag @ git+https://github.com/example/unitrag@v0.1.0"


def _unitrag(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unitrag", *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.mark.parametrize("requirement, kept", [
    ("unitrag==0.1.0", "unitrag==0.1.0"),
    (VCS, VCS),
    ("unitrag @ https://example.org/unitrag-0.1.0-py3-none-any.whl", "unitrag @ https://example.org/unitrag-0.1.0-py3-none-any.whl"),
    ("wheels/unitrag-0.1.0-py3-none-any.whl", "./wheels/unitrag-0.1.0-py3-none-any.whl"),
    ("UniTRAG>=0.1", "UniTRAG>=0.1"),
    ("unitrag @ git+ssh://git@github.com/example/unitrag@v0.1.0", "unitrag @ git+ssh://git@github.com/example/unitrag@v0.1.0"),
])
def test_a_requirement_naming_unitrag_is_kept(requirement, kept):
    assert parse_install(requirement) == kept


@pytest.mark.parametrize("requirement, message", [
    ("numpy==1.26", "installs numpy, not unitrag"),
    ("unitrag===", "is not a pip requirement"),
    ('unitrag==0.1.0" && curl evil', "without quotes"),
    ("/home/me/unitrag-0.1.0-py3-none-any.whl", "must sit inside the knowledge base"),
    ("../unitrag-0.1.0-py3-none-any.whl", "must sit inside the knowledge base"),
    ("wheels/numpy-1.26.0-py3-none-any.whl", "a wheel of numpy, not unitrag"),
    ("wheels/unitrag.whl", "not a wheel file name"),
    ("unitrag @ git+https://tok:ghp_SECRET@github.com/x/unitrag@v1", "carries credentials"),
    ("unitrag @ git+https://ghp_SECRET@github.com/x/unitrag@v1", "carries credentials"),
    ("unitrag @ git+ssh://git:pw@github.com/x/unitrag@v1", "carries credentials"),
    ("unitrag @ http://evil.example/unitrag-0.1.0-py3-none-any.whl", "http:// lets anyone on the network path"),
    ("unitrag @ file:///etc/passwd", "a file: URL names a path on this machine"),
])
def test_anything_else_is_one_readable_error(requirement, message):
    with pytest.raises(UserError, match="--install") as caught:
        parse_install(requirement)
    assert message in str(caught.value)
    assert "SECRET" not in str(caught.value) and ":pw@" not in str(caught.value)  # a refused token is not printed either


def test_the_default_follows_where_unitrag_came_from():
    vcs = {"url": "https://github.com/example/unitrag", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}
    assert requirement_from_origin(vcs, "0.1.0").requirement == "unitrag @ git+https://github.com/example/unitrag@abc123"
    wheel = {"url": "https://example.org/unitrag-0.1.0-py3-none-any.whl", "archive_info": {}}
    assert requirement_from_origin(wheel, "0.1.0").requirement == "unitrag @ https://example.org/unitrag-0.1.0-py3-none-any.whl"
    index = requirement_from_origin(None, "0.1.0")
    assert index.requirement == "unitrag==0.1.0" and index.reachable
    local = requirement_from_origin({"url": "file:///home/me/unitrag", "dir_info": {"editable": True}}, "0.1.0")
    assert local.requirement == "unitrag==0.1.0" and not local.reachable and "file:///home/me/unitrag" in local.origin


def test_the_workflows_install_what_init_was_given(tmp_path):
    init_knowledge_base(tmp_path / "kb", install=VCS)
    for name in ("content-pr.yml", "build-main.yml"):
        text = (tmp_path / "kb" / ".github" / "workflows" / name).read_text(encoding="utf-8")
        assert f'run: pip install "{VCS}"' in text and "pip install -e ." not in text


def test_init_says_which_install_line_it_chose_and_how_to_change_it(tmp_path):
    result = _unitrag(tmp_path, "init", "kb", "--install", VCS)
    assert result.returncode == 0, result.stderr
    assert f'workflows install unitrag with: pip install "{VCS}" (--install)' in result.stdout
    assert "to change it: `unitrag init --install REQUIREMENT`" in result.stdout


def test_a_bad_install_is_refused_before_anything_is_written(tmp_path):
    result = _unitrag(tmp_path, "init", "kb", "--install", "numpy")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    expected = ("error: --install 'numpy' installs numpy, not unitrag: name unitrag, "
                'e.g. --install "unitrag @ git+https://github.com/OWNER/unitrag@v0.1.0"')
    assert result.stderr.strip().splitlines() == [expected]
    assert not (tmp_path / "kb").exists()


def test_a_source_checkouts_egg_info_does_not_hide_where_unitrag_was_installed_from(tmp_path, monkeypatch):
    # run from a source checkout, the first "unitrag" on the path is its build by-product (no PEP 610 record)
    checkout, site = tmp_path / "checkout", tmp_path / "site"
    (checkout / "unitrag.egg-info").mkdir(parents=True)
    (checkout / "unitrag.egg-info" / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: unitrag\nVersion: 0.1.0\n")
    installed = site / "unitrag-0.1.0.dist-info"
    installed.mkdir(parents=True)
    (installed / "METADATA").write_text("Metadata-Version: 2.1\nName: unitrag\nVersion: 0.1.0\n")
    origin = {"url": "file:///home/me/unitrag", "dir_info": {"editable": True}}
    (installed / "direct_url.json").write_text(json.dumps(origin))
    monkeypatch.setattr(sys, "path", [str(checkout), str(site)])
    assert installed_origin() == origin
    monkeypatch.setattr(sys, "path", [str(checkout)])
    assert installed_origin() is None  # no installed copy says where it came from: an index release
