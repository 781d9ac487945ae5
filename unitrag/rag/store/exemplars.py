"""Answerability by example: how much closer a question is to questions the knowledge base answers than to ones it does not.

A cosine to the chunks cannot tell "what to eat for strong blood" (answered, in other words)
from "what to eat for strong nails" (not covered): both sit at the same distance from the
iron units. Questions can: the author's own questions of each unit (``questions:`` in its
frontmatter) and the labelled dev questions (eval/*.yaml but the held-out ``*_test.yaml``)
are exemplars of both kinds, embedded at build time like the guard's examples (they share
its table, ``guard_examples``, with their own roles). The gate feature ``exemplar`` is the
best cosine to an answerable exemplar minus the best to an unanswerable one.

Only questions asked without a user context count (one that is answerable only with a
current topic is not an exemplar of a plain question), and an author's question of a
restricted unit counts for the restricted role only: otherwise "which dose for IV iron?" would
look answered to a public user whose sources hold none of it.

An author's question asked nearly word for word (cosine ≥ ``AUTHORED_ANSWERS``) is answered
whatever the fitted gate says (``nearest_authored``, read by ``Retriever.answerable``): the authors wrote
that this unit answers it, and a gate fitted on another knowledge base (the default one, before a
team calibrates) must not say "not found" to the question an author tries first. The knowledge
base's exemplars exist as soon as it has answerable ones (its units' questions); the ``exemplar``
feature also needs unanswerable ones.

Evaluation and calibration score a dev file's questions with ``without`` that file's texts:
a question must not count as its own neighbour. Nor does it at query time: a labelled dev question asked
word for word (cosine ≥ ``ITSELF``) is no exemplar of itself (``_cosines``), so that ``unitrag ask`` answers it as
``unitrag eval`` scored it. As its own nearest neighbour it had moved the gate and the answer's paraphrases: a new
team's "房东一年能涨几次房租？" was quoted a repair rule by ``ask`` and the rent rule by ``eval``. An author's
question of a unit still counts asked word for word: that is what ``AUTHORED_ANSWERS`` is for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...content.text.lang import detect_lang

#: Roles in ``guard_examples`` that are answerability exemplars: role → (answerable, for the restricted role only).
ROLES: dict[str, tuple[bool, bool]] = {
    "answerable": (True, False),  # a dev question asked anonymously (so its expected units are public)
    "unanswerable": (False, False),  # a dev question labelled unanswerable: true
    "unit_question": (True, False),  # an author's question of a public unit
    "clinician_question": (True, True),  # an author's question of a restricted unit (the name predates named roles)
}
#: A question this near an author's question of a unit (cosine, one language: across two they score ~0.09 lower) is
#: answered. The sample's dev questions labelled unanswerable come no nearer than 0.945 (0 of 185 at 0.95), hence
#: 0.96; its held-out ones no nearer than 0.946, bike-care's 0.93 (docs/benchmarks/quality.md).
AUTHORED_ANSWERS = 0.96
#: A labelled dev question this near the question (cosine) is the question itself, as the artifact embedded it (bf16
#: vectors move in the fourth decimal with the batch they were embedded in), or it differing in case or punctuation.
ITSELF = 0.999
#: The roles of an author's own questions of a unit.
AUTHORED = frozenset({"unit_question", "clinician_question"})
#: The roles as an SQL list, to select the exemplars' rows (constants: nothing from outside enters it).
ROLES_SQL = ", ".join(f"'{role}'" for role in ROLES)
#: The authors' questions of units with their unit's id and language, from ``guard_examples`` (``{table}``: the
#: artifact's or the published one): the knowledge base's own example questions (``unitrag serve``'s ``/v1/about``).
UNIT_QUESTIONS_SQL = ("SELECT rule_id AS unit_id, role, lang, text FROM {table} "
                      "WHERE role IN ('unit_question', 'clinician_question') ORDER BY rule_id, text")


@dataclass(frozen=True)
class Exemplars:
    texts: tuple[str, ...]
    vectors: np.ndarray  # unit query vectors, one row per text
    answerable: np.ndarray  # bool per row
    restricted: np.ndarray  # bool per row: counts for the restricted role only
    langs: np.ndarray  # "en" | "zh" per row: each text's language (``detect_lang``)
    authored: np.ndarray  # bool per row: an author's question of a unit (not a labelled dev question)
    units: tuple[str, ...] = ()  # per row: the unit an author's question is of ("" for a labelled dev question)
    #: The last question's vector (as bytes) and its cosines: an ask reads them for the gate, the authored units and
    #: the answer's paraphrases, each from the same vector (one slot, replaced whole: safe across threads).
    _last: list[tuple[bytes, np.ndarray] | None] = field(default_factory=lambda: [None], compare=False, repr=False)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> "Exemplars | None":
        """From ``guard_examples`` rows (other roles are skipped); None without exemplars of both kinds."""
        kept = [r for r in rows if r["role"] in ROLES]
        if not kept:
            return None
        return cls.of([r["role"] for r in kept], [r["text"] for r in kept],
                      np.asarray([r["embedding"] for r in kept], dtype=np.float32), [r.get("rule_id") for r in kept])

    @classmethod
    def read(cls, con: Any) -> "Exemplars | None":
        """From an artifact's connection; None when it predates them or holds none of both kinds.

        The vectors are read as one Arrow column viewed as the matrix (``artifact.arrow_numpy.matrix_of``): a
        thousand 384-float rows made Python lists first took ~100 ms of every open.
        """
        from ...artifact.reader import has_table
        from ...artifact.arrow_numpy import matrix_of

        if not has_table(con, "guard_examples"):
            return None
        table = con.execute(f"SELECT role, text, embedding, rule_id FROM guard_examples WHERE role IN ({ROLES_SQL})"
                            ).to_arrow_table()
        if not table.num_rows:
            return None
        return cls.of(table.column("role").to_pylist(), table.column("text").to_pylist(), matrix_of(table.column("embedding")),
                      table.column("rule_id").to_pylist())

    @classmethod
    def of(cls, roles: list[str], texts: list[str], vectors: np.ndarray,
           units: list[str | None] | None = None) -> "Exemplars | None":
        """From each exemplar's role, text, vector and (an author's question) unit id, rows in the same order."""
        authored = np.array([r in AUTHORED for r in roles], bool)
        owners = tuple(str(u) if a and u else "" for a, u in zip(authored, units or [None] * len(roles)))
        return cls(tuple(texts), vectors, np.array([ROLES[r][0] for r in roles], bool),
                   np.array([ROLES[r][1] for r in roles], bool), np.array([detect_lang(t) for t in texts]),
                   authored, owners).usable()

    def usable(self) -> "Exemplars | None":
        """Itself, or None without an answerable exemplar (with no unanswerable one, ``score`` says nothing)."""
        return self if self.answerable.any() else None

    def score(self, vector: np.ndarray, restricted: bool = False) -> float | None:
        """Best cosine to an answerable exemplar the caller may count, minus the best to an unanswerable one."""
        return self._margin(self._cosines(vector), restricted)

    def nearest_authored(self, vector: np.ndarray, restricted: bool = False) -> float | None:
        """The best cosine to an author's question of a unit the caller may read; None when there is none."""
        return self._authored(self._cosines(vector), restricted)

    def gate_scores(self, vector: np.ndarray, restricted: bool = False) -> dict[str, float]:
        """``score`` as ``exemplar`` and ``nearest_authored`` as ``authored`` (those that say something), from one
        product of the question with every exemplar: retrieval asks for both on every question."""
        cosines = self._cosines(vector)
        found = {"exemplar": self._margin(cosines, restricted), "authored": self._authored(cosines, restricted)}
        return {name: value for name, value in found.items() if value is not None}

    def authored_units(self, vector: np.ndarray, restricted: bool = False) -> tuple[str, ...]:
        """The units (the caller may read) one of whose author's questions ``vector`` asks nearly word for word
        (cosine ≥ ``AUTHORED_ANSWERS``), nearest first: the authors said these units answer it."""
        if not self.units:
            return ()
        cosines = self._cosines(vector)
        rows = np.flatnonzero(self.authored & (restricted | ~self.restricted) & (cosines >= AUTHORED_ANSWERS))
        return tuple(dict.fromkeys(self.units[i] for i in rows[np.argsort(-cosines[rows], kind="stable")]
                                   if self.units[i]))

    def translations(self, vector: np.ndarray, unit: str, lang: str, restricted: bool = False) -> dict[str, float]:
        """The author's questions of ``unit`` in languages other than ``lang``, with their cosines to ``vector``: a
        Chinese question asked nearly as the author of an English unit wrote it (厨余桶能放骨头吗？) is said in the unit's
        words by its English questions ("Can meat and bones go in the food caddy?"), whatever their cross-language
        cosine (0.82 there)."""
        cosines = self._cosines(vector)
        rows = [i for i, owner in enumerate(self.units) if owner == unit and self.langs[i] != lang
                and (restricted or not self.restricted[i])]
        return {self.texts[i]: float(cosines[i]) for i in rows}

    def _cosines(self, vector: np.ndarray) -> np.ndarray:
        """The question's cosine to every exemplar, computed once per question vector (read-only: it is shared); a
        labelled dev question that is the question itself (``ITSELF``) at -1, as far as none is."""
        vector = np.asarray(vector, dtype=np.float32)
        key, last = vector.tobytes(), self._last[0]
        if last is not None and last[0] == key:
            return last[1]
        cosines = self.vectors @ vector
        cosines[(cosines >= ITSELF) & ~self.authored] = -1.0
        cosines.setflags(write=False)
        self._last[0] = (key, cosines)
        return cosines

    def _margin(self, cosines: np.ndarray, restricted: bool) -> float | None:
        positive = self.answerable & (restricted | ~self.restricted)
        if not positive.any() or self.answerable.all():
            return None
        return float(cosines[positive].max() - cosines[~self.answerable].max())

    def _authored(self, cosines: np.ndarray, restricted: bool) -> float | None:
        rows = self.authored & (restricted | ~self.restricted)
        return float(cosines[rows].max()) if rows.any() else None

    def nearest_answered(self, vector: np.ndarray, k: int, least: float, restricted: bool = False,
                         lang: str | None = None, offsets: Mapping[str, float] | None = None) -> dict[str, float]:
        """Up to ``k`` answerable exemplars (the caller may count) nearest ``vector``, at cosine ``least`` or more,
        best first, with their cosines: the same question in other words.

        With ``lang`` (the question's language), up to ``k`` of it, and up to ``k`` of each other language from
        the authors' own questions of units only, their cosines lifted by ``offsets`` (language → the
        cross-language correction, ``rag.search.crosslingual``) to the question's scale: the author's translation
        of the nearest question is as near as the question it translates, and its words are those of a source in
        that language. A labelled dev question in the other language is only near, not a translation."""
        cosines = self._cosines(vector)
        allowed = self.answerable & (restricted | ~self.restricted)
        if lang is None:
            groups = [allowed]
        else:
            for other, offset in (offsets or {}).items():
                if other != lang:
                    cosines = np.where(self.langs == other, cosines + offset, cosines)
            groups = [allowed & (self.langs == lang),
                      *(allowed & self.authored & (self.langs == other) for other in np.unique(self.langs) if other != lang)]
        best: list[int] = []
        for group in groups:
            rows = np.flatnonzero(group & (cosines >= least))
            best.extend(rows[np.argsort(-cosines[rows], kind="stable")[:k]])
        best.sort(key=lambda i: -cosines[i])
        return {self.texts[i]: float(cosines[i]) for i in best}

    def without(self, texts: Iterable[str]) -> "Exemplars | None":
        """The exemplars but ``texts`` (a dev file scored against the others), None if no answerable one is left."""
        drop = set(texts)
        keep = np.array([t not in drop for t in self.texts], bool)
        if keep.all():
            return self
        return Exemplars(tuple(t for t, k in zip(self.texts, keep) if k), self.vectors[keep], self.answerable[keep],
                         self.restricted[keep], self.langs[keep], self.authored[keep],
                         tuple(u for u, k in zip(self.units, keep) if k) if self.units else ()).usable()
