"""The extractive answer read through the knowledge base's own questions: paraphrases in the question's language,
the authors' translations in the other, and a unit whose author wrote the question."""

from __future__ import annotations

from unitrag.rag.answer.extractive import extractive_answer
from unitrag.rag.answer.focus import Lexicon

from tests.rag.answer.test_extractive import cited, lexicon, source


def test_a_paraphrase_in_the_sources_language_picks_the_span_the_question_cannot_name() -> None:
    text = "Salt has been traded for millennia. Adults should eat less than 5 g of salt a day. Caravans carried it."
    known = lexicon()
    question = "成年人吃盐有什么限制？"  # no number, no term the English text shares
    plain = extractive_answer(question, "zh", [source(1, "Salt", text, ["who"])], focus=(known.focus(question), known))
    bridged = extractive_answer(question, "zh", [source(1, "Salt", text, ["who"])],
                                focus=(known.focus(question, (), ["How much salt should adults eat a day?"]), known))
    assert "5 g" not in plain.splitlines()[1]
    assert "Adults should eat less than 5 g of salt a day." in bridged.splitlines()[1]


def test_a_paraphrase_in_the_other_language_reads_only_the_other_languages_sources() -> None:
    """The author's translation of the nearest question bridges to a source in its language; its words must not
    dilute the question's own against a source in the question's language."""
    known = lexicon()
    question = "Should grown-ups limit it?"
    same = {"Should grown-ups limit it at all?": 0.97}
    focus = known.focus(question, (), {**same, "成年人吃盐要不要限量？": 0.97})
    assert focus.terms == known.focus(question, (), same).terms and focus.lang == "en"
    chinese = [source(1, "盐", "盐是一种常见的调味品。成年人吃盐要限量。", ["cn"], lang="zh")]
    bridged = extractive_answer(question, "en", chinese, focus=(focus, known))
    plain = extractive_answer(question, "en", chinese, focus=(known.focus(question, (), same), known))
    assert bridged.splitlines()[1].split("：", 1)[1].startswith("成年人吃盐要限量。")
    assert plain.splitlines()[1].split("：", 1)[1].startswith("盐是一种常见的调味品。"), "what the bridge changes"


def test_the_question_itself_among_the_exemplars_is_no_paraphrase_and_does_not_hide_the_translation() -> None:
    """A labelled dev question asked word for word is its own nearest exemplar (cosine 1): it set the bar the
    author's translation was measured against, and a new team's English tenant got two unrelated English units."""
    known = lexicon()
    question = "Should grown-ups limit it?"
    near = {"should grown-ups  limit it?": 1.0, "成年人吃盐要不要限量？": 0.93}  # itself, folded otherwise
    focus = known.focus(question, (), near)
    assert focus.bridge and focus.terms == known.focus(question).terms
    chinese = [source(1, "盐", "盐是一种常见的调味品。成年人吃盐要限量。", ["cn"], lang="zh")]
    answer = extractive_answer(question, "en", chinese, focus=(focus, known))
    assert answer.splitlines()[1].split("：", 1)[1].startswith("成年人吃盐要限量。")


def test_the_question_itself_stays_the_bar_of_its_languages_paraphrases() -> None:
    """A unit's own question asked word for word ("How do I share a vault?") read its sibling question ("what happens
    when I remove someone from a shared vault?") as a paraphrase once itself was left out, and quoted the removal."""
    text = ("Open the vault, choose Share and type the other person's email. "
            "When you remove someone from a shared vault, they lose access at the next sync.")
    known = lexicon()
    question = "How do I share a vault with my partner?"
    near = {question: 1.0, "What happens when I remove someone from a shared vault?": 0.91}
    focus = known.focus(question, (), near)
    assert focus.terms == known.focus(question).terms  # the sibling is 0.09 away from the question: no paraphrase
    answer = extractive_answer(question, "en", [source(1, "Sharing", text, ["help"])], focus=(focus, known))
    assert answer.splitlines()[1].startswith("1. Sharing: Open the vault, choose Share")


