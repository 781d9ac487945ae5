"""KnowledgeBase at its edge: bad arguments are clear ValueErrors, long questions are refused fast, ids are checked.

A small store assembled in memory, embedded with the real default embedder (six short texts).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from unitrag.config import DEFAULT_EMBEDDER, Config
from unitrag.errors import UserError
from unitrag.providers.embedders import load_embedder
from unitrag.rag.knowledge_base import KnowledgeBase
from unitrag.rag.search.query_embedding import QueryEncoder
from unitrag.rag.types import UserContext

CONFTEST = Path(__file__).with_name("conftest.py")


@pytest.fixture(scope="module")
def encoder() -> QueryEncoder:
    return QueryEncoder(load_embedder(DEFAULT_EMBEDDER))


def small_store(encoder: QueryEncoder):
    import importlib.util

    spec = importlib.util.spec_from_file_location("rag_conftest", CONFTEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    texts = [f"{r[6]}\n{r[7]}" for r in module.ROWS]
    return module.make_store(encoder.embedder.embed_passages(texts))


@pytest.fixture(scope="module")
def kb(encoder) -> KnowledgeBase:
    kb = KnowledgeBase(small_store(encoder), encoder, Config(llm="none", max_question_chars=300))
    kb.retriever.gate = None  # six short texts: the default gate (fitted on the sample) is not what is tested here
    return kb


def test_a_plain_question_still_works(kb):
    result = kb.search("How much salt a day?", k=3)
    assert 0 < len(result.sources) <= 3 and all(s.access == "public" for s in result.sources)
    assert kb.ask("How much salt a day?").sources


@pytest.mark.parametrize("question", ["x", "qq", "zz?", "a1"])
def test_a_short_question_of_no_word_the_knowledge_base_knows_is_not_found_whatever_the_gate(kb, question):
    """A team's calibrated gate (a cosine threshold) answered "x" from its repair units: a short text's cosine to
    every chunk is high with e5. This knowledge base has no gate at all, and still says "not found"."""
    assert kb.ask(question).not_found
    assert not kb.ask("salt").not_found  # a word it knows: answered, however short


# -- question length (item 6) ----------------------------------------------------------------


@pytest.mark.parametrize("call", ["search", "ask", "corrected"])
def test_a_200k_question_is_refused_fast_with_the_limit_named(kb, call):
    started = time.perf_counter()
    with pytest.raises(ValueError, match="max_question_chars") as raised:
        getattr(kb, call)("how much salt " * 15_000)
    assert time.perf_counter() - started < 0.5
    assert isinstance(raised.value, UserError) and len(str(raised.value)) < 200


def test_the_limit_comes_from_the_config(kb):
    kb.search("salt " * 60)  # exactly the configured limit: accepted
    with pytest.raises(ValueError, match="301 characters, over the limit of 300"):
        kb.search("x" * 301)


@pytest.mark.parametrize("llm", ["garbage", "foo:bar"])
def test_an_llm_no_provider_answers_to_is_refused_when_the_knowledge_base_opens(encoder, llm):
    """An attacker's audit: `ask --llm garbage` said "not found" (exit 0) to a question the gate refused, and named
    the unknown provider only for an answerable one, when the LLM was first called."""
    with pytest.raises(UserError, match=f"unknown llm '{llm}'"):
        KnowledgeBase(small_store(encoder), encoder, Config(llm=llm))


def test_the_first_stage_refuses_long_queries_too(kb):
    """Evaluation ranks through the retriever directly; it must not embed an unbounded query either."""
    from unitrag.rag.types import SearchFilter

    with pytest.raises(ValueError, match="max_question_chars"):
        kb.retriever.candidates(["salt " * 100_000], SearchFilter(), {}, sparse=True)


def test_a_question_at_the_limit_is_answered_when_its_reading_is_longer(kb):
    """The caller sent 300 characters; the runtime may read them as a few more (a misspelled word corrected,
    an app developer's audit: 2,000 characters refused as '2,002 characters'): the limit is the caller's."""
    from unitrag.rag.types import SearchFilter

    kb.retriever.candidates(["salt " * 60 + "x" * 20], SearchFilter(), {}, sparse=True)  # 320 characters, read from 300


def test_evaluating_labelled_questions_refuses_a_long_one_fast(kb):
    from unitrag.content.labelled_question import LabelledQuestion
    from unitrag.eval.questions import evaluate_questions
    from unitrag.eval.variants import VARIANTS

    questions = [LabelledQuestion(id="short", question="How much salt a day?", lang="en", expected_units=["en-salt"]),
                 LabelledQuestion(id="long", question="salt " * 40_000, lang="en", unanswerable=True)]
    started = time.perf_counter()
    with pytest.raises(ValueError, match="max_question_chars"):
        evaluate_questions(kb, questions, [VARIANTS["dense"], VARIANTS["full"]])
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize("question", ["", "   ", None, 5, ["salt"], '<Cite id="en-salt"/>', "\ud800"])
def test_an_empty_or_non_string_question_is_refused(kb, question):
    with pytest.raises(ValueError, match="question"):
        kb.search(question)
    with pytest.raises(ValueError, match="question"):
        kb.ask(question)
    with pytest.raises(ValueError, match="question"):
        kb.corrected(question)


def test_a_citation_tag_is_read_out_of_a_question():
    from unitrag.rag.arguments import question_text

    assert question_text('你好 <Cite id="evil"/>', 300) == "你好"
    assert question_text('How much salt? <cite id=x>', 300) == "How much salt?"
    assert question_text("is a < b > c?", 300) == "is a < b > c?"  # not a tag: kept


def test_a_knowledge_base_that_declares_one_language_answers_in_it_by_default(encoder, kb):
    one = KnowledgeBase(kb.store, encoder, Config(llm="none", languages=("zh",)))
    assert one.ask("hi there, how much salt a day?").lang == "zh"
    assert one.ask("how much salt a day?", lang="en").lang == "en"  # asked for: as asked
    assert kb.ask("how much salt a day?").lang == "en"  # both declared: the question's


def test_not_found_in_a_one_language_knowledge_base_is_said_whole_in_the_askers_language(encoder, kb):
    """A Chinese-only tea shop answered "is matcha good for you" with 抱歉…没有找到 and an English line beside it."""
    one = KnowledgeBase(kb.store, encoder, Config(llm="none", languages=("zh",)))
    english = one.ask("which programming language should I learn for data science?")
    assert english.not_found and english.lang == "en", english.answer
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in english.answer.replace(one.identity.name, "")), english.answer
    assert "Chinese only" in english.answer
    assert one.ask("which programming language should I learn for data science?", lang="zh").lang == "zh"  # asked for
    hello = one.ask("hello there!")  # small talk too: an English-only help desk greeted "你好" in English
    assert hello.lang == "en" and hello.answer.startswith("Hello!"), hello.answer


def test_a_closed_knowledge_base_refuses_every_question(encoder):
    from unitrag.rag.store.prompt_texts import KnowledgeBaseClosed

    with KnowledgeBase(small_store(encoder), encoder, Config(llm="none")) as other:
        assert other.search("How much salt a day?").sources
    for call in (other.search, other.ask, other.ask_stream, other.corrected):
        with pytest.raises(KnowledgeBaseClosed):
            call("How much salt a day?")
    other.close()  # twice: fine


# -- k and lang (item 15) -----------------------------------------------------------------------


@pytest.mark.parametrize("k", ["5", -5, 0, 10**9, 2.0, True, None.__class__])
def test_bad_k_is_a_value_error_naming_k(kb, k):
    with pytest.raises(ValueError, match=r"^k: "):
        kb.search("How much salt a day?", k=k)


@pytest.mark.parametrize("lang", ["fr", 5, "", "EN", ["en"]])
def test_bad_lang_is_a_value_error_naming_lang(kb, lang):
    with pytest.raises(ValueError, match=r"^lang: "):
        kb.search("How much salt a day?", lang=lang)
    with pytest.raises(ValueError, match=r"^lang: "):
        kb.ask("How much salt a day?", lang=lang)


@pytest.mark.parametrize("sparse", ["no", "false", 0, 1])
def test_sparse_must_be_a_bool_not_a_truthy_string(kb, sparse):
    with pytest.raises(ValueError, match=r"^sparse: "):
        kb.search("How much salt a day?", sparse=sparse)


def test_kinds_and_topics_filters_are_checked(kb):
    with pytest.raises(ValueError, match="kinds"):
        kb.search("salt", kinds="scene")  # type: ignore[arg-type]  # a string would filter by its letters
    with pytest.raises(ValueError, match="kinds"):
        kb.search("salt", kinds=["faq"])
    with pytest.raises(ValueError, match="topics: topic 'sodum' not in this knowledge base"):
        kb.search("salt", topics=["sodum"])
    assert {s.unit_id for s in kb.search("salt", topics=["iodine"], lang="zh").sources} <= {"zh-iodine", "zh-iodine-salt"}


# -- user-context ids (item 2) -------------------------------------------------------------------


@pytest.mark.parametrize("user, message", [
    (UserContext(current_topic="sodum"), "current_topic: topic 'sodum' not in this knowledge base"),
    (UserContext(triggered_rules=["en-salt"]), "triggered_rules: rule 'en-salt' not in this knowledge base"),
    (UserContext(recent_scenes=["en-salt-how", "nope"]), "recent_scenes: scene 'nope' not in this knowledge base"),
])
def test_a_user_context_naming_unknown_ids_is_refused(kb, user, message):
    with pytest.raises(ValueError, match=message):
        kb.search("How much salt a day?", user=user)
    with pytest.raises(ValueError, match=message):
        kb.ask("How much salt a day?", user=user)


def test_a_user_context_naming_known_ids_is_used(kb):
    user = UserContext(current_topic="iodine", triggered_rules=["en-bp-high"], recent_scenes=["en-salt-how"])
    assert kb.search("How much salt a day?", user=user).sources


# -- restricted ids (issue 22, item 4) ------------------------------------------------------------


def refusal(kb: KnowledgeBase, user: UserContext) -> str:
    with pytest.raises(ValueError) as refused:
        kb.search("How much salt a day?", user=user)
    return str(refused.value).replace(user.recent_scenes[0] if user.recent_scenes else user.triggered_rules[0], "ID")


def test_a_restricted_id_is_refused_for_a_caller_without_the_role_exactly_as_a_missing_one(kb):
    """en-b12-treat is a clinician-only scene: an anonymous caller cannot tell it from an id that does not exist."""
    hidden = refusal(kb, UserContext(recent_scenes=["en-b12-treat"]))
    missing = refusal(kb, UserContext(recent_scenes=["en-b12-trea"]))
    assert hidden == missing == "recent_scenes: scene 'ID' not in this knowledge base"
    as_rule = [refusal(kb, UserContext(triggered_rules=[i])) for i in ("en-b12-treat", "en-salt-how", "en-b12-trea")]
    assert as_rule == ["triggered_rules: rule 'ID' not in this knowledge base"] * 3  # no kind revealed
    clinician = UserContext(recent_scenes=["en-b12-treat"], roles=["clinician"])
    assert kb.search("How much salt a day?", user=clinician).sources
    assert kb.check_user(clinician) == clinician


def test_visibility_runs_the_same_lookups_for_a_restricted_and_a_missing_id(kb):
    looked_up: list[str] = []
    known = kb.known
    counting = type(known)(known.topics, lambda i: looked_up.append(f"kind {i}") or known.kind_of(i),
                           lambda i: looked_up.append(f"access {i}") or known.access_of(i))
    for unit_id in ("en-b12-treat", "nope-b12-tr"):
        assert counting.visible(unit_id, ()) is False
    assert [step.split()[0] for step in looked_up] == ["kind", "access"] * 2
    assert counting.visible("en-b12-treat", ("clinician",)) and counting.visible("en-salt-how", (), "scene")


# -- jieba at open (item 23) ----------------------------------------------------------------------


@pytest.mark.parametrize("langs, loaded", [(("en", "zh"), True), (("en",), False)])
def test_jieba_is_initialised_at_open_only_for_an_artifact_holding_chinese(langs, loaded):
    code = textwrap.dedent(f"""
        import importlib.util, json, sys
        spec = importlib.util.spec_from_file_location("rag_conftest", {str(CONFTEST)!r})
        module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
        from unitrag.config import Config
        from unitrag.providers.embedders import load_embedder
        from unitrag.rag.knowledge_base import KnowledgeBase
        from unitrag.rag.search.query_embedding import QueryEncoder
        rows = [r for r in module.ROWS if r[3] in {langs!r}]
        KnowledgeBase(module.make_store(rows=rows), QueryEncoder(load_embedder(module.EMBEDDER)), Config(llm="none"))
        from unitrag.content.text import tokenize
        jieba = sys.modules.get("jieba")
        print(json.dumps([tokenize._jieba is not None, type(getattr(tokenize._jieba, "FREQ", None)).__name__,
                          bool(jieba is not None and jieba.dt.initialized), "Stemmer" in sys.modules]))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # loaded at open, as the hashed dictionary (content.text.jieba_lean): jieba's own 62 MB dict stays unloaded
    # and the stemmer's C extension, which every question's terms need, in both cases
    expected = [True, "HashedFreq", False, True] if loaded else [False, "NoneType", False, True]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == expected


@pytest.mark.parametrize("location", ["http://example.com/kb.duckdb", "s3://bucket/kb.duckdb", "HTTPS://x/y"])
def test_a_url_that_is_not_postgresql_is_refused_by_name(location: str) -> None:
    from unitrag.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"not a location unitrag opens.*postgresql://"):
        KnowledgeBase.open(location)


