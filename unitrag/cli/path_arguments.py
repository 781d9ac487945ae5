"""An empty string given for a path is refused by name, before a command reads it as the current folder.

A ``pathlib.Path`` of ``""`` is ``"."``: ``validate --content ""`` scanned the project root and listed 80
"problems", ``init ""`` targeted the working folder, ``ask --kb ""`` quietly used the configured artifact and
``build --out ""`` said "artifact . is a folder" (an attacker's audit). The parsed value cannot tell ``""`` from
``"."``, so the command line's own words are read once, before the command runs.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Every option that takes a path (or a path-like location: ``--kb`` also takes a postgresql:// URL).
PATH_OPTIONS = frozenset({"--kb", "--content", "--out", "--config", "--user-context", "--questions", "--write", "--plot",
                          "--prompts", "--cache-dir", "--beir"})
#: Commands whose first argument is a path, and what to give there.
PATH_ARGUMENTS = {"init": "DIRECTORY: empty path: give the folder to create"}


def empty_path_message(argv: Sequence[str]) -> str | None:
    """What to say when an option (or argument) of ``argv`` (the words after the program's name) is given an empty or
    blank path; None when every path given says something."""
    command = argv[0] if argv else None
    positional = 0
    after_options = False
    for i, word in enumerate(argv[1:], start=1):
        if after_options or not word.startswith("-") or word == "-":
            if command in PATH_ARGUMENTS and positional == 0 and not _previous_takes_value(argv, i):
                if not word.strip():
                    return PATH_ARGUMENTS[command]
                positional += 1
            continue
        if word == "--":
            after_options = True
            continue
        name, equals, value = word.partition("=")
        if name in PATH_OPTIONS:
            given = value if equals else (argv[i + 1] if i + 1 < len(argv) else None)
            if given is not None and not given.strip():
                return f"{name}: empty path: give a path, or leave {name} out for its default"
    return None


def _previous_takes_value(argv: Sequence[str], i: int) -> bool:
    """Whether ``argv[i]`` is the value of the option before it (``--name Foo``), not a positional argument."""
    previous = argv[i - 1]
    return previous.startswith("--") and "=" not in previous and previous != "--help"  # init's options all take one
