"""Guard figures per type and per rule from question rows: what counts as a hit, a miss and a false alarm."""

from __future__ import annotations

from unitrag.eval.guard_report import guard_failures, guard_figures, guard_table
from unitrag.eval.report import EvalReport


def row(expected: str | None, rule: str | None, got: str | None, got_rule: str | None, like: str | None = None,
        reason: str | None = None, ms: float = 0.3) -> dict:
    return {"guard": {"expected": expected, "rule": rule, "like": like, "got": got, "got_rule": got_rule,
                      "reason": reason or ("similarity" if got else None), "score": None, "ms": ms}}


ROWS = [
    row("red_flag", "rf-a", "red_flag", "rf-a", reason="pattern"),
    row("red_flag", "rf-a", "red_flag", "rf-b"),  # stopped, but by another red flag: a type hit, a rule miss
    row("red_flag", "rf-b", None, None),  # missed
    row("pass", None, "red_flag", "rf-b", like="rf-b", reason="sign"),  # a look-alike stopped: false alarm
    row("pass", None, None, None, like="rf-a"),
    row(None, None, None, None),  # an ordinary question that passed
    row("out_of_scope", "oos-c", "out_of_scope", "oos-c"),
]


def test_type_and_rule_figures() -> None:
    figures = guard_figures(ROWS)
    red = figures["by_type"]["red_flag"]
    assert (red["tp"], red["fp"], red["fn"]) == (2, 1, 1)
    a, b = figures["by_rule"]["rf-a"], figures["by_rule"]["rf-b"]
    assert (a["tp"], a["fp"], a["fn"], a["expected"]) == (1, 0, 1, 2)
    assert (b["tp"], b["fp"], b["fn"]) == (0, 2, 1)  # named for an rf-a emergency, and for a look-alike
    assert figures["near_misses"] == {"questions": 2, "passed": 1, "pass_rate": 0.5}
    assert b["near_misses"] == {"questions": 1, "passed": 0} and a["near_misses"] == {"questions": 1, "passed": 1}
    assert figures["reasons"] == {"pattern": 1, "similarity": 2, "sign": 1, "sentence": 0, "llm": 0}


def test_gate_and_table() -> None:
    report = EvalReport("questions", "content/eval/guard_test.yaml", {}, {}, ROWS, {"guard_rules": guard_figures(ROWS)})
    failures = guard_failures(report, 0.9, 0.9, 0.9)
    assert len(failures) == 3 and "red-flag recall is 0.6667" in failures[0]
    assert guard_failures(report, 0.5, None, 0.5) == []
    header, rows = guard_table([report], ["test"])
    assert header == ["guard", "test"] and rows[0] == ["red_flag P / R", "0.667 / 0.667 (2/3)"]
    # a new team's audit: rows reading n/a for a rule that fired did not say they count questions naming it
    assert any(r[0] == "  rf-a P / R; look-alikes passed (questions naming it in guard_rule:)" for r in rows)


def test_a_set_labels_guard_outcomes_when_it_expects_a_stop_or_a_pass() -> None:
    from unitrag.eval.guard_report import has_guard_labels

    def report(rows: list[dict]) -> EvalReport:
        return EvalReport("questions", "q.yaml", {}, {}, rows, {"guard_rules": guard_figures(rows)})

    assert has_guard_labels(report(ROWS))
    assert has_guard_labels(report([row("pass", None, None, None, like="rf-a")]))  # near-misses only
    assert not has_guard_labels(report([row(None, None, "red_flag", "rf-a"), row(None, None, None, None)]))
    assert not has_guard_labels(EvalReport("questions", "q.yaml", {}, {}, [], {}))


def test_three_outcomes_and_a_caution_label_answered_counts_as_right() -> None:
    rows = [
        row("caution", None, "caution", "rf-a", like="rf-a", reason="pattern"),  # answered with the note
        row("caution", None, None, None, like="rf-a"),  # answered without one: still right
        row("pass", None, "caution", "rf-b", like="rf-b", reason="similarity"),  # a look-alike with a note: right
        row("caution", None, "red_flag", "rf-a", like="rf-a"),  # stopped: a false alarm
        row("red_flag", "rf-a", "caution", "rf-a", reason="pattern"),  # an emergency answered with a note: a miss
        row(None, None, "caution", "rf-b", reason="similarity"),  # an ordinary question with a note: not stopped
        row(None, None, "red_flag", "rf-b"),  # an ordinary question stopped
    ]
    figures = guard_figures(rows)
    assert figures["outcomes"] == {"caution": {"stopped": 1, "noted": 1, "answered": 1},
                                   "pass": {"stopped": 0, "noted": 1, "answered": 0},
                                   "red_flag": {"stopped": 0, "noted": 1, "answered": 0},
                                   "none": {"stopped": 1, "noted": 1, "answered": 0}}
    assert figures["near_misses"] == {"questions": 4, "passed": 3, "pass_rate": 0.75}
    assert figures["ordinary_stopped"] == {"questions": 2, "stopped": 1, "rate": 0.5}
    red = figures["by_type"]["red_flag"]
    assert (red["tp"], red["fp"], red["fn"]) == (0, 2, 1)  # a caution is never a stop
    a, b = figures["by_rule"]["rf-a"], figures["by_rule"]["rf-b"]
    assert (a["tp"], a["fp"], a["fn"]) == (0, 1, 1) and (b["tp"], b["fp"]) == (0, 1)
    assert figures["reasons"] == {"pattern": 0, "similarity": 2, "sign": 0, "sentence": 0, "llm": 0}  # stops only
    report = EvalReport("questions", "g.yaml", {}, {}, rows, {"guard_rules": figures})
    _, table = guard_table([report], ["dev"])
    assert ["labelled caution: stopped / noted / answered", "1 / 1 / 1"] in table
    assert ["near-misses answered (pass or caution)", "0.750 (3/4)"] in table