@pytest.mark.parametrize("location, said", [
    (None, "got None (NoneType)"), (5, "got 5 (int)"), (b"kb.duckdb", "(bytes)"), (["kb.duckdb"], "(list)"),
    ("", "empty path"), ("   ", "empty path"), ("\ud800.duckdb", "lone surrogate"),
])
def test_what_is_no_path_is_refused_by_name_before_anything_is_read(location: object, said: str) -> None:
    from unitrag.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="knowledge base") as raised:
        KnowledgeBase.open(location)  # type: ignore[arg-type]
    assert said in str(raised.value)
    str(raised.value).encode("utf-8")  # printable: no lone surrogate in the message itself


@pytest.mark.parametrize("arguments, said", [
    ({"config": {}}, "config: expected a unitrag.config.Config"),
    ({"embedder": "e5-openvino:multilingual-e5-small"}, "embedder: expected an Embedder"),
    ({"llm": 5}, "llm: expected an LLM"), ({"llm": object()}, "llm: expected an LLM"),
])
def test_opens_arguments_of_the_wrong_type_are_refused_by_name(arguments: dict, said: str) -> None:
    """An app developer's audit: `llm="none"` opened, then every ask was an AttributeError; `config={}` was dropped."""
    from unitrag.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=said):
        KnowledgeBase.open("kb.duckdb", **arguments)


