"""The package's version, in a module of its own so the build can stamp caches without importing the runtime."""

__version__ = "0.1.0"
