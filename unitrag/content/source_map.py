"""Line numbers for YAML keys and list items, so problems point at the right line."""

from __future__ import annotations

from typing import Any

import yaml


class SourceMap:
    """Maps a path of keys/indexes inside a YAML document to its 1-based line."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._lines: dict[tuple[Any, ...], int] = {}
        self._first = first_line
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            node = None
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple[Any, ...]) -> None:
        self._lines[path] = node.start_mark.line + self._first
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path + (key.value,)
                self._walk(value, sub)
                self._lines[sub] = key.start_mark.line + self._first
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._walk(item, path + (i,))

    def line(self, path: tuple[Any, ...] = ()) -> int:
        """The line of the deepest known prefix of ``path`` (the document start if none)."""
        for end in range(len(path), -1, -1):
            found = self._lines.get(tuple(path[:end]))
            if found is not None:
                return found
        return self._first


def yaml_error_line(exc: yaml.YAMLError, first_line: int = 1) -> int:
    """The line a YAML syntax error points at, shifted to the file's numbering."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return (mark.line + first_line) if mark is not None else first_line
