"""Providers by name: one registry shape for embedders, rerankers and LLMs.

A spec is ``provider[:model]``. Targets are registered as classes or as
``"module:Class"`` strings imported on first use, so choosing a provider never
imports the heavy packages (torch, litellm) of the others.
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar

from ..errors import UserError

T = TypeVar("T")


class ProviderRegistry(Generic[T]):
    def __init__(self, kind: str, providers: dict[str, str | type[T]], example: str, needs_model: frozenset[str] = frozenset()) -> None:
        self.kind = kind
        self._providers = dict(providers)
        self._example = example
        self._needs_model = needs_model

    def register(self, provider: str, target: type[T] | str) -> None:
        """Make ``provider:<model>`` specs resolve to ``target`` (a class or ``"module:Class"``)."""
        self._providers[provider] = target

    def available(self) -> list[str]:
        return sorted(self._providers)

    def parse(self, spec: str) -> tuple[str, str]:
        """``"provider:model"`` → (provider, model), checking the provider (and the model where one is needed)."""
        provider, _, model = spec.strip().partition(":")
        if provider not in self._providers:
            raise UserError(
                f"unknown {self.kind} {spec!r}: the provider must be one of {', '.join(self.available())} (e.g. {self._example})"
            )
        if provider in self._needs_model and not model:
            raise UserError(f"{self.kind} {spec!r} needs a model: {provider}:<name-or-path>")
        return provider, model

    def resolve(self, spec: str) -> type[T]:
        """The provider class for a spec, importing its module only now."""
        provider, _ = self.parse(spec)
        target = self._providers[provider]
        if isinstance(target, str):
            module_name, _, class_name = target.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:
                raise UserError(
                    f"{self.kind} {spec!r} needs a package that is not installed ({exc.name}); see the README's install extras"
                ) from None
            target = getattr(module, class_name)
        return target  # type: ignore[return-value]

    def create(self, spec: str, **options: Any) -> T:
        """An instance: ``Class(model, **options)``, or ``Class(**options)`` when the spec names no model."""
        _, model = self.parse(spec)
        cls = self.resolve(spec)
        return cls(model, **options) if model else cls(**options)  # type: ignore[call-arg]