def test_a_paraphrase_much_further_than_the_nearest_does_not_steer_the_answer() -> None:
    text = ("Potassium from food is safe for healthy kidneys, but chronic kidney disease needs care. "
            "Bananas, potatoes and beans give a lot of potassium.")
    known = lexicon()
    question = "Which foods are rich in potassium?"
    near = {"Which foods give you a lot of potassium?": 0.97,
            "Is potassium safe with chronic kidney disease?": 0.90}  # the same topic, another point
    answer = extractive_answer(question, "en", [source(1, "Potassium", text, ["nih"])],
                               focus=(known.focus(question, (), near), known))
    assert answer.splitlines()[1].startswith("1. Potassium: Bananas, potatoes and beans")
    flat = extractive_answer(question, "en", [source(1, "Potassium", text, ["nih"])],
                             focus=(known.focus(question, (), list(near)), known))
    assert flat.splitlines()[1].startswith("1. Potassium: Potassium from food is safe"), "what the weighting prevents"
    weights = known.focus(question, (), near).terms
    assert "kidney" not in weights and weights["give"] > 0  # the far one counts nothing, the nearest counts
    as_near = known.focus(question, (), list(near)).terms  # a plain list: all as near as the nearest
    assert as_near["kidney"] == as_near["give"]


def test_a_table_in_the_other_language_is_read_against_the_bridge_not_the_questions_own_words() -> None:
    """An English question cannot share a word with a Chinese row: the authors' Chinese question that says the same
    decides whether a second row of the table is asked for."""
    text = ("## 每日需要量\n\n| 人群 | 碘 |\n|---|---|\n| 成年人 | 120 微克 |\n| 孕妇 | 230 微克 |\n| 乳母 | 240 微克 |")
    known = lexicon()
    question = "How much iodine do grown-ups and expecting mothers need?"
    focus = known.focus(question, ("iodine",), {"成年人和孕妇每天需要多少碘？": 0.97})
    answer = extractive_answer(question, "en", [source(1, "碘", text, ["cn"], lang="zh", topics=["iodine"])],
                               focus=(focus, known))
    assert "成年人 — 碘: 120 微克" in answer and "孕妇 — 碘: 230 微克" in answer
    assert "乳母" not in answer, "the bridge names no third row"


def test_an_authors_own_question_is_answered_from_its_unit_whatever_words_they_share() -> None:
    """"地铁上可以吃东西吗？" of a unit saying 禁止进食: no word in common, and another unit's sentence shares 可以."""
    sources = [source(1, "车厢内饮食规定", "在车站付费区和车厢内禁止进食，违者最高罚款200元。", ["rules"], "zh"),
               source(2, "乘车礼仪", "在地铁上可以给老人让座，上车先下后上。", ["etiquette"], "zh")]
    question = "地铁上可以吃东西吗？"
    known = Lexicon()
    plain = extractive_answer(question, "zh", sources, focus=(known.focus(question), known))
    assert "200元" not in plain  # without the author's word, the shared word wins: the fine is never said
    authored = extractive_answer(question, "zh", sources, focus=(known.focus(question, authored=["u1"]), known))
    assert authored.splitlines()[1].startswith("1. 车厢内饮食规定：在车站付费区和车厢内禁止进食，违者最高罚款200元")
    assert cited(authored)[0] == "rules"
    # an authored unit that is not among the sources changes nothing
    assert extractive_answer(question, "zh", sources, focus=(known.focus(question, authored=["gone"]), known)) == plain


def test_the_table_row_the_question_names_outranks_the_row_its_paraphrase_names() -> None:
    """A new team's unit carried the author's question "When is the garden waste collected in Old Town?": asked about
    Millbrook, the answer quoted the Old Town row, the paraphrase's words outweighing the district the reader named."""
    text = ("| District | Collection day | Garden waste |\n|---|---|---|\n| Northgate | Monday | Thursday |\n"
            "| Old Town | Wednesday | Monday |\n| Millbrook | Thursday | Tuesday |")
    known = lexicon()
    question = "Millbrook garden waste collection day?"
    near = {"When is the garden waste collected in Old Town?": 0.9}
    days = [source(1, "Collection days", text, ["calendar"])]
    answer = extractive_answer(question, "en", days, focus=(known.focus(question, (), near), known))
    assert answer.splitlines()[1].startswith("1. Collection days: Millbrook")
    asked_old_town = extractive_answer("Old Town garden waste collection day?", "en", days,
                                       focus=(known.focus("Old Town garden waste collection day?", (), near), known))
    assert asked_old_town.splitlines()[1].startswith("1. Collection days: Old Town")
    focus = known.focus(question, (), near)
    assert "millbrook" in focus.distinct and "garden" not in focus.distinct and "old" in focus.terms


