"""Model names that mean a folder on disk, for the providers that load local weights.

Hub names look like ``org/model``; a path-like name is a folder the user meant, and
one that is not there is a config mistake to report at once, not a download to try.
"""

from __future__ import annotations

import os


def looks_local(name: str) -> bool:
    """A name the user meant as a folder (hub names look like ``org/model``, never like these)."""
    return name.startswith(("/", "./", "../", "~", "\\")) or (len(name) > 1 and name[1] == ":") or os.path.exists(name)


def missing_folder(name: str) -> bool:
    """True when ``name`` means a local folder that does not exist."""
    return looks_local(name) and not os.path.isdir(os.path.expanduser(name))
