"""Where a gate comes from (``rag.calibration_file``): the set it was fitted on, and what an author is told without one."""

from __future__ import annotations

from unitrag.content.labelled_question import LabelledQuestion
from unitrag.rag.calibration_file import default_gates, gate_for
from unitrag.rag.gate import AnswerabilityGate

from tests.rag.test_gate import labelled


def test_guard_questions_are_not_part_of_the_set_a_gate_was_fitted_on():
    from unitrag.rag.calibration_file import questions_digest

    plain = labelled(3, "en", True) + labelled(3, "en", False)
    guarded = LabelledQuestion(id="g", question="chest pain now", lang="en", guard="red_flag", guard_rule="red-flag-x")
    assert questions_digest([*plain, guarded]) == questions_digest(plain)  # never reaches the gate
    assert questions_digest(plain[1:]) != questions_digest(plain)


def test_the_runtime_says_in_one_line_what_the_build_says_in_full() -> None:
    from unitrag.rag.calibration_file import uncalibrated_message

    pipeline = "e5-openvino:multilingual-e5-small|reranker=fusion|sparse=on"
    default = gate_for(default_gates(), pipeline)
    brief, full = uncalibrated_message(pipeline, default, brief=True), uncalibrated_message(pipeline, default)
    assert "\n" not in brief and len(brief) < len(full) / 2
    for message in (brief, full):
        assert "default answerability gate" in message and "unitrag calibrate --write calibration.json" in message


def test_calibrate_is_not_told_to_run_calibrate(caplog):
    """A new team's audit: `unitrag calibrate --write` printed "no gate fitted … run `unitrag calibrate --write`" as it
    ran; ``hushed`` keeps that out of the command that answers it, and says it again outside."""
    from unitrag.rag.calibration_file import hushed, say_once

    with caplog.at_level("WARNING", logger="unitrag"), hushed():
        say_once("a message unique to this test: run calibrate")
    assert "a message unique to this test" not in caplog.text
    with caplog.at_level("WARNING"):
        say_once("a message unique to this test: run calibrate")
    assert "a message unique to this test" in caplog.text


def test_the_build_says_when_calibration_json_keeps_the_default_gate():
    """A new team's calibrate kept the default gate and wrote it: the build's warning went away, and the knowledge
    base looked calibrated when it was not."""
    from unitrag.rag.calibration_file import build_warning, questions_digest

    plain = labelled(3, "en", True) + labelled(3, "en", False)
    fitted = AnswerabilityGate("p", a=50.0, b=-43.0, feature="max_dense", questions_digest=questions_digest(plain))
    assert build_warning([fitted.to_dict()], "p", plain) is None  # its own gate: nothing to say
    kept = AnswerabilityGate("p", a=50.0, b=-43.0, feature="max_dense", questions_digest=questions_digest(plain),
                             metrics={"kept": "default", "questions": 6})
    said = build_warning([kept.to_dict()], "p", plain)
    assert said is not None and "keeps the default answerability gate" in said and "on its 6 dev questions" in said


def test_a_knowledge_base_with_labelled_questions_is_told_to_calibrate_on_them_not_to_write_them():
    """A new team with 32 dev questions was told to "write labelled questions in content/eval/questions.yaml"."""
    from unitrag.rag.calibration_file import build_warning

    pipeline = "e5-openvino:multilingual-e5-small|reranker=fusion|sparse=on"
    asked = build_warning([], pipeline, labelled(3, "en", True) + labelled(2, "en", False))
    assert asked is not None and "on its 5 labelled dev questions" in asked and "Write labelled questions" not in asked
    assert "unitrag calibrate --write calibration.json" in asked
    none = build_warning([], pipeline, [])
    assert none is not None and "Write labelled questions in content/eval/questions.yaml" in none
