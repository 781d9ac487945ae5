"""App-side commands: search and ask over an artifact."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..config import Config, load_config
from ..errors import UserError
from ..rag.arguments import DuplicateKey, choice, json_once, question_text, result_count
from ..rag.types import LANGS, UserContext
from .output import err, out, print_answer, print_json
from .options import ConfigOpt, JsonOpt, restricted_option

if TYPE_CHECKING:
    from ..rag.knowledge_base import KnowledgeBase

KbOpt = Annotated[Optional[str], typer.Option("--kb", help="Artifact path, or a postgresql:// URL published to [config: artifact].")]


def register(app: typer.Typer) -> None:
    app.command("search")(search)
    app.command("ask")(ask)


def _open(question: str, kb: str | None, config: Path | None, **overrides: object):  # type: ignore[no-untyped-def]
    """The knowledge base, opened only once the question is known to be within the limit (opening loads a model)."""
    from ..rag.knowledge_base import KnowledgeBase

    cfg: Config = load_config(config, **overrides)
    question_text(question, cfg.max_question_chars)
    return KnowledgeBase.open(kb or cfg.artifact, config=cfg)


def search(
    question: Annotated[str, typer.Argument(help="The question.")],
    kb: KbOpt = None,
    k: Annotated[Optional[int], typer.Option("--k", help="How many sources [config: final_k].")] = None,
    sparse: Annotated[Optional[bool], typer.Option("--sparse/--no-sparse", help="BM25 arm fused by RRF [config: sparse].")] = None,
    restricted: Annotated[bool, restricted_option()] = False,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Ranked sources for a question, with every stage's score (no guard, no LLM)."""
    k = None if k is None else result_count(k, "--k")
    knowledge_base = _open(question, kb, config, sparse=sparse)
    user = holding(UserContext(), knowledge_base, restricted)
    result = knowledge_base.search(question, k=k, user=user)
    if json:
        print_json(result.to_dict())
        return
    for n, source in enumerate(result.sources, start=1):
        scores = " ".join(f"{name}={value:.3f}" for name, value in source.scores.items())
        out.print(f"{n}. [bold]{source.title}[/] ({source.chunk_id}, {source.kind}) {scores}")
    if k is not None and len(result.sources) < k:  # fewer than asked: say why, not silently
        err.print(f"{len(result.sources)} of the {k} sources asked for: the first {knowledge_base.config.dense_k} "
                  "candidates of each search hold no more units (at most two pages a scene); raise dense_k in "
                  "unitrag.toml for a deeper search")


def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    kb: KbOpt = None,
    user_context: Annotated[Optional[Path], typer.Option("--user-context", help="JSON file with UserContext fields.")] = None,
    restricted: Annotated[bool, restricted_option(", added to the roles of --user-context")] = False,
    lang: Annotated[Optional[str], typer.Option("--lang", help="Answer language: zh or en (default: the question's).")] = None,
    llm: Annotated[Optional[str], typer.Option("--llm", help="litellm:<model> or none [config: llm].")] = None,
    config: ConfigOpt = None,
    json: JsonOpt = False,
) -> None:
    """Answer a question from the artifact, with checked citations."""
    choice(lang, "--lang", LANGS)
    user = _user_context(user_context)
    knowledge_base = _open(question, kb, config, llm=llm)
    try:
        knowledge_base.check_user(user)  # the ids it names: only the knowledge base knows them
    except ValueError as exc:
        raise UserError(f"{_named(user_context)}: {exc}") from None
    user = holding(user, knowledge_base, restricted)
    answer = knowledge_base.ask(question, user=user, lang=lang)
    if json:
        print_json(answer.to_dict())  # sources: every unit retrieved; cited_units: those the answer cites
        return
    print_answer(answer)


def holding(user: UserContext, knowledge_base: KnowledgeBase, restricted: bool) -> UserContext:
    """``user`` with the knowledge base's restricted role added when ``--restricted`` asks for it: the flag adds it to
    what a ``--user-context`` file says (its ids and roles kept), so the two combine instead of one winning."""
    return replace(user, roles=(*user.roles, knowledge_base.restricted_role)) if restricted else user


def _named(path: Path | None) -> str:
    """``--user-context PATH`` for a message, the path escaped (``\\x1b``): a file name's escape sequence or newline
    must not act on the terminal or forge a second line, as no other error's value does."""
    from ..content.problems import printable

    return f"--user-context {printable(str(path))}"


#: The largest --user-context file read (a real one is a few hundred bytes: a few ids and a role).
MAX_USER_CONTEXT_BYTES = 64 * 1024


def _user_context(path: Path | None) -> UserContext:
    """The user context of a JSON file: a regular file of at most 64 KiB, never read past that; every fault one line.

    Read as the HTTP API reads a body (``json_once``): a key given twice is refused in the same words, never the last
    one winning (``{"roles": [], "roles": ["staff"]}`` would silently undo the narrowing the first one made)."""
    from ..content.files import FileTooLarge, NotRegularFile, read_regular

    if path is None:
        return UserContext()
    try:
        data = json_once(read_regular(path, MAX_USER_CONTEXT_BYTES).decode("utf-8"))
    except DuplicateKey as exc:
        raise UserError(f"{_named(path)}: the JSON {exc}") from None
    except FileNotFoundError:
        raise UserError(f"{_named(path)}: file not found") from None
    except FileTooLarge:
        raise UserError(f"{_named(path)}: larger than {MAX_USER_CONTEXT_BYTES:,} bytes; "
                        "a user context is a few ids and roles") from None
    except NotRegularFile:
        raise UserError(f"{_named(path)}: {NotRegularFile.message}; give a JSON file") from None
    except RecursionError:
        raise UserError(f"{_named(path)}: JSON nested too deeply; a user context is one flat object") from None
    except (OSError, ValueError) as exc:  # UnicodeDecodeError, JSONDecodeError, an integer too long to read
        raise UserError(f"{_named(path)}: not a readable JSON file ({exc})") from None
    try:
        return UserContext.from_dict(data)
    except ValueError as exc:
        raise UserError(f"{_named(path)}: {exc}") from None