def test_a_libpq_keyword_string_is_refused_without_repeating_it() -> None:
    """An operations audit: `--kb 'host=… password=LEAKpw4 dbname=kb1'` was printed whole in "artifact … not found"."""
    from unitrag.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="libpq keyword string") as raised:
        KnowledgeBase.open("host=127.0.0.1 password=LEAKpw4 dbname=kb1")
    assert "LEAKpw4" not in str(raised.value)


def test_an_llm_spec_string_is_the_config_key() -> None:
    from unitrag.rag.kb_location import open_arguments as _open_arguments

    config, llm = _open_arguments(None, None, "none")
    assert llm is None and config.llm == "none"
    config, llm = _open_arguments(Config(final_k=3), None, "litellm:openai/gpt-4o-mini")
    assert llm is None and config.llm == "litellm:openai/gpt-4o-mini" and config.final_k == 3


# -- a "not found" template that does not render ---------------------------------------------------


@pytest.mark.parametrize("template", ["{{ question }} not found", "{% for %}", ""])
def test_a_broken_not_found_template_falls_back_to_the_built_in_text_logged_once(encoder, caplog, template):
    from unitrag.rag.answer.closest import BUILTIN_NOT_FOUND

    store = small_store(encoder)
    store.prompts = {"not_found": template}  # an old or altered artifact: the build refuses such a template
    other = KnowledgeBase(store, encoder, Config(llm="none", name="Nutrition"))
    with caplog.at_level("WARNING", logger="unitrag.rag.answer.closest"):
        for _ in range(2):
            answer = other.ask("What is the capital of France?")
            assert answer.not_found and answer.answer == BUILTIN_NOT_FOUND["en"].format(name="Nutrition")
        answer = other.ask("法国的首都是哪里？")
        assert answer.not_found and answer.answer == BUILTIN_NOT_FOUND["zh"].format(name="Nutrition")
        streamed = other.ask_stream("What is the capital of France?")
        assert "".join(streamed) == BUILTIN_NOT_FOUND["en"].format(name="Nutrition")
    warned = [r for r in caplog.records if "not_found" in r.getMessage()]
    assert len(warned) == 1 and "built-in" in warned[0].getMessage()


