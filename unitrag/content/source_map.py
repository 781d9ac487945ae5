"""Line numbers for YAML keys and list items, so problems point at the right line."""

from __future__ import annotations

from typing import Any

import yaml

from .safe_yaml import LOADER, refuse_aliases, yaml_error_line

__all__ = ["SourceMap", "yaml_error_line"]


class SourceMap:
    """Maps a path of keys/indexes inside a YAML document to its 1-based line.

    The YAML is composed only when a line is first asked for: valid content (the
    common case) never pays for line numbers it does not report.
    """

    def __init__(self, text: str, first_line: int = 1) -> None:
        self.text = text  # what a cached unit keeps to rebuild its map (unitrag.content.unit_cache)
        self.first_line = first_line
        self._lines: dict[tuple[Any, ...], int] | None = None

    def _compose(self) -> dict[tuple[Any, ...], int]:
        if self._lines is None:
            self._lines = {}
            try:
                refuse_aliases(self.text)  # aliases share nodes: walking them could visit billions
                node = yaml.compose(self.text, Loader=LOADER)
            except yaml.YAMLError:
                node = None
            if node is not None:
                self._walk(node, ())
        return self._lines

    def _walk(self, node: yaml.Node, path: tuple[Any, ...]) -> None:
        assert self._lines is not None
        self._lines[path] = node.start_mark.line + self.first_line
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path + (key.value,)
                self._walk(value, sub)
                self._lines[sub] = key.start_mark.line + self.first_line
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._walk(item, path + (i,))

    def line(self, path: tuple[Any, ...] = ()) -> int:
        """The line of the deepest known prefix of ``path`` (the document start if none)."""
        lines = self._compose()
        for end in range(len(path), -1, -1):
            found = lines.get(tuple(path[:end]))
            if found is not None:
                return found
        return self.first_line