def test_an_authored_units_questions_in_its_language_bridge_a_question_asked_in_the_other() -> None:
    """A new team's "骨头和鱼刺能放进厨余桶吗" was asked nearly as the author wrote "厨余桶能放骨头吗？" for an English unit, whose
    words it shares none of: the caddy sizes were quoted. The unit's English question, nearest of its own, says it."""
    text = ("Every household gets two caddies free: a 5-litre kitchen caddy and a 23-litre outdoor caddy. "
            "All cooked and raw food goes in: meat, bones, fish, dairy and bread.")
    known = lexicon()
    question = "骨头和鱼刺能放进厨余桶吗"
    english = [source(1, "Food waste caddies", text, ["guide"])]
    translated = {"Can meat and bones go in the food caddy?": 0.82, "What liners can I use in my caddy?": 0.76}
    bridged = extractive_answer(question, "zh", english, focus=(known.focus(question, (), {}, (), translated), known))
    plain = extractive_answer(question, "zh", english, focus=(known.focus(question), known))
    assert "meat, bones, fish" in bridged.splitlines()[1]
    assert "meat, bones, fish" not in plain.splitlines()[1], "what the translations change"
    assert "liner" not in known.focus(question, (), {}, (), translated).bridge  # 0.06 under the nearest: no weight


def test_a_question_of_the_opposite_case_is_no_paraphrase() -> None:
    """A college's "本地全日制学生一年学费多少钱" was read with its nearest authored question, "非全日制按学分收费吗？一个学分多少钱？",
    and quoted the part-time row ($160 a credit) for the full-time fee."""
    from unitrag.rag.answer.focus import negates
    from unitrag.content.text.tokenize import tokenize

    asked = set(tokenize("本地全日制学生一年学费多少钱"))
    assert negates(asked, set(tokenize("非全日制按学分收费吗？一个学分多少钱？")))
    assert not negates(asked, set(tokenize("全日制学生学费什么时候交？")))
    assert not negates(set(tokenize("非全日制按学分收费吗")), set(tokenize("非全日制一个学分多少钱")))  # both ask it
    assert negates(set(tokenize("is the paid parking open at night")), set(tokenize("where is the unpaid parking")))
    known = lexicon()
    read = known.focus("本地全日制学生一年学费多少钱", (), {"非全日制按学分收费吗？一个学分多少钱？": 0.95})
    assert "学分" not in read.terms and read.terms == known.focus("本地全日制学生一年学费多少钱").terms


def test_a_word_of_a_rows_other_cells_names_no_row() -> None:
    """A new team's bike share: "How much does a day pass cost?", near the author's "How much is a day pass?", read
    "cost" (said by no paraphrase) in the pay-as-you-go row's "every 30 minutes costs $1.00" as naming that row, and the
    day pass row, read as one the question did not name, lost its $8 to it. Only a row's label names it."""
    text = ("| ticket | price | what it includes |\n|---|---|---|\n"
            "| Pay as you go | $1.00 per 30 minutes | every started 30 minutes of a ride costs $1.00 |\n"
            "| Day pass | $8 | unlimited rides for 24 hours |\n| Monthly pass | $20 | 30 days |\n")
    known = lexicon()
    question = "How much does a day pass cost?"
    focus = known.focus(question, (), {"How much is a day pass?": 0.95})
    assert "cost" in focus.distinct
    answer = extractive_answer(question, "en", [source(1, "Prices", text, ["prices"])], focus=(focus, known))
    assert answer.splitlines()[1].startswith("1. Prices: Day pass — price: $8")
