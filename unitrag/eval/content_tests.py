"""Content tests: a unit's own questions, asked of the built knowledge base, must find the unit and state its facts.

A unit's ``questions:`` may give facts (``{q: ..., facts: [...]}``, ``content.models.UnitQuestion``).
Each such question is asked the way ``ask`` takes it, by a reader allowed to see the unit (a
restricted unit's holding the restricted role), and passes in an answer mode when the unit is among
the first ``TOP`` sources and that mode's answer states every fact (``eval.answer_facts``, the matcher
of labelled questions' ``answer_facts``; the modes are ``eval.fact_report``'s). Written next to the
text it tests, it fails the pull request whose edit stops a unit answering its own question: a number
deleted or changed, a sentence split from its subject, a new unit that buries it. A question the guard should stop
(``{q: ..., guard: red_flag}``: a unit about what to do in the emergency its red flag stops) passes when the guard
stops it so; without the label it could only fail, and an IT help desk's pull-request check stayed red.

The unit questions stay among the answerability exemplars while they are asked: a content test asks
what a reader asking exactly that question gets. How the gate does on questions it has not seen is
what the labelled dev and test questions measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..access import DEFAULT_ROLE
from ..compiler.guard_examples import unit_access
from ..config import Config
from ..content.loader import ContentSet
from ..content.labelled_question import LabelledQuestion, QuestionUser
from ..errors import ContentInvalid
from ..rag.calibrate.calibration import user_context
from ..content.text.lang import detect_lang
from ..rag.types import Source
from .fact_report import MODES, answer_excerpt, answer_texts, fact_row
from .questions import unit_languages
from .report import EvalProgress

#: The unit must be among this many first units of the sources (Success@5).
TOP = 5
#: What a failing ``--min-answer-facts`` gate says besides the figure: what a content test checks, and the usual fixes.
GATE_HINT = (f"A content test passes when its unit is among the first {TOP} sources and the answer states every fact "
             "(each failing line above says which is not, with the answer). Usual fixes: write the fact in the unit in "
             "one of its spellings, or add the answer's spelling to the question's facts; give the unit `questions:` "
             "and topics in the readers' words when another unit ranks first")


@dataclass(frozen=True)
class ContentTest:
    """One unit question with facts, as a labelled question (expected unit, facts, who asks) and where it is written."""

    path: str
    line: int
    unit_id: str
    question: LabelledQuestion


@dataclass
class ContentTestReport:
    pipeline: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def modes(self) -> dict[str, dict[str, Any]]:
        """Per answer mode: questions, how many pass, their share, and fact recall."""
        found = {}
        for mode in MODES:
            mine = [(row, row["answer_facts"][mode]) for row in self.rows if mode in row["answer_facts"]]
            if not mine:
                continue
            passed = sum(row["found"] and not got["missing"] for row, got in mine)
            facts, stated = sum(got["facts"] for _, got in mine), sum(got["stated"] for _, got in mine)
            found[mode] = {"questions": len(mine), "passed": passed, "pass_rate": round(passed / len(mine), 4),
                           "unit_found": sum(row["found"] for row, _ in mine),
                           "fact_recall": round(stated / facts, 4) if facts else None}
        return found

    def failures(self, answers: bool = True) -> list[str]:
        """``path:line: question '...' — why`` for every question that fails in some mode; with ``answers``, a missing
        fact is followed by the start of the answer, which shows why it was not matched (``--json`` has the answers
        in ``questions``, and its ``failures`` stay without them)."""
        return [f"{row['path']}:{row['line']}: question '{row['question']}' — {'; '.join(reasons)}"
                for row in self.rows if (reasons := _reasons(row, answers))]

    def gate(self, least: float | None) -> list[str]:
        """``--min-answer-facts``: in every answer mode, the share of content tests passing must reach ``least``."""
        if least is None:
            return []
        if not self.rows:
            return [f"no unit question has facts, so no content test ran (--min-answer-facts {least}): give a question in "
                    "a unit's `questions:` the facts its answer must state, {q: ..., facts: [...]} (docs/authoring.md); "
                    "deleting the starter units deletes the starter's one"]
        return [f"unit questions ({mode}): {m['passed']}/{m['questions']} pass their content test "
                f"({m['pass_rate']:.4f}), below --min-answer-facts {least}. {GATE_HINT}"
                for mode, m in self.modes.items() if m["pass_rate"] < least]

    def summary_lines(self) -> list[str]:
        if not self.rows:
            return ["no unit question has facts: write questions as {q: ..., facts: [...]} (docs/authoring.md)"]
        return [f"content tests ({mode}): {m['passed']}/{m['questions']} pass (unit among the first {TOP} sources "
                f"{m['unit_found']}/{m['questions']}, fact recall {_f(m['fact_recall'])})" for mode, m in self.modes.items()]

    def markdown(self) -> str:
        lines = [f"- {line}" for line in self.summary_lines()]
        failing = self.failures()
        if failing:
            lines += ["", "Failing content tests:", ""] + [f"- {line}" for line in failing]
        return "\n".join(["Content tests (unit questions with facts):", "", *lines]) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "unit_questions", "pipeline": self.pipeline, "top": TOP, "modes": self.modes,
                "failures": self.failures(answers=False), "questions": self.rows}


def load_content_tests(cfg: Config) -> list[ContentTest]:
    """The content tests of ``cfg.content_dir``; invalid content is refused, as the build refuses it."""
    from ..content.validate import validate_content

    content = validate_content(cfg.content_dir, cfg.max_unit_bytes, None, cfg.max_file_bytes, cfg.languages,
                               cfg.max_question_chars, cfg.restricted_role)
    if content.problems:
        raise ContentInvalid(content.problems, "nothing was evaluated")
    return content_tests(content, cfg.restricted_role)


def content_tests(content: ContentSet, role: str = DEFAULT_ROLE) -> list[ContentTest]:
    """Every unit question with facts, by file, as a labelled question of its unit (a restricted unit's asked
    holding ``role``, the knowledge base's restricted role)."""
    access = unit_access(content)
    tests = []
    for lu in sorted(content.units, key=lambda u: (u.path, u.id)):
        restricted = access.get(lu.id, ("", "public"))[1] != "public"
        for i, asked in enumerate(lu.unit.questions):
            if not asked.facts and asked.guard is None:
                continue
            labels: dict[str, Any] = ({"guard": asked.guard} if asked.guard is not None
                                      else {"expected_units": [lu.id], "answer_facts": asked.facts})
            question = LabelledQuestion(
                id=f"{lu.id}-q{i + 1}", question=asked.q, lang=detect_lang(asked.q), **labels,
                user=QuestionUser(roles=[role]) if restricted else None)
            tests.append(ContentTest(lu.path, lu.line_of("questions", i), lu.id, question))
    return tests


def run_content_tests(kb: Any, tests: Sequence[ContentTest], progress: EvalProgress | None = None) -> ContentTestReport:
    """Ask every content test of ``kb``: is its unit among the first ``TOP`` sources, does each mode state its facts."""
    llm_configured = kb._get_llm() is not None
    built = unit_languages(kb.store)
    report = ContentTestReport({"embedder": kb.store.manifest["embedder"]["id"], "reranker": kb.config.reranker,
                                "sparse": kb.config.sparse, "llm": kb.config.llm if llm_configured else None})
    for n, test in enumerate(tests, start=1):
        q, user = test.question, user_context(test.question)
        answer = kb.ask(q.question, user=user)
        top = first_units(answer.sources, TOP)
        stopped = answer.guard.type if answer.guard is not None else None
        # a question the guard should stop passes when it is stopped so ("found": what it tests was found)
        found = stopped == q.guard if q.guard is not None else test.unit_id in top
        report.rows.append({
            "id": q.id, "unit": test.unit_id, "path": test.path, "line": test.line, "question": q.question,
            "roles": list(user.roles), "built": test.unit_id in built, "found": found, "top": top,
            "expected_guard": q.guard, "guard_type": stopped,
            "guard": answer.guard.rule if answer.guard is not None else None, "not_found": answer.not_found,
            "answer_facts": fact_row(q, answer_texts(answer, llm_configured, _focus(kb, q.question, llm_configured))),
        })
        if progress is not None:
            progress("unit questions", n, len(tests))
    return report


def _focus(kb: Any, question: str, llm_configured: bool) -> Any:
    """How the extractive answer reads the question, as ``eval.questions`` passes it: needed only to rebuild
    the extractive answer beside an LLM's (without an LLM, ``ask``'s answer is the extractive one)."""
    return kb.retriever.focus(question) if llm_configured else None


def first_units(sources: Sequence[Source], top: int) -> list[str]:
    """The first ``top`` distinct units of the sources, a scene standing for its story too (as in ranking)."""
    units: dict[str, None] = {}
    for source in sources:
        for unit_id in (source.unit_id, source.story_id):
            if unit_id and len(units) < top:
                units.setdefault(unit_id, None)
    return list(units)


def _reasons(row: dict[str, Any], answers: bool = True) -> list[str]:
    """Why a content test fails, in an author's words; empty when it passes in every mode. With ``answers``, a mode's
    missing facts come with its answer, on one line (not after the guard or "not found": that answer is known)."""
    reasons = []
    if not row["built"]:
        reasons.append(f"unit {row['unit']} is not in the knowledge base (run `unitrag build`)")
    if row.get("expected_guard") is not None:
        if not row["found"]:
            got = f"stopped as {row['guard_type']} (rule {row['guard']})" if row["guard"] else "answered"
            reasons.append(f"the guard should stop it as {row['expected_guard']}; it was {got}: give the rule an example "
                           "in these words, or a pattern")
        return reasons
    if row["guard"] is not None:
        reasons.append(f"stopped by the guard (rule {row['guard']})")
    elif row["not_found"]:
        reasons.append('answered "not found"')
    if row["built"] and not row["found"]:
        reasons.append(f"unit {row['unit']} is not among the first {TOP} sources ({', '.join(row['top']) or 'none'})")
    modes = row["answer_facts"]
    for mode, got in modes.items():
        if got["missing"]:
            missing = "; ".join(" / ".join(f'"{s}"' for s in spellings) for spellings in got["missing"])
            said = f" (the answer: \"{answer_excerpt(got.get('answer', ''))}\")" \
                if answers and row["guard"] is None and not row["not_found"] else ""
            reasons.append(f"missing facts{f' ({mode})' if len(modes) > 1 else ''}: {missing}{said}")
    return reasons


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
