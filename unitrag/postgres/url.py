"""A PostgreSQL URL, parsed strictly at the edge, whose password never reaches a message.

Everything that takes a database URL (``publish``, ``KnowledgeBase.open``, the CLI) turns it
into a ``DatabaseUrl`` first. ``str()`` and ``repr()`` show ``user:***@host``, messages name
host and database only, and ``scrub`` removes the secrets from any text a driver returns
(libpq echoes the parts of a URL it cannot parse). A URL this parser refuses is described,
never echoed: until it parses, any part of it may be a password. ``redacted_location`` is the
one way to print or log where a knowledge base is, a path or a URL.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import NoReturn
from urllib.parse import unquote

from ..errors import InvalidArgument

SCHEMES = ("postgresql://", "postgres://")
#: libpq's query parameters that carry a secret.
SECRET_PARAMS = frozenset({"password", "sslpassword"})
EXPECTED = "expected postgresql://user:password@host:port/dbname"
MASK = "***"
_RESERVED = ("the user or password holds a character a URL reserves ('@', '/', '?' or '#'): "
             "percent-encode it (%40, %2F, %3F, %23)")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f]")


class DatabaseUrl:
    """A ``postgresql://`` URL: user, hosts, ports, database and parameters, the secrets kept apart."""

    __slots__ = ("user", "password", "hosts", "ports", "dbname", "params", "redacted", "_text", "_secrets")

    def __init__(self, text: str, *, user: str | None, password: str | None, hosts: tuple[str, ...],
                 ports: tuple[int | None, ...], dbname: str, params: dict[str, str], redacted: str,
                 secrets: set[str]) -> None:
        self._text, self.user, self.password = text, user, password
        self.hosts, self.ports, self.dbname, self.params, self.redacted = hosts, ports, dbname, params, redacted
        self._secrets = tuple(sorted(filter(None, secrets), key=len, reverse=True))  # longest first: no half-masked one

    @classmethod
    def parse(cls, value: "str | DatabaseUrl") -> "DatabaseUrl":
        """The URL, or an ``InvalidArgument`` (a ``ValueError`` and a ``UserError``) saying what is wrong without it."""
        if isinstance(value, DatabaseUrl):
            return value
        if not isinstance(value, str):
            raise InvalidArgument(f"a database URL must be a string ({EXPECTED}), got {type(value).__name__}")
        url = _parse(value)
        problem = _libpq_problem(url)
        if problem:
            raise InvalidArgument(f"not a valid PostgreSQL URL ({problem}): {EXPECTED}")
        return url

    @property
    def conninfo(self) -> str:
        """The URL as given, password included: for the driver, never for a message."""
        return self._text

    def describe(self) -> str:
        """host:port/dbname, for messages and reports: what libpq connects to, where a query parameter
        (``?dbname=``, ``?host=``) overrides the URL's own part, as it does for libpq."""
        host = self.params.get("host") or (self.hosts[0] if self.hosts and self.hosts[0] else None) or "localhost"
        host = f"[{host}]" if ":" in host else host
        port = self.params.get("port") or (self.ports[0] if self.ports else None)
        database = self.params.get("dbname") or self.dbname or self.params.get("user") or self.user or ""
        return f"{host}{f':{port}' if port else ''}/{database}"

    def scrub(self, text: str) -> str:
        """``text`` (a driver's message, say) with this URL's password and secret parameters masked."""
        text = text.replace(self._text, self.redacted)
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text

    def __str__(self) -> str:
        return self.redacted

    def __repr__(self) -> str:
        return f"DatabaseUrl({self.redacted!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatabaseUrl) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)


def redacted_location(location: "str | os.PathLike[str] | DatabaseUrl") -> str:
    """A knowledge base's location as it may be printed or logged: a path as it is, a URL without its secrets.

    A ``postgresql://`` URL shows ``user:***@`` and ``password=***`` (see ``DatabaseUrl``); one that does not
    parse shows its scheme only. Any other ``scheme://`` text loses what follows ``user:`` up to the host.
    """
    if isinstance(location, DatabaseUrl):
        return location.redacted
    text = os.fspath(location)
    scheme, separator, _ = text.partition("://")
    if not separator:  # a path, or a libpq keyword string (host=... password=...): its password masked
        return _KEYWORD_PASSWORD.sub(rf"\1{MASK}", text)
    if text.startswith(SCHEMES):
        try:
            return DatabaseUrl.parse(text).redacted
        except InvalidArgument:  # unparsed, any part of it may be a password
            return f"{scheme}://{MASK}"
    return _USERINFO_PASSWORD.sub(rf"\1:{MASK}@", text)


_USERINFO_PASSWORD = re.compile(r"^([^:/?#]+://[^\s:/@]*):\S*@")
#: ``password=...`` in a libpq keyword string, quoted ('it''s', with \' escapes) or up to the next space.
_KEYWORD_PASSWORD = re.compile(r"(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)", re.I)