def test_the_content_script_is_read_from_the_public_titles(encoder) -> None:
    """A security audit: one restricted title rewritten in traditional characters flipped how every anonymous
    question in traditional characters was read, and their scores with it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rag_conftest", CONFTEST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    rows = [("zh-a", "zh-a", "story", "zh", "public", ["sodium"], "盐与血压", "少吃盐。"),
            ("zh-b", "zh-b", "story", "zh", "clinician", ["sodium"], "鈉攝取與腎臟檢查", "檢查。")]
    module.TERMS.update({"zh-a": "盐 血压", "zh-b": "钠 检查"})
    kb = KnowledgeBase(module.make_store(rows=rows), encoder, Config(llm="none"))
    assert kb.in_content_script("檢查血壓") == "检查血压"  # read as the public (simplified) titles are written


def test_eval_scores_the_answer_ask_gives_whatever_language_the_label_names(encoder, kb):
    """An English-only help desk's eval asked its Chinese questions with lang=zh (the label) and scored a
    Chinese-framed answer (根据知识库资料…) that readers, who name no language, never get."""
    from unitrag.content.labelled_question import LabelledQuestion
    from unitrag.eval.questions import evaluate_questions
    from unitrag.eval.variants import VARIANTS
    from unitrag.rag.answer.citations import strip_citations

    one = KnowledgeBase(kb.store, encoder, Config(llm="none", languages=("en",)))
    one.retriever.gate = None
    asked = LabelledQuestion(id="q1", question="每天吃多少盐合适？", lang="zh", expected_units=["en-salt"],
                             answer_facts=[["5 g"]])
    report = evaluate_questions(one, [asked], [VARIANTS["full"]])
    scored = report.rows[0]["answer_facts"]["extractive"]["answer"]
    assert scored == strip_citations(one.ask(asked.question).answer)[:len(scored)]
    assert scored.startswith("From the knowledge base"), scored
