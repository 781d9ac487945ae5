"""A Jinja sandbox in which a prompt template cannot make anything larger than its budget.

Jinja's own sandbox keeps a template away from Python internals, not from memory:
``{{ 'a' * 1500000000 }}`` allocates 1.5 GB before anything could look at it, and
``center``, ``'%999999999s'``, a ``join`` or a doubling ``{% set %}`` in a loop do
the same by other roads. Templates are content (a pull request can change them),
so every road that makes a value is checked against the render's budget
(``max_prompt_chars``) *before* it allocates:

* the operators ``*``, ``+``, ``%`` and ``**`` (intercepted: never constant-folded);
* ``~``, the output of ``{{ }}``, and the buffers of macros and ``{% set %}`` blocks;
* every filter (widths and counts, and an estimate for those that multiply: ``join``,
  ``replace``, ``indent``, ``wordwrap``, ``format``, ``tojson``...);
* the string methods that pad, repeat or substitute (``center``, ``zfill``,
  ``replace``, ``join``, ``format``...); lists and dicts cannot be changed in place.

A render is also given a total: the characters its operations make (``WORK_FACTOR``
times the budget, so a loop cannot make a million budget-sized strings one by one)
and the loop iterations and calls it runs (``MAX_STEPS``). ``render_bounded`` streams the
output and stops as soon as it passes the budget. Everything over a bound raises
``PromptTooLarge`` (a ``SecurityError``, so a ``TemplateError``) from the template
line that asked for it.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jinja2 import Template, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .template_sizes import (
    FILTER_ESTIMATES,
    METHOD_ESTIMATES,
    PromptTooLarge,
    format_size,
    int_digits,
    percent_size,
    text_size,
)

#: The default prompt budget, in characters (config ``max_prompt_chars``).
MAX_PROMPT_CHARS = 100_000
#: Characters a render's operations may make in all, as a multiple of its budget (a real prompt makes ~1x).
WORK_FACTOR = 20
#: Loop iterations and calls (macros, methods) a render may run in all: a real prompt runs a few dozen. With
#: every value within the budget, this bounds a render's time too (~10,000 budget-sized scans at worst).
MAX_STEPS = 10_000
_SIZED = (str, bytes, list, tuple)  # what '*' repeats and '+' joins


@dataclass
class Allowance:
    """What one render may still spend: its budget per value and output, the characters it may make, its loop steps."""

    chars: int
    work: int
    steps: int = MAX_STEPS

    @classmethod
    def of(cls, chars: int) -> "Allowance":
        return cls(chars=chars, work=chars * WORK_FACTOR)

    def fits(self, size: int, what: str) -> None:
        """Raise unless a value of ``size`` characters is within the budget."""
        if size > self.chars:
            raise PromptTooLarge(f"{what} would make about {size:,} characters, over the prompt budget of "
                                 f"{self.chars:,} (max_prompt_chars in unitrag.toml)")

    def spend(self, size: int) -> None:
        """Count ``size`` characters made; raise once the render has made too many."""
        self.work -= size
        if self.work < 0:
            raise PromptTooLarge(f"the template makes over {self.chars * WORK_FACTOR:,} characters in all "
                                 f"({WORK_FACTOR}x the prompt budget, max_prompt_chars in unitrag.toml): "
                                 "a loop that builds text?")

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise PromptTooLarge(f"the template's loops and calls run over {MAX_STEPS:,} times in all: "
                                 "a loop inside a loop, or a macro that calls itself?")


_CURRENT: contextvars.ContextVar[Allowance | None] = contextvars.ContextVar("prompt_allowance", default=None)


def _allowance() -> Allowance:
    """The running render's allowance; outside ``render_bounded`` (compile-time folding) a fresh default one."""
    return _CURRENT.get() or Allowance.of(MAX_PROMPT_CHARS)


#: Filters whose whole-number arguments are widths or counts: none a prompt needs is over the budget.
_SIZED_FILTERS = frozenset({"batch", "center", "indent", "slice", "tojson", "truncate", "urlize", "wordwrap"})
#: Filters that take a list or a mapping as a whole (count, pick, sort, group...): every other filter prints
#: its value first, so a value that would print over the budget is refused before it is printed.
_CONTAINER_FILTERS = frozenset({
    "attr", "batch", "count", "d", "default", "dictsort", "first", "groupby", "items", "join", "last", "length",
    "list", "map", "max", "min", "random", "reject", "rejectattr", "reverse", "select", "selectattr", "slice",
    "sort", "sum", "unique",
})


