"""Where a knowledge base's answerability gate comes from: its calibration.json, or the bundled default.

``unitrag calibrate`` writes one gate per query pipeline to calibration.json; ``unitrag build``
copies them into the artifact; a knowledge base without a gate for its pipeline uses the one
fitted on the bundled sample's dev questions (``default_calibration.json`` beside this module),
and every place that opens it says so, once.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import UserError
from .gate import AnswerabilityGate

log = logging.getLogger(__name__)
#: Gates fitted on the bundled sample's dev questions, for knowledge bases not calibrated on their own.
DEFAULT_CALIBRATION = Path(__file__).with_name("default_calibration.json")
_warned: set[str] = set()
_hush = 0  # > 0 inside ``hushed()``


def gate_for(rows: Sequence[Mapping[str, Any]], pipeline: str) -> AnswerabilityGate | None:
    """The gate fitted for this pipeline, or None (no calibration for it)."""
    for row in rows:
        if row["pipeline_id"] == pipeline:
            return AnswerabilityGate.from_dict(row)
    return None


def default_gates() -> list[dict[str, Any]]:
    """The gates fitted on the bundled sample's dev questions (empty if the file is missing)."""
    try:
        return list(json.loads(DEFAULT_CALIBRATION.read_text(encoding="utf-8"))["gates"])
    except (OSError, ValueError, KeyError, TypeError):
        return []


def gate_in_use(rows: Sequence[Mapping[str, Any]], pipeline: str) -> tuple[AnswerabilityGate | None, bool]:
    """The knowledge base's own gate for ``pipeline``, else the default one; and whether it is the default."""
    own = gate_for(rows, pipeline)
    if own is not None:
        return own, False
    return gate_for(default_gates(), pipeline), True


def uncalibrated_message(pipeline: str, default: AnswerabilityGate | None, calibration_file: str = "calibration.json",
                         brief: bool = False, questions: int = 0) -> str:
    """What to tell an author whose knowledge base has no gate fitted on its own questions (``brief``: one line,
    for every ``ask`` and server start; the build gives the whole of it). ``questions``: how many labelled dev
    questions it has (a new team with 32 was told to write them)."""
    using = ("the default answerability gate, fitted on the bundled sample's questions" if default is not None
             else "no answerability gate at all (every question is answered, none is \"not found\")")
    if brief:
        return (f"no answerability gate fitted on this knowledge base's questions: using {using.split(',')[0]} "
                f"(`unitrag calibrate --write {calibration_file}`, then `unitrag build`)")
    write = ("" if questions else "Write labelled questions in content/eval/questions.yaml (every eval/*.yaml but the "
                                    "*_test.yaml ones is a dev set), then run ")
    calibrate = f"`unitrag calibrate --write {calibration_file}` and rebuild."
    told = (f"To fit one on its {questions} labelled dev questions, run {calibrate}" if questions
            else write + calibrate)
    return f"this knowledge base has no answerability gate fitted on its own questions for {pipeline}: it uses {using}. {told}"


def build_warning(rows: Sequence[Mapping[str, Any]], pipeline: str, questions: Sequence[Any]) -> str | None:
    """What ``unitrag build`` says when the gate it copies was not fitted on this content's questions; None if it was.

    No gate for the pipeline: the default one will be used. A gate fitted on other questions
    (another knowledge base's calibration.json, or questions edited since): refit it.
    """
    own = gate_for(rows, pipeline)
    if own is None:
        return uncalibrated_message(pipeline, gate_for(default_gates(), pipeline), questions=len(questions))
    if questions and own.questions_digest != questions_digest(questions):
        return (f"the answerability gate for {pipeline} in calibration.json was not fitted on this knowledge base's "
                "labelled questions (the dev questions in content/eval/ differ from the set it was fitted on): run "
                "`unitrag calibrate --write calibration.json` and rebuild.")
    if own.metrics.get("kept") == "default":  # written by calibrate, but no gate of its own: said, not hidden
        asked = own.metrics.get("questions")
        on = f"on its {asked} dev questions " if isinstance(asked, int) else ""
        # a note, not a fault: a vet clinic's team read "add labelled questions" after each build as work left undone
        return (f"calibration.json keeps the default answerability gate for {pipeline}, as `unitrag calibrate` chose: "
                f"{on}a gate fitted on this knowledge base was no better out of sample. Nothing to fix; more labelled "
                "questions (answerable and not, in two or more files of content/eval/) give a fit its chance later.")
    return None


@contextlib.contextmanager
def hushed() -> Iterator[None]:
    """Nothing ``say_once`` would say is said inside: ``unitrag calibrate`` fits the gate the message asks for, and
    telling its author to run it, as it runs, contradicts the verdict it prints next."""
    global _hush
    _hush += 1
    try:
        yield
    finally:
        _hush -= 1


def say_once(message: str) -> None:
    """Log ``message`` as a warning the first time only (a server opening many knowledge bases says it once)."""
    if message not in _warned and not _hush:
        _warned.add(message)
        log.warning(message)


def questions_digest(questions: Sequence[Any]) -> str:
    """A short digest of labelled questions (id, text, labels): which set a gate was fitted on. A question with a
    guard label never reaches the gate, so it is not part of the set (adding guard questions refits nothing)."""
    items = sorted(json.dumps([q.id, q.question, sorted(q.expected_units), q.unanswerable], ensure_ascii=False)
                   for q in questions if getattr(q, "guard", None) is None)
    return hashlib.sha256("\n".join(items).encode("utf-8")).hexdigest()[:16]


def write_calibration(path: Path, gate: AnswerabilityGate) -> None:
    """Add ``gate`` to calibration.json, replacing the gate of the same pipeline and keeping the others."""
    gates: list[dict[str, Any]] = []
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            gates = list(data["gates"] if isinstance(data, dict) else data)
            if not all(isinstance(g, dict) for g in gates):
                raise TypeError("a gate that is not an object")
        except RecursionError:  # JSON nested deeper than the parser goes
            raise UserError(f"{path}: not a calibration file (nested too deeply); move it away to start a new one"
                            ) from None
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise UserError(f"{path}: not a calibration file ({exc}); move it away to start a new one") from None
    gates = [g for g in gates if g.get("pipeline_id") != gate.pipeline_id] + [gate.to_dict()]
    document = {
        "about": "Answerability gates fitted by `unitrag calibrate` on the dev questions in content/eval/, one per query "
                 "pipeline (embedder|reranker|sparse). `unitrag build` copies them into the artifact.",
        "gates": sorted(gates, key=lambda g: g["pipeline_id"]),
    }
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise UserError(f"{path}: cannot write the calibration ({exc.strerror or exc})") from None
