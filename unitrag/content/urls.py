"""Citation URLs: parsed by ``urllib.parse``, then held to what a reader can click.

A registry URL ends up as a link in answers and in the published database, so a
typo must fail validation, not a reader: whitespace, characters that are never
literal in a URL (``<``, ``>``, ``"``, backslash...), an invisible formatting character (a zero-width space, a
right-to-left override that makes ``…/\u202efdp.exe`` read ``…/exe.pdf``), unbalanced brackets (usually
a URL cut at a closing parenthesis by copy-paste), a scheme other than http(s),
a missing or malformed host, a bad port, or credentials are each refused with
the reason. Non-ASCII paths (IRIs) are fine: browsers encode them.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit

_NEVER_LITERAL = '<>"{}|\\^`'
_PAIRS = {")": "(", "]": "["}
_LABEL = re.compile(r"^(?!-)[^\W_](?:[\w-]*[^\W_])?$")  # letters (any script), digits, inner hyphens


def check_url(url: str) -> str:
    """``url`` unchanged when it is a clickable http(s) URL; otherwise ValueError saying why."""
    if any(ch.isspace() for ch in url):
        raise ValueError("url has a space or other whitespace: encode it as %20 or remove it")
    bad = next((ch for ch in url if ch in _NEVER_LITERAL or ord(ch) < 0x20 or ord(ch) == 0x7F), None)
    if bad is not None:
        raise ValueError(f"url has {bad!r}, which is never literal in a URL: percent-encode it")
    hidden = next((ch for ch in url if unicodedata.category(ch) == "Cf"), None)
    if hidden is not None:  # a zero-width space, a right-to-left override: the link would read as another one
        raise ValueError(f"url has the invisible character U+{ord(hidden):04X}, which can make it read as another "
                         "link: remove it")
    if not _balanced(url):
        raise ValueError("url has unbalanced brackets: a ( or [ without its partner (cut short when copied?)")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port validates it
    except ValueError as exc:
        reason = str(exc)
        raise ValueError(f"url is not valid ({'bad port' if 'port' in reason.lower() else 'bad host'}: {reason})") from None
    if parts.scheme.lower() not in {"http", "https"}:
        raise ValueError("url must start with http:// or https://")
    if parts.username is not None or parts.password is not None:
        raise ValueError("url must not carry a user name or password")
    host = parts.hostname or ""
    if not host:
        raise ValueError("url has no host: write it as https://host/path")
    if "[" in parts.netloc:  # an IPv6 literal: [address] and an optional :port, nothing else
        if not re.fullmatch(r"\[[^\]]+\](?::\d*)?", parts.netloc) or not _is_ip(host):
            raise ValueError(f"url has a bad host: {parts.netloc!r} is not [IPv6 address] or [IPv6 address]:port")
    elif not all(_LABEL.match(label) for label in host.split(".")):
        raise ValueError(f"url host {host!r} is not a valid host name")
    return url


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _balanced(url: str) -> bool:
    stack: list[str] = []
    for ch in url:
        if ch in "([":
            stack.append(ch)
        elif ch in _PAIRS:
            if not stack or stack.pop() != _PAIRS[ch]:
                return False
    return not stack