def _bounded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` checked against the running render's allowance: widths and estimates before, the result after."""
    skip = 1 if getattr(func, "jinja_pass_arg", None) is not None else 0  # context / eval context / environment
    estimate = FILTER_ESTIMATES.get(name)

    @functools.wraps(func)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        allowance = _allowance()
        given = list(args[skip:])
        if name in _SIZED_FILTERS:
            _widths_fit(allowance, (*given[1:], *kwargs.values()), f"the {name} filter")
        if name == "join" and given and not isinstance(given[0], (list, tuple, str)):
            given[0] = list(given[0])  # a generator (map, select): counted once, then joined
            args = (*args[:skip], *given)
        if given and name not in _CONTAINER_FILTERS and not isinstance(given[0], str):
            allowance.fits(text_size(given[0], allowance.chars), f"the {name} filter's value")
        if estimate is not None and given:
            allowance.fits(estimate(allowance.chars, *given, **kwargs), f"the {name} filter")
        return _made(func(*args, **kwargs), allowance, f"the {name} filter")

    return bounded


def _widths_fit(allowance: Allowance, arguments: Iterable[Any], what: str) -> None:
    """Refuse a width or count over the budget before it pads or repeats anything."""
    for number in arguments:
        if isinstance(number, int) and not isinstance(number, bool):
            allowance.fits(number, f"{what} with a width or count of {number:,}")


def _made(result: Any, allowance: Allowance, what: str) -> Any:
    """Check and count a value an operation made."""
    if isinstance(result, (str, bytes)):
        allowance.fits(len(result), what)
        allowance.spend(len(result))
    elif isinstance(result, int) and not isinstance(result, bool):
        allowance.spend(int_digits(result))
    elif isinstance(result, (list, tuple)):
        allowance.fits(len(result), what)
        allowance.spend(len(result))
    return result


_REFUSED_METHODS = {"translate", "maketrans"}  # a table can map each character to a long string


class _BoundedCodeGenerator(CodeGenerator):
    """Jinja's code generator, routing ``~``, buffers and loops through the environment's bounded versions."""

    def buffer(self, frame: Frame) -> None:
        frame.buffer = self.temporary_identifier()
        self.writeline(f"{frame.buffer} = environment.bounded_buffer()")

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.bounded_concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    def visit_For(self, node: nodes.For, frame: Frame) -> None:
        if not (isinstance(node.iter, nodes.Call) and isinstance(node.iter.node, nodes.EnvironmentAttribute)):
            node.iter = nodes.Call(nodes.EnvironmentAttribute("counted"), [node.iter], [], None, None,
                                   lineno=node.iter.lineno)
        super().visit_For(node, frame)


class _BoundedBuffer(list):  # type: ignore[type-arg]
    """A macro's or ``{% set %}`` block's output, counted as it is written."""

    def __init__(self, allowance: Allowance) -> None:
        super().__init__()
        self._allowance = allowance
        self._size = 0

    def append(self, piece: Any) -> None:
        self._grow(len(piece) if isinstance(piece, str) else text_size(piece, self._allowance.chars))
        super().append(piece)

    def extend(self, pieces: Iterable[Any]) -> None:
        for piece in pieces:
            self.append(piece)

    def _grow(self, size: int) -> None:
        self._size += size
        self._allowance.fits(self._size, "a macro or {% set %} block")
        self._allowance.spend(size)


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox with every allocation bounded by the running render's ``Allowance``."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "+", "%", "**"})

    def __init__(self, **options: Any) -> None:
        super().__init__(finalize=self._finalize, **options)
        self.filters = {name: _bounded_filter(name, func) for name, func in self.filters.items()}
        del self.globals["lipsum"]  # lipsum(n) writes n paragraphs: nothing a prompt needs

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        allowance = _allowance()
        what = f"'{operator}'"
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, _SIZED) and isinstance(times, int):
                    allowance.fits(len(seq) * max(times, 0), what)
            if isinstance(left, int) and isinstance(right, int):
                allowance.fits(int_digits(left) + int_digits(right), what)
        elif operator == "+" and isinstance(left, _SIZED) and isinstance(right, _SIZED):
            allowance.fits(len(left) + len(right), what)
        elif operator == "%" and isinstance(left, str):
            allowance.fits(percent_size(left, right, allowance.chars), what)
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
            allowance.fits(int_digits(left) * right, what)
        return _made(super().call_binop(context, operator, left, right), allowance, what)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's signature
        method = getattr(__obj, "__wrapped__", __obj)
        owner = getattr(method, "__self__", None)
        name = getattr(method, "__name__", "")
        if isinstance(owner, (str, bytes)) and name in _REFUSED_METHODS:
            raise PromptTooLarge(f"str.{name} is not available in prompt templates")
        allowance = _allowance()
        allowance.step()
        estimate = METHOD_ESTIMATES.get(name) if isinstance(owner, (str, bytes)) else None
        if estimate is not None:
            _widths_fit(allowance, (*args, *kwargs.values()), f"str.{name}")
            if name == "join":
                args = (list(args[0]), *args[1:]) if args else args
            allowance.fits(estimate(allowance.chars, owner, *args, **kwargs), f"str.{name}")
        return _made(super().call(__context, __obj, *args, **kwargs), allowance, f"calling {name or 'a function'}")

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapper = super().wrap_str_format(value)
        if wrapper is None:
            return None
        fmt = value.__self__

        @functools.wraps(wrapper)
        def bounded(*args: Any, **kwargs: Any) -> str:
            mapping = args[0] if value.__name__ == "format_map" and args else kwargs
            allowance = _allowance()
            allowance.fits(format_size(fmt, () if mapping is not kwargs else args, mapping, allowance.chars),
                           f"str.{value.__name__}")
            return wrapper(*args, **kwargs)

        return bounded

    def _finalize(self, value: Any) -> Any:
        """What ``{{ }}`` prints, checked before it is turned into text."""
        if not isinstance(value, (int, float)):  # a number prints short (str() refuses over 4,300 digits)
            allowance = _allowance()
            allowance.fits(text_size(value, allowance.chars), "printing a value")
        return value

    def bounded_concat(self, values: tuple[Any, ...]) -> str:
        """``a ~ b``: every part's size checked before they are joined."""
        allowance = _allowance()
        size = 0
        for value in values:
            size += text_size(value, allowance.chars)
            allowance.fits(size, "'~'")
        joined = "".join(map(str, values))
        allowance.spend(len(joined))
        return joined

    def bounded_buffer(self) -> list[Any]:
        return _BoundedBuffer(_allowance())

    def counted(self, iterable: Any) -> Iterator[Any]:
        """A loop's items, each one a step of the render's allowance."""
        allowance = _allowance()
        for item in iterable:
            allowance.step()
            yield item


def render_bounded(template: Template, variables: Mapping[str, Any], max_chars: int = MAX_PROMPT_CHARS) -> str:
    """``template`` rendered within ``max_chars`` characters, streamed: stopped as soon as the output passes it.

    Raises ``PromptTooLarge`` (a ``TemplateError``) for output or any value over the budget, from the
    template line that made it.
    """
    token = _CURRENT.set(Allowance.of(max_chars))
    try:
        pieces: list[str] = []
        size = 0
        stream = template.generate(**variables)
        for piece in stream:
            size += len(piece)
            if size > max_chars:
                error = PromptTooLarge(f"the rendered prompt is over the budget of {max_chars:,} characters "
                                       "(max_prompt_chars in unitrag.toml)")
                error.lineno = _writing_line(template, stream)  # type: ignore[attr-defined]
                stream.close()
                raise error
            pieces.append(piece)
        return "".join(pieces)
    finally:
        _CURRENT.reset(token)


def _writing_line(template: Template, stream: Any) -> int:
    """The template line the suspended render was writing when it was stopped (1 when unknown)."""
    while getattr(stream, "gi_yieldfrom", None) is not None:
        stream = stream.gi_yieldfrom
    frame = getattr(stream, "gi_frame", None)
    return template.get_corresponding_lineno(frame.f_lineno) if frame is not None else 1
