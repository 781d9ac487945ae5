"""A value typed in full-width characters (a Chinese input method's ``７０``, ``［a］``, ``＞``) is told its ASCII form."""

from __future__ import annotations

import pytest

from unitrag.content.full_width import full_width_fix, to_ascii
from unitrag.content.validate import validate_content


def test_full_width_forms_read_as_the_ascii_they_stand_for():
    assert to_ascii("［ｓｔａｆｆ］＞＝７０\u3000【a、b】") == "[staff]>=70 [a,b]"
    assert to_ascii("维生素B12：叶酸") == "维生素B12:叶酸"  # Han characters are left as they are


@pytest.mark.parametrize(("rule_line", "written", "field", "says"), [
    ("threshold: 200", "threshold: ７０", "trigger.threshold", "'７０' is written in full-width digits"),
    ('comparison: "<"', 'comparison: "＜"', "trigger.comparison", "the full-width '＜'"),
    ("lang: en", "lang: ｅｎ", "lang", "full-width letters"),
    ("topics: [vitamin-b12]", "topics: ［vitamin-b12］", "topics", "the full-width '［' and '］'"),
])
def test_a_full_width_value_is_one_problem_naming_the_characters_and_what_to_write(
        tree, samples, rule_line, written, field, says):
    """A new team's audit: `threshold: ７０` was "valid number" and "valid tuple", `topics: ［a］` "valid list", and
    `comparison: "＞"` named no character: none said the characters were full-width."""
    tree.write("rules/rule-one.md", samples.RULE.replace(rule_line, written, 1))
    problems = validate_content(tree.root).problems
    assert [(p.path, p.field) for p in problems] == [("content/rules/rule-one.md", field)], problems
    assert says in problems[0].message
    ascii_value = to_ascii(written.partition(": ")[2].strip('"'))
    assert f"write {ascii_value}" in problems[0].message  # "<" bare: YAML reads it as text (">" is quoted, below)


def test_what_to_write_is_quoted_where_yaml_would_read_it_otherwise(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace('comparison: "<"', 'comparison: "＞＝"', 1))
    (problem,) = validate_content(tree.root).problems
    assert problem.message == "'＞＝' is written with the full-width '＞' and '＝': write \">=\" (ASCII '>' and '=')"


def test_a_list_value_and_a_bool_say_what_yaml_read_them_as(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("threshold: 200", "threshold: [７０, 80]", 1)
               .replace("lang: en", "lang: en\nstarter: ｔｒｕｅ", 1))
    problems = {p.field: p.message for p in validate_content(tree.root).problems}
    assert problems == {  # the item, not the union's "valid number" for the list as well
        "trigger.threshold.0": "'７０' is written in full-width digits (YAML reads it as text, not a number): write 70",
        "starter": "'ｔｒｕｅ' is written in full-width letters (YAML reads it as text, not true or false): write true",
    }


def test_a_full_width_field_name_is_told_the_field(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("severity:", "ｓｅｖｅｒｉｔｙ:", 1))
    problems = {p.field: p.message for p in validate_content(tree.root).problems}
    assert problems["ｓｅｖｅｒｉｔｙ"].startswith("unknown field: did you mean 'severity'? (it is written in full-width letters")


def test_a_value_that_fails_for_another_reason_is_not_blamed_on_its_characters(tree, samples):
    tree.write("rules/rule-one.md", samples.RULE.replace("lang: en", "lang: en\nquestions: [\"" + "？" * 301 + "\"]", 1))
    (problem,) = validate_content(tree.root).problems
    assert "at most 300 characters" in problem.message and "full-width" not in problem.message


def test_a_long_value_names_the_characters_without_spelling_it_out():
    fix = full_width_fix("［" + "ａ" * 200 + "］")
    assert fix is not None and "ａ" * 80 not in fix and "a" * 80 not in fix and "write it in ASCII" in fix
    assert full_width_fix("plain") is None and full_width_fix(70) is None
