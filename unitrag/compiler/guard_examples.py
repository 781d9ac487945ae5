"""Guard examples as build content: hashed, embedded only when new, fitted into the artifact.

Each rule's ``examples`` and ``near_misses`` (guard.yaml), the knowledge base's own
labelled questions that no guard should stop (eval/*.yaml, as negatives), the titles
of its public units (what it exists to answer: "Fasting glucose and the diagnosis of
diabetes" is no emergency, however close a diabetic emergency's words are) and the
bundled everyday questions (``content.background``, role ``background``; those its rules
claim are left out of the fit) become rows of ``guard_examples``. They are embedded as *queries* (they are compared with
questions), keyed like chunks by a content hash, so an unchanged example is never
embedded twice: its vector comes from the previous artifact or the embedding cache.
Moving a text between rules or roles, or editing a response or a pattern, embeds
nothing (metadata only); the classifier (``guard_fit``) is refitted on every write,
which takes seconds and no model.

The same table holds the answerability exemplars (``rag.store.exemplars``): the labelled dev
questions asked without a user context keep their label as their role (``answerable``,
``unanswerable``; still the guard's negatives), and the ``questions`` authors list in each
unit's frontmatter are rows of their own (``unit_question``, or ``clinician_question`` for a
restricted unit, with the unit's id), which the guard's fit leaves out. Only a question's text is a row:
the ``facts`` a unit question may carry (content tests, ``eval.content_tests``) are never embedded, so adding
or editing them embeds and refits nothing.

Held-out files (``eval/*_test.yaml``, ``content.registry.is_held_out``) are never read here: a test set
fitted on is no test.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..artifact.reader import PreviousState, has_table, open_artifact, rows_as_dicts
from ..artifact.schema import UNIT_ROLES
from ..content.background import background_sets
from ..content.guard_rules import CHECK_ORDER, compile_pattern, compile_rule, first_match, search, shown_pattern
from ..content.loader import ContentSet
from ..content.registry import is_held_out
from ..content.models import Story
from ..content.guard_model import GuardRule
from ..content.labelled_question import LabelledQuestion
from ..content.text.lang import detect_lang, normalize_question
from ..languages import LANGS
from ..providers.embedders import Embedder
from .guard_fit import FIT_VERSION, NONE, GuardFit, fit_guard, probabilities
from .guard_fit import background_class as set_class

#: The role of a bundled background question: ``background`` (the everyday set), ``background:<set>`` (another).
BACKGROUND = "background"
from .hashing import digest

if TYPE_CHECKING:
    from .cache import EmbeddingCache

#: What the hash covers besides the text: the role it is embedded in (a query, with the model's query prefix).
EMBEDDED_AS = "guard-query:1"
#: At most this many unit titles join the negatives (a large corpus would otherwise embed and fit
#: thousands of them for little more than the first few hundred give): the first by id.
MAX_TITLES = 1000
#: At most this many of the units' own questions a rule would stop are kept in the fit's metrics (and shown).
MAX_REPORTED = 20


def guard_example_rows(content: ContentSet) -> list[dict[str, Any]]:
    """One row per example, near-miss, labelled question and unit question (no vectors yet): what the plan hashes.

    The labelled dev questions are the guard's negatives; asked without a user context they are also
    answerability exemplars (rag.store.exemplars), by label. Authors' questions of units are exemplars only. A question
    asked with the restricted role is neither: the guard scores every caller with one model, and a public caller's
    score must not move with what only the restricted role asks (an attacker read a third decimal of it move).
    """
    rows = []
    for rule in content.guard_rules:
        for role, texts in (("example", rule.examples), ("near_miss", rule.near_misses)):
            rows += [_row(rule.id, role, lang, text) for lang, text in texts.items()]
    units = unit_access(content)
    for lq in content.questions:
        q = lq.question
        if q.guard is None and not is_held_out(Path(lq.path)) and not (q.user is not None and q.user.roles):
            rows.append(_row(None, _question_role(q), q.lang, q.question))
    if any(rule.examples.items() for rule in content.guard_rules):
        rows += [_row(None, "title", lang, title) for lang, title in public_titles(content)[:MAX_TITLES]]
        rows += [_row(None, background_role(name), lang, text)
                 for name, questions in background_sets().items() for lang, text in questions]
    by_id = units_by_id(content)
    for unit_id, (_, access) in units.items():
        role = "unit_question" if access == "public" else "clinician_question"
        rows += [_row(unit_id, role, detect_lang(text), text) for text in by_id[unit_id].question_texts]
    return rows


def background_role(name: str) -> str:
    """The role of the bundled background set ``name`` (``content.background.BACKGROUND_FILES``)."""
    return BACKGROUND if name == "everyday" else f"{BACKGROUND}:{name}"


def background_class(role: str) -> str | None:
    """The classifier's class of a background row's role (``guard_fit.background_class``); None for other roles."""
    if role == BACKGROUND:
        return set_class("everyday")
    name = role.removeprefix(BACKGROUND + ":")
    return set_class(name) if name != role else None


def _question_role(q: LabelledQuestion) -> str:
    """A labelled question's role: an answerability exemplar when asked without a user context (validation then
    holds its expected units public), else a negative of the guard only."""
    if q.user is not None:
        return "negative"
    return "unanswerable" if q.unanswerable else "answerable"


def unit_access(content: ContentSet) -> dict[str, tuple[str, str]]:
    """(language, access) of every unit, by unit id; a scene's default to its story's."""
    stories = {lu.id: lu.unit for lu in content.units if isinstance(lu.unit, Story)}
    found = {}
    for lu in sorted(content.units, key=lambda u: u.id):
        unit, story = lu.unit, stories.get(getattr(lu.unit, "story", None) or "")
        lang = getattr(unit, "lang", None) or getattr(story, "lang", None)
        access = getattr(unit, "access", None) or getattr(story, "access", None)
        if lang and access:
            found[unit.id] = (lang, access)
    return found


def public_titles(content: ContentSet) -> list[tuple[str, str]]:
    """(language, title) of every public unit, by unit id."""
    units = units_by_id(content)
    return [(lang, units[uid].title) for uid, (lang, access) in unit_access(content).items() if access == "public"]


def units_by_id(content: ContentSet) -> dict[str, Any]:
    return {lu.id: lu.unit for lu in content.units}


def guard_table_hash(rows: list[dict[str, Any]], rules: Sequence[dict[str, Any]] = ()) -> str:
    """What decides whether the classifier is refitted: the rows, the rules' patterns (the red-flag threshold
    counts what they stop) and the version of the fit that made it."""
    patterns = [(r["id"], r["type"], r.get("patterns_en"), r.get("patterns_zh")) for r in rules]
    return digest({"fit": FIT_VERSION, "rows": rows, "patterns": patterns})


def example_hash(text: str) -> str:
    return hashlib.sha256(f"{EMBEDDED_AS}\x00{text}".encode("utf-8")).hexdigest()


def _row(rule_id: str | None, role: str, lang: str, text: str) -> dict[str, Any]:
    return {"rule_id": rule_id, "role": role, "lang": lang, "text": text, "content_hash": example_hash(text)}


def embed_and_fit(
    tables: dict[str, list[dict[str, Any]]], *, model_id: str, previous: PreviousState | None, cache: EmbeddingCache,
    embedder: Callable[[], Embedder] | None, refit: bool = True,
) -> list[str]:
    """Give every ``guard_examples`` row its vector and add the fitted ``guard_model`` rows; the pending ones.

    ``embedder`` is called only when some text has no vector yet; None (``--reconcile``):
    such rows are left out of this artifact and returned as pending. Without ``refit`` (the examples, the rules'
    patterns and the embedder are the last artifact's: ``guard_table_hash`` unchanged) its fitted rows are kept:
    a citation edit refitted the classifier, 13 of a 16-second build.
    """
    rows = tables["guard_examples"]
    wanted = list(dict.fromkeys(r["content_hash"] for r in rows))
    vectors = _previous_vectors(previous, model_id) if previous is not None else {}
    vectors = {h: vectors[h] for h in wanted if h in vectors}
    vectors.update(cache.get_many(model_id, [h for h in wanted if h not in vectors]))
    missing = [h for h in wanted if h not in vectors]
    pending: list[str] = []
    if missing and embedder is not None:
        model = embedder()
        texts = {r["content_hash"]: r["text"] for r in rows}
        fresh = model.embed_queries([texts[h] for h in missing])
        cache.put_many(model_id, missing, fresh)
        vectors.update(zip(missing, np.asarray(fresh, dtype=np.float32)))
    elif missing:
        pending = [f"guard:{r['rule_id'] or 'negative'}:{r['role']}:{r['content_hash'][:12]}" for r in rows
                   if r["content_hash"] not in vectors]
    kept = [r for r in rows if r["content_hash"] in vectors]
    for r in kept:
        r["embedding"] = np.asarray(vectors[r["content_hash"]], dtype=np.float32).tolist()
    tables["guard_examples"] = kept
    fitted = None if refit or pending or previous is None else _previous_model(previous, model_id)
    tables["guard_model"] = fitted if fitted is not None else model_rows(kept, tables.get("guard_rules", []))
    return pending


def _previous_model(previous: PreviousState, model_id: str) -> list[dict[str, Any]] | None:
    """The last artifact's ``guard_model`` rows as ``model_rows`` makes them, None when it has none to give."""
    if previous.embedder_id != model_id:
        return None
    with open_artifact(previous.path) as con:
        if not has_table(con, "guard_model"):
            return None
        rows = rows_as_dicts(con, 'SELECT "class", type, intercept, weights, threshold, metrics FROM guard_model')
    if not rows:
        return None
    return [{**row, "weights": [float(w) for w in row["weights"]]} for row in rows]


def model_rows(rows: list[dict[str, Any]], rules: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``guard_model`` table: one row per class (``NONE`` and every rule with examples)."""
    if not rows:
        return []
    own = [r for r in rows if r["role"] in UNIT_ROLES]  # authors' questions of units: exemplars, not negatives
    rows = [r for r in rows if r["role"] not in UNIT_ROLES]
    claimed = background_claimed(rows, rules)
    rows = [r for r, c in zip(rows, claimed) if not c]
    labels = [r["rule_id"] if r["role"] == "example" else background_class(r["role"]) or NONE for r in rows]
    types = {rule["id"]: rule["type"] for rule in rules}
    own_vectors = np.array([r["embedding"] for r in own], dtype=np.float32) if own else None
    # the guard answers every caller alike, so only public units' questions may set where it stops: a restricted
    # unit's would move the threshold a public caller meets (and reads in a refusal's ``guard.threshold``)
    public = [r["embedding"] for r in own if r["role"] == "unit_question"]
    fit = fit_guard(np.array([r["embedding"] for r in rows], dtype=np.float32), labels, types,
                    caught_by_patterns(rows, rules), in_scope=np.array(public, dtype=np.float32) if public else None)
    if fit is None:
        return []
    fit.metrics["unit_questions_stopped"] = own_questions_stopped(own, own_vectors, fit, rules)
    return [
        {"class": name, "type": types.get(name), "intercept": float(fit.intercepts[i]),
         "weights": fit.weights[:, i].tolist(), "threshold": fit.thresholds.get(types.get(name, "")),
         "metrics": json.dumps(fit.metrics, sort_keys=True) if name == NONE else None}
        for i, name in enumerate(fit.classes)
    ]


def own_questions_flagged(model: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What ``own_questions_stopped`` found, read back from the ``guard_model`` rows."""
    none = next((r for r in model if r["class"] == NONE and r.get("metrics")), None)
    return list(json.loads(none["metrics"]).get("unit_questions_stopped", [])) if none else []


def own_questions_stopped(
    own: list[dict[str, Any]], vectors: np.ndarray | None, fit: GuardFit, rules: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The units' own questions a rule would stop, by pattern or score (before the runtime reads their framing):
    a unit written to answer a question its knowledge base then refuses, or answers with an emergency message.
    At most ``MAX_REPORTED``, by unit id, for the build to show its author. A restricted unit's question is asked by
    the restricted role, whom a rule marked ``exempt_restricted_role`` does not stop."""
    compiled = [compile_rule(rule) for rule in rules]
    for_restricted = [rule for rule in compiled if not rule.exempt_restricted_role]
    types = {rule.id: rule.type for rule in compiled}
    sources = {rule["id"]: [p for lang in LANGS for p in rule.get(f"patterns_{lang}") or ()] for rule in rules}
    columns = {t: [c for c, name in enumerate(fit.classes) if types.get(name) == t] for t in CHECK_ORDER}
    p = probabilities(vectors, fit.weights, fit.intercepts) if own else np.zeros((0, len(fit.classes)))
    found = []
    for row, scores in zip(own, p):
        text, restricted = normalize_question(row["text"]), row["role"] != "unit_question"
        asked = for_restricted if restricted else compiled
        for rule_type in CHECK_ORDER:
            rule, cols = first_match(asked, text, rule_type), columns[rule_type]
            mass = float(scores[cols].sum()) if cols else 0.0
            top = fit.classes[max(cols, key=lambda c: scores[c])] if cols else ""
            if rule is not None:
                found.append({"unit": row["rule_id"], "text": row["text"], "rule": rule.id, "by": "pattern",
                              "pattern": stopping_pattern(sources.get(rule.id, []), text), "restricted": restricted})
            elif cols and mass >= fit.thresholds.get(rule_type, 2.0) and any(r.id == top for r in asked):
                found.append({"unit": row["rule_id"], "text": row["text"], "rule": top, "by": f"score {mass:.2f}",
                              "restricted": restricted})
            else:
                continue
            break
    return sorted(found, key=lambda f: (f["unit"], f["text"]))[:MAX_REPORTED]


def stopping_pattern(sources: Sequence[str], folded_question: str) -> str | None:
    """The first of a rule's patterns (as written, shortened: ``shown_pattern``) that matches the folded question;
    None when none does (or one ran over its time)."""
    for source in sources:
        if search(compile_pattern(source), folded_question):
            return shown_pattern(source)
    return None


def near_misses_stopped(rules: Sequence[GuardRule]) -> list[dict[str, Any]]:
    """Each rule's ``near_misses`` (questions its authors say must pass) that one of its own patterns stops, with the
    pattern and the rule's type: the pattern contradicts its author, and the classifier's fit cannot undo a pattern's
    match. A red flag's near-miss the runtime's framing answers (past, study, prevention) is no contradiction: the
    CLI, which may read the framing (``rag.guard``, a layer above this one), leaves those out before it warns."""
    found = []
    for rule in rules:
        patterns = [*rule.patterns.en, *rule.patterns.zh]
        for _, text in rule.near_misses.items():
            pattern = stopping_pattern(patterns, normalize_question(text))
            if pattern is not None:
                found.append({"rule": rule.id, "type": rule.type, "text": text, "pattern": pattern})
    return found


def background_claimed(rows: list[dict[str, Any]], rules: list[dict[str, Any]]) -> list[bool]:
    """Per row, whether it is a bundled everyday question this knowledge base's rules claim, so no negative.

    Claimed: a pattern of any rule matches it, or its nearest rule example belongs to an out-of-scope rule
    (a knowledge base that refuses car questions keeps refusing them). One nearest to a red flag's example
    stays: telling "my car battery died" from an emergency is what it is there for.
    """
    background = [i for i, r in enumerate(rows) if background_class(r["role"])]
    claimed = [False] * len(rows)
    examples = [r for r in rows if r["role"] == "example"]
    if not background or not examples:
        return claimed
    compiled = [compile_rule(rule) for rule in rules]
    out_of_scope = {rule.id for rule in compiled if rule.type == "out_of_scope"}
    example_rule = np.array([r["rule_id"] in out_of_scope for r in examples])
    matrix = np.array([r["embedding"] for r in examples], dtype=np.float32)
    queries = np.array([rows[i]["embedding"] for i in background], dtype=np.float32)
    nearest_out_of_scope = example_rule[(queries @ matrix.T).argmax(axis=1)]
    for i, near in zip(background, nearest_out_of_scope):
        text = normalize_question(rows[i]["text"])
        claimed[i] = bool(near) or any(rule.matches(text) for rule in compiled)
    return claimed


def caught_by_patterns(rows: list[dict[str, Any]], rules: list[dict[str, Any]]) -> list[bool]:
    """Per row, whether a pattern of its rule's type stops it: such an example needs no score (``guard_fit``)."""
    compiled = [compile_rule(rule) for rule in rules]
    types = {rule.id: rule.type for rule in compiled}
    return [r["role"] == "example" and r["rule_id"] in types
            and first_match(compiled, normalize_question(r["text"]), types[r["rule_id"]]) is not None for r in rows]


def _previous_vectors(previous: PreviousState, model_id: str) -> dict[str, np.ndarray]:
    """The last artifact's example vectors by content hash (none from another model or an older schema)."""
    if previous.embedder_id != model_id:
        return {}
    with open_artifact(previous.path) as con:
        if not has_table(con, "guard_examples"):
            return {}
        found = con.execute("SELECT content_hash, embedding FROM guard_examples").fetchall()
    return {h: np.asarray(v, dtype=np.float32) for h, v in found}
