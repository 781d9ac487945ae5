"""unitrag: typed Markdown knowledge units → one DuckDB artifact → cited, checked answers."""

__version__ = "0.1.0"
