"""Who is calling: roles come from the operator's configuration, never from the request body.

A caller holds a role only through

- an API key the operator configured (``Authorization: Bearer <key>`` or ``X-API-Key: <key>``),
  mapped to roles. Keys are configured as SHA-256 digests only (``sha256:<64 hex digits>``: the
  plain key is never written down on the server; anything else stops the server at start) and
  compared in constant time; or
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

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


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


#: How an operator writes a key's configured form: its digest, never the key.
DIGEST_HOWTO = 'write sha256:<64 hex digits>, the digest of the key that `printf %s "$KEY" | sha256sum` prints'


def _hash_name(spec: str) -> str | None:
    """The hash an entry names before its first colon (``sha512``), when that is a hash's name: safe to show."""
    scheme, sep, _ = spec.partition(":")
    return scheme if sep and scheme.lower() in hashlib.algorithms_available else None


def _shown_spec(spec: str) -> str:
    """What an error shows of an entry: its hash's name (``sha512:``) only, never a character of the rest: a
    malformed entry may be the secret key itself, and the error lands in logs."""
    name = _hash_name(spec)
    return f" ({name!r}…)" if name else ""


def _digest_problem(spec: str) -> str | None:
    """Why a configured key is not ``sha256:<64 hex digits>`` (None: it is)."""
    if spec.startswith("sha256:") and _HEX64.fullmatch(spec, len("sha256:")):
        return None
    name = _hash_name(spec)
    if name is None:
        if _HEX64.fullmatch(spec):
            return "a digest without its sha256: prefix (a bare value would be taken as the key itself)"
        return "not a digest (the server never stores a key itself)"
    if name != "sha256":
        return "only sha256: digests are accepted" + (" (the prefix in lower case)" if name.lower() == "sha256" else "")
    rest = spec[len("sha256:"):]
    if re.fullmatch(r"[0-9a-fA-F]*", rest):
        return f"sha256: takes exactly 64 hex digits, got {len(rest)}"
    return "sha256: takes hex digits only (0-9, a-f)"


def api_key(spec: str, roles: Sequence[str], where: str = "[serve] api_keys") -> ApiKey:
    """A key from its configured form, ``sha256:<64 hex digits>`` (either case): any other entry stops the server,
    in one line naming ``where`` it is, since a plain key or a malformed digest would be a secret kept in the clear,
    or one that can never match."""
    spec = spec.strip()
    if not spec:
        raise UserError(f"{where}: an empty key; {DIGEST_HOWTO}")
    problem = _digest_problem(spec)
    if problem:
        raise UserError(f"{where}{_shown_spec(spec)}: {problem}; {DIGEST_HOWTO}")
    misspelled = [r for r in roles if not is_role_name(r)]
    if misspelled or not roles:  # a value that is no role name is not echoed: it may be a key pasted in its place
        got = (f"{len(misspelled)} value(s) that are not role names" if misspelled else "none")
        raise UserError(f"{where}: each key grants one or more role names (the knowledge base's "
                        f"restricted_role), got {got}")
    return ApiKey(bytes.fromhex(spec.removeprefix("sha256:")), tuple(roles))


def parse_api_keys(value: Any) -> tuple[ApiKey, ...]:
    """Keys from ``[serve.api_keys]`` (a table ``"sha256:<hex>" = ["role", ...]``) or ``UNITRAG_API_KEYS``
    (``sha256:<hex>=role+role,sha256:<hex>=role``); an error names an entry by its position (1 is the first)."""
    if isinstance(value, Mapping):
        source = "[serve.api_keys]"
        pairs = [(n, k, v) for n, (k, v) in enumerate(value.items(), 1)]
    elif isinstance(value, str):
        source = "UNITRAG_API_KEYS"
        pairs = []
        for n, entry in enumerate((e.strip() for e in value.split(",")), 1):
            if not entry:
                continue
            key, sep, roles = entry.rpartition("=")
            if not sep:
                raise UserError(f"{source} entry {n}: each entry is sha256:<hex>=role (roles joined by +), "
                                "comma-separated")
            pairs.append((n, key, roles.split("+")))
    else:
        raise UserError("[serve] api_keys: expected a table of \"sha256:<hex>\" = [roles]")
    for n, _, roles in pairs:  # a file's lone string is a mistake, as any setting's string where a list belongs
        if not isinstance(roles, (list, tuple)) or not all(isinstance(x, str) for x in roles):
            raise UserError(f'{source} entry {n}: expected a list of role names, even for one: = ["clinician"]')
    return tuple(api_key(str(k), [x.strip() for x in r], f"{source} entry {n}") for n, k, r in pairs)


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
