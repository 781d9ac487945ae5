"""The languages a knowledge base declares (unitrag.toml ``languages``) are the ones its guard rules and topics are
written in: a zh-only knowledge base writes no English, an en-only one no Chinese; both, or none declared, needs both."""

from __future__ import annotations

import pytest
import yaml

from unitrag.content.validate import validate_content

ZH_EXAMPLES = [f"我爸突然胸口剧痛，出冷汗，第{i}次" for i in range(6)]
EN_EXAMPLES = [f"my dad suddenly has crushing chest pain and sweats, case {i}" for i in range(6)]
NAMES = {"zh": {"b12": "维生素B12", "folate": "叶酸", "group": "维生素B族"},
         "en": {"b12": "Vitamin B12", "folate": "Folate", "group": "B vitamins"}}
RESPONSES = {"zh": ("请立即拨打120。", "如果胸痛已经过去，也请尽快就医检查。", "我只能回答营养方面的问题。"),
             "en": ("Call your local emergency number now.", "If the pain has passed, still see a doctor soon.",
                    "I can only answer nutrition questions.")}


def guard_yaml(lang: str) -> str:
    response, caution, refusal = RESPONSES[lang]
    examples = ZH_EXAMPLES if lang == "zh" else EN_EXAMPLES
    return yaml.safe_dump([
        {"id": "red-flag-chest-pain", "type": "red_flag", "patterns": {lang: ["胸痛" if lang == "zh" else "chest pain"]},
         "response": {lang: response}, "caution": {lang: caution}, "examples": {lang: examples}},
        {"id": "out-of-scope-stocks", "type": "out_of_scope", "patterns": {lang: ["股票" if lang == "zh" else "stocks"]},
         "response": {lang: refusal}},
    ], allow_unicode=True, sort_keys=False)


def topics_yaml(lang: str) -> str:
    names = NAMES[lang]
    return yaml.safe_dump({
        "topics": [{"id": "vitamin-b12", "names": {lang: names["b12"]}}, {"id": "folate", "names": {lang: names["folate"]}}],
        "groups": [{"id": "b-vitamins", "names": {lang: names["group"]}, "members": ["vitamin-b12", "folate"]}],
    }, allow_unicode=True, sort_keys=False)


def one_language_tree(tree, lang: str):
    tree.write("guard.yaml", guard_yaml(lang))
    tree.write("topics.yaml", topics_yaml(lang))
    return tree


def registry_problems(tree, languages) -> list:
    """The problems of guard.yaml and topics.yaml (the units of the tree are in both languages)."""
    shown = {tree.shown("guard.yaml"), tree.shown("topics.yaml")}
    return [p for p in validate_content(tree.root, languages=languages).problems if p.path in shown]


def fields(problems: list) -> list[tuple[str, str]]:
    return sorted((p.path.rpartition("/")[2], p.field) for p in problems)


def on_their_lines(tree, problems: list) -> bool:
    """Each problem is on the line of the key it names (``rule.response.en`` on the rule's ``response:``)."""
    def written(p) -> str:
        return (tree.root / p.path.removeprefix("content/")).read_text(encoding="utf-8").splitlines()[p.line - 1]
    return all(written(p).strip().removeprefix("- ").startswith(p.field.split(".")[-2] + ":") for p in problems)


MISSING = {  # (file, field) of every text a one-language tree leaves out, by the language it lacks
    lang: sorted([("guard.yaml", f"red-flag-chest-pain.response.{lang}"), ("guard.yaml", f"red-flag-chest-pain.caution.{lang}"),
                  ("guard.yaml", f"red-flag-chest-pain.examples.{lang}"), ("guard.yaml", f"out-of-scope-stocks.response.{lang}"),
                  ("topics.yaml", f"vitamin-b12.names.{lang}"), ("topics.yaml", f"folate.names.{lang}"),
                  ("topics.yaml", f"b-vitamins.names.{lang}")])
    for lang in ("en", "zh")
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_one_language_tree_validates_without_the_other_languages_responses_examples_and_names(tree, lang):
    one_language_tree(tree, lang)
    assert registry_problems(tree, (lang,)) == []


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_same_tree_without_declared_languages_still_needs_both(tree, lang):
    other = "en" if lang == "zh" else "zh"
    one_language_tree(tree, lang)
    undeclared = registry_problems(tree, None)
    assert fields(undeclared) == MISSING[other] and on_their_lines(tree, undeclared)
    assert {p.message for p in undeclared if ".examples." not in p.field} == {"required field is missing"}
    both = registry_problems(tree, ("en", "zh"))  # what unitrag.toml gives when it names no languages
    assert fields(both) == MISSING[other] and on_their_lines(tree, both)
    assert all("this knowledge base's languages are en, zh (unitrag.toml)" in p.message
               for p in both if ".examples." not in p.field)
    [examples] = [p for p in both if ".examples." in p.field]
    assert examples.message.startswith("0 example(s): a red-flag rule needs at least 6 per language")


def test_a_zh_only_knowledge_base_is_told_the_chinese_its_english_rules_and_topics_lack(tree):
    one_language_tree(tree, "en")
    problems = registry_problems(tree, ("zh",))
    assert fields(problems) == MISSING["zh"] and on_their_lines(tree, problems)
    response = next(p for p in problems if p.field == "red-flag-chest-pain.response.zh")
    assert response.message == "required: this knowledge base's languages are zh (unitrag.toml)"


def test_too_few_examples_count_only_in_the_declared_languages(tree):
    rules = yaml.safe_load(guard_yaml("zh"))
    rules[0]["examples"] = {"zh": ZH_EXAMPLES[:3], "en": EN_EXAMPLES[:2]}  # English extras, unrequired: not counted
    tree.write("guard.yaml", yaml.safe_dump(rules, allow_unicode=True, sort_keys=False))
    tree.write("topics.yaml", topics_yaml("zh"))
    [problem] = registry_problems(tree, ("zh",))
    assert problem.field == "red-flag-chest-pain.examples.zh"
    assert problem.message == ("3 example(s): a red-flag rule needs at least 6 per language (this knowledge base's "
                               "languages are zh: unitrag.toml)")


def test_a_text_in_no_language_is_one_problem_whatever_the_languages(tree):
    one_language_tree(tree, "zh")
    tree.write("topics.yaml", "topics:\n  - id: vitamin-b12\n    names: {}\n  - id: folate\n    names: {zh: 叶酸}\n")
    for languages in (None, ("zh",), ("en", "zh")):
        problems = [p for p in registry_problems(tree, languages) if p.path.endswith("topics.yaml")]
        assert [(p.line, p.field) for p in problems if p.field.startswith("vitamin-b12")] == [(3, "vitamin-b12.names")]
        assert "at least one language" in problems[0].message


def test_an_entry_invalid_for_another_reason_is_still_told_the_languages_it_lacks(tree):
    rules = yaml.safe_load(guard_yaml("zh"))
    rules[1]["type"] = "warning"
    tree.write("guard.yaml", yaml.safe_dump(rules, allow_unicode=True, sort_keys=False))
    tree.write("topics.yaml", topics_yaml("zh"))
    problems = registry_problems(tree, ("en",))
    assert {("guard.yaml", "out-of-scope-stocks.type"), ("guard.yaml", "out-of-scope-stocks.response.en")} <= set(fields(problems))
