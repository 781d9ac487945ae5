"""How a new knowledge base's workflows install unitrag: one pip requirement, chosen at ``unitrag init``.

A knowledge base has no unitrag source tree, so its workflows need a requirement that installs on a
bare CI runner: a released version (``unitrag==X``), a VCS reference (``unitrag @ git+https://...@vX``),
a wheel URL, or a wheel committed in the knowledge base (``./wheels/unitrag-X-py3-none-any.whl``).
Without ``--install``, the running unitrag's own origin is the best guess (PEP 610's
``direct_url.json``): the commit it was installed from, the wheel URL, else the index release.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.metadata import distributions, version
from pathlib import PurePosixPath
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidWheelFilename,
    canonicalize_name,
    parse_wheel_filename,
)

from ..errors import UserError

PACKAGE = "unitrag"
UNSAFE = set('"$`\\\n\r')  # the requirement sits inside double quotes in a workflow's shell line


@dataclass(frozen=True)
class InstallChoice:
    """The requirement the workflows install, and why it was chosen (init prints both)."""

    requirement: str
    origin: str
    reachable: bool = True  # False: a guess a CI runner may not be able to install (init warns)


def install_choice(requirement: str | None) -> InstallChoice:
    """``--install`` checked, or the default taken from how the running unitrag was installed."""
    if requirement is not None:
        return InstallChoice(parse_install(requirement), "--install")
    return default_install()


def parse_install(requirement: str) -> str:
    """A requirement naming unitrag, or a relative path to a unitrag wheel inside the knowledge base."""
    text = requirement.strip()
    if not text or UNSAFE & set(text):
        raise UserError(f"--install {requirement!r}: give one pip requirement without quotes, $, ` or backslashes, "
                        'e.g. --install "unitrag==0.1.0" or --install "unitrag @ git+https://github.com/OWNER/unitrag@v0.1.0"')
    if text.endswith(".whl") and "@" not in text:
        return _wheel_path(text)
    try:
        parsed = Requirement(text)
    except InvalidRequirement as exc:
        raise UserError(f"--install {text!r} is not a pip requirement ({exc}): e.g. --install \"unitrag==0.1.0\", "
                        "or a wheel path inside the knowledge base such as ./wheels/unitrag-0.1.0-py3-none-any.whl") from None
    if canonicalize_name(parsed.name) != PACKAGE:
        raise UserError(f"--install {text!r} installs {parsed.name}, not {PACKAGE}: name unitrag, "
                        'e.g. --install "unitrag @ git+https://github.com/OWNER/unitrag@v0.1.0"')
    if parsed.url:
        _check_url(text, parsed.url)
    return text


def _check_url(text: str, url: str) -> None:
    """A direct reference the workflows may carry: the files are committed, and a CI runner installs from it. A token in
    the URL would be published with them; plain http lets anyone on the path swap the package; a file: URL names a
    path of this machine that no runner has."""
    scheme, _, rest = url.partition("://")
    transport = scheme.split("+")[-1].lower()
    host_part = rest.split("/", 1)[0]
    userinfo = host_part.rpartition("@")[0]
    # ssh's user (git@github.com) is no secret; a password, or any user name of an https URL (a token), is
    if userinfo and (transport != "ssh" or ":" in userinfo):
        raise UserError(f"--install {_redacted(text, host_part)}: the URL carries credentials, which the committed "
                        "workflows would publish: use a public URL, or a token from the CI's secrets in the workflow")
    if transport == "file":
        raise UserError(f"--install {text}: a file: URL names a path on this machine that a CI runner does not have: "
                        "commit the wheel inside the knowledge base (./wheels/...) or give an https:// URL")
    if transport not in ("https", "ssh"):
        raise UserError(f"--install {text}: {transport}:// lets anyone on the network path swap the package: "
                        "give an https:// (or ssh://) URL")


def _redacted(text: str, host_part: str) -> str:
    return text.replace(host_part, "***@" + host_part.rsplit("@", 1)[1])


def _wheel_path(text: str) -> str:
    path = PurePosixPath(text)
    if path.is_absolute() or ".." in path.parts:
        raise UserError(f"--install {text}: a wheel must sit inside the knowledge base (a CI runner has only its "
                        "checkout): give a relative path such as ./wheels/" + path.name + ", and commit the wheel there")
    try:
        name = parse_wheel_filename(path.name)[0]
    except InvalidWheelFilename as exc:
        raise UserError(f"--install {text}: not a wheel file name ({exc})") from None
    if name != PACKAGE:
        raise UserError(f"--install {text} is a wheel of {name}, not {PACKAGE}")
    return text if text.startswith(("./", "../")) else f"./{text}"


def default_install() -> InstallChoice:
    """The running unitrag's origin as a requirement a runner can install, when there is one."""
    return requirement_from_origin(installed_origin(), version(PACKAGE))


def installed_origin() -> dict[str, Any] | None:
    """PEP 610's record of where unitrag was installed from; None when no installed copy has one (an index).

    Every copy on the path is asked, not only the first: run from a source checkout, the first is the
    checkout's own ``unitrag.egg-info`` (a build by-product with no record), which would pass an
    editable install off as an index release.
    """
    for dist in distributions(name=PACKAGE):
        raw = dist.read_text("direct_url.json")
        if raw:
            return json.loads(raw)
    return None


def requirement_from_origin(origin: dict[str, Any] | None, release: str) -> InstallChoice:
    """A requirement for unitrag ``release`` installed from ``origin`` (PEP 610's direct_url.json; None: an index)."""
    pinned = f"{PACKAGE}=={release}"
    if origin is None:
        return InstallChoice(pinned, "the release of the running unitrag, installed from a package index")
    url, vcs = origin.get("url", ""), origin.get("vcs_info")
    if vcs and url.startswith(("https://", "ssh://")):
        return InstallChoice(f"{PACKAGE} @ {vcs['vcs']}+{url}@{vcs['commit_id']}",
                             "the commit the running unitrag was installed from")
    if "archive_info" in origin and url.startswith("https://"):
        return InstallChoice(f"{PACKAGE} @ {url}", "the URL the running unitrag was installed from")
    return InstallChoice(pinned, f"the version of the running unitrag, which was installed from {url or 'a local path'}, "
                                 "where a CI runner cannot reach it", reachable=False)
