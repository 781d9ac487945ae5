"""Who is calling: roles come from the operator's configuration, never from the request body.

A caller holds a role only through

- an API key the operator configured (``Authorization: Bearer <key>`` or ``X-API-Key: <key>``),
  mapped to roles. Keys are kept as SHA-256 digests (configure them as ``sha256:<hex>`` so the
  plain key is never written down on the server) and compared in constant time; or
- a roles header set by a reverse proxy that authenticated the caller, honoured only when the
  operator named the header and the TCP peer is one of the trusted proxies.

Everyone else is anonymous: public content only, whatever the body claims. A key that is
presented but unknown, empty or malformed is refused (401) rather than quietly served as
anonymous, so a misconfigured client notices; so are several credential headers that differ.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..access import is_role_name
from ..errors import UserError

_DIGEST = re.compile(r"sha256:([0-9a-fA-F]{64})")


class Unauthenticated(Exception):
    """A credential was presented and is not valid (401)."""


@dataclass(frozen=True)
class ApiKey:
    """One configured key: its SHA-256 digest and the roles it grants."""

    digest: bytes
    roles: tuple[str, ...]

    def __repr__(self) -> str:  # never print the digest into logs
        return f"ApiKey(roles={self.roles})"


def digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


def api_key(spec: str, roles: Sequence[str]) -> ApiKey:
    """A key from its configured form: ``sha256:<64 hex digits>`` (preferred) or the plain key."""
    spec = spec.strip()
    if not spec:
        raise UserError("[serve] api_keys: an empty key")
    misspelled = [r for r in roles if not is_role_name(r)]
    if misspelled or not roles:
        raise UserError(f"[serve] api_keys: each key grants one or more role names (the knowledge base's "
                        f"restricted_role), got {list(roles)!r}")
    match = _DIGEST.fullmatch(spec)
    return ApiKey(bytes.fromhex(match.group(1)) if match else digest(spec), tuple(roles))


def parse_api_keys(value: Any) -> tuple[ApiKey, ...]:
    """Keys from ``[serve.api_keys]`` (a table ``key = ["role", ...]``) or ``UNITRAG_API_KEYS``
    (``key=role+role,key=role``)."""
    if isinstance(value, Mapping):
        pairs = [(k, [v] if isinstance(v, str) else v) for k, v in value.items()]
    elif isinstance(value, str):
        pairs = []
        for entry in filter(None, (e.strip() for e in value.split(","))):
            key, sep, roles = entry.rpartition("=")
            if not sep:
                raise UserError("UNITRAG_API_KEYS: each entry is key=role (roles joined by +), comma-separated")
            pairs.append((key, roles.split("+")))
    else:
        raise UserError("[serve] api_keys: expected a table of key = [roles]")
    if any(not isinstance(r, (list, tuple)) or not all(isinstance(x, str) for x in r) for _, r in pairs):
        raise UserError("[serve] api_keys: each key maps to a list of role names")
    return tuple(api_key(str(k), [x.strip() for x in r]) for k, r in pairs)


@dataclass(frozen=True)
class Authenticator:
    """Maps a request's credentials to the roles the operator granted them."""

    keys: tuple[ApiKey, ...] = ()
    roles_header: str | None = None
    trusted_proxies: tuple[str, ...] = ()

    def granted(self) -> set[str]:
        """Every role some key grants: each must be the restricted role of the knowledge base served
        (``check_granted``), checked when one opens."""
        return {role for key in self.keys for role in key.roles}

    def roles(self, headers: Mapping[str, str], peer: str | None, known: Collection[str]) -> tuple[str, ...]:
        """The granted roles (empty: anonymous); ``Unauthenticated`` for a key nobody configured. A trusted
        proxy's header may name roles of other systems: only the ``known`` ones (the knowledge base's) count."""
        presented = _presented_key(headers)
        if presented is not None:
            return self._roles_for_key(presented)
        if self.roles_header and peer in self.trusted_proxies:
            values = _values(headers, self.roles_header.lower())
            if len(values) > 1:  # a proxy that appends its header would leave the caller's own first: never guess
                raise Unauthenticated(f"{self.roles_header}: sent {len(values)} times; the proxy must set it once")
            claimed = values[0] if values else ""
            return tuple(r for r in (x.strip() for x in claimed.split(",")) if r in known)
        return ()

    def _roles_for_key(self, presented: str) -> tuple[str, ...]:
        wanted = digest(presented)
        granted: tuple[str, ...] | None = None
        for key in self.keys:  # every key is compared: the time does not depend on which one matched
            if hmac.compare_digest(key.digest, wanted) and granted is None:
                granted = key.roles
        if granted is None:
            raise Unauthenticated("unknown API key")
        return granted


def check_granted(granted: Iterable[str], role: str) -> None:
    """Every role the API keys grant is ``role``, the restricted role of the knowledge base about to serve: a key
    granting another would read nothing, and its holder would believe it reads the restricted units."""
    other = sorted(set(granted) - {role})
    if other:
        raise UserError(f"[serve] api_keys grant the role {other[0]!r}, but this knowledge base's restricted role is "
                        f"{role!r} (restricted_role in its unitrag.toml): grant {role!r} instead")


def _presented_key(headers: Mapping[str, str]) -> str | None:
    """The one API key a request presents (None: none). Every credential header counts, not only the first: one
    that is malformed or empty, or two that differ (whichever is good), is a 401, never a guess at which was meant."""
    keys = []
    for value in _values(headers, "authorization"):
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthenticated("Authorization: expected 'Bearer <API key>'")
        keys.append(token.strip())
    for value in _values(headers, "x-api-key"):
        if not value.strip():
            raise Unauthenticated("X-API-Key: empty")
        keys.append(value.strip())
    if len(set(keys)) > 1:
        raise Unauthenticated("several different API keys (Authorization, X-API-Key): send one")
    return keys[0] if keys else None


def _values(headers: Mapping[str, str], name: str) -> list[str]:
    """Every value of a header, repeated ones included (Starlette's ``Headers``; a plain mapping holds one)."""
    getlist = getattr(headers, "getlist", None)
    if getlist is not None:
        return list(getlist(name))
    value = headers.get(name)
    return [] if value is None else [value]


def client_ip(headers: Mapping[str, str], peer: str | None, trusted_proxies: Sequence[str]) -> str:
    """The caller's address for rate limiting: behind a trusted proxy, the nearest hop in ``X-Forwarded-For``
    that is not itself a trusted proxy; otherwise the TCP peer (a client cannot spoof its way out of a limit:
    the hops left of the first untrusted one are whatever the client wrote)."""
    forwarded = headers.get("x-forwarded-for")
    if not forwarded or peer not in trusted_proxies:
        return peer or "?"
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    return next((hop for hop in reversed(hops) if hop not in trusted_proxies), hops[0] if hops else peer or "?")