def _parse(text: str) -> DatabaseUrl:
    scheme = next((s for s in SCHEMES if text.startswith(s)), None)
    if scheme is None:
        raise InvalidArgument(f"not a PostgreSQL URL: {EXPECTED}")
    rest = text[len(scheme):]
    if "#" in rest:
        _fail(_RESERVED)
    user_raw = password_raw = None
    if "@" in rest:
        at = rest.index("@")
        if rest.count("@") > 1 or "/" in rest[:at] or "?" in rest[:at]:  # libpq would take part of it for the host
            _fail(_RESERVED)
        userinfo, rest = rest[:at], rest[at + 1:]
        user_raw, colon, password_raw = userinfo.partition(":")
        password_raw = password_raw if colon else None
        if _UNSAFE.search(userinfo):
            _fail("the user or password holds a space or a control character: percent-encode it (%20 for a space)")
    end = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    hostspec, rest = rest[:end], rest[end:]
    if _UNSAFE.search(hostspec + rest):
        _fail("a space or a control character: percent-encode it (%20 for a space)")
    path, _, query = rest.partition("?")
    hosts, ports = _hosts(hostspec)
    user = _decode(user_raw, "the user") if user_raw is not None else None
    password = _decode(password_raw, "the password") if password_raw is not None else None
    secrets = {password_raw or "", password or ""}
    params: dict[str, str] = {}
    shown: list[str] = []
    for pair in query.split("&") if query else []:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            _fail("every query parameter must be name=value")
        params[key] = _decode(value, f"the value of {key!r}")
        if key in SECRET_PARAMS:
            secrets |= {value, params[key]}
        shown.append(f"{key}={MASK}" if key in SECRET_PARAMS and value else pair)
    shown_userinfo = ""
    if user_raw is not None:
        shown_userinfo = user_raw + (f":{MASK}" if password_raw else ":" if password_raw == "" else "") + "@"
    redacted = f"{scheme}{shown_userinfo}{hostspec}{path}{'?' + '&'.join(shown) if query else ''}"
    return DatabaseUrl(text, user=user, password=password, hosts=hosts, ports=ports, dbname=_decode(path[1:], "the database name"),
                       params=params, redacted=redacted, secrets=secrets)


def _hosts(hostspec: str) -> tuple[tuple[str, ...], tuple[int | None, ...]]:
    """Each ``host[:port]`` or ``[ipv6][:port]`` of a comma-separated host list (libpq's multi-host URLs)."""
    hosts: list[str] = []
    ports: list[int | None] = []
    for item in hostspec.split(",") if hostspec else []:
        if item.startswith("["):
            close = item.find("]")
            if close < 0:
                _fail("an IPv6 host has no closing ']': write it as [::1]")
            host, after = item[1:close], item[close + 1:]
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                _fail(f"{host!r} in brackets is not an IPv6 address")
            if after and not after.startswith(":"):
                _fail("after an IPv6 host's ']' only ':port' may follow")
            port = after[1:]
        else:
            if "[" in item or "]" in item:
                _fail("'[' or ']' outside an IPv6 host: write an IPv6 host as [::1]")
            if item.count(":") > 1:
                _fail("an IPv6 host must be in brackets: [::1]:5432")
            host, _, port = item.partition(":")
            host = _decode(host, "the host")
        if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
            _fail(f"the port {port!r} of {host or 'the host'} is not a number from 1 to 65535")
        hosts.append(host)
        ports.append(int(port) if port else None)
    return tuple(hosts), tuple(ports)


def _decode(raw: str, what: str) -> str:
    if _BAD_ESCAPE.search(raw):
        _fail(f"{what} has a bad percent-encoding: '%' starts %XX (write '%' itself as %25)")
    try:
        decoded: str | None = unquote(raw, errors="strict")
    except UnicodeDecodeError:  # its repr holds the bytes: fail outside this block, so it is not chained
        decoded = None
    if decoded is None:
        _fail(f"{what} is not UTF-8 once percent-decoded")
    if "\x00" in decoded:
        _fail(f"{what} holds a NUL (%00)")
    return decoded


def _libpq_problem(url: DatabaseUrl) -> str | None:
    """What libpq itself refuses in the URL (an unknown parameter, say), with the secrets masked."""
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:  # no pg extra: connecting says so
        return None
    try:
        conninfo_to_dict(url.conninfo)
    except Exception as exc:  # noqa: BLE001 - libpq's parser raises ProgrammingError; any failure is the URL's
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        return url.scrub(lines[0] if lines else type(exc).__name__)
    return None


def _fail(problem: str) -> NoReturn:
    raise InvalidArgument(f"not a valid PostgreSQL URL ({problem}): {EXPECTED}")
