"""What a question is after, and how well a span of a source gives it.

The extractive answer quotes spans (``rag.answer.spans``), so it has to pick the span that
states what was asked: the pregnancy dose when pregnancy is named, the daily intake
when "how much" is asked, not a neighbouring sentence or an item about another
nutrient. A span is scored on

* the question's focus terms it contains, each weighted by its rarity in this
  knowledge base (BM25's idf: "pregnant" counts, "take" hardly);
* the topics the question names (``topics.yaml`` names and synonyms, both languages):
  the bridge when the question and the source are in different languages;
* the knowledge base's own questions that say the same (paraphrases): their terms count too,
  and in a source of the other language, the authors' questions in that language (a unit's
  questions are often written in both: "How high should my saddle be?" / "自行车座垫调多高合适？");
* numbers: the question's own, and any quantity when it asks "how much", "多少", …;
* the source's rank (the retriever's judgement of the whole chunk), and a light
  preference for earlier spans.

A span that names only topics the question does not is marked down ("a third item about
another nutrient"). Every weight is a plain number here, chosen on the dev questions;
docs/benchmarks/quality.md has the figures on the test sets.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...content.text.tokenize import tokenize
from ...content.text.han_script import to_simplified
from ...content.text.lang import detect_lang, normalize_question
from .signposts import is_signpost
from .row_ranges import durations, months, seasons, units
from .spans import Span, spans

#: Weights of the span score's parts (see the module docstring).
W_TERMS, W_TOPICS, W_NUMBERS, W_RANK, W_ORDER, W_OFF_TOPIC = 1.0, 1.2, 0.6, 1.0, 0.1, 0.6
#: A span that does not name a topic the question names, in a source on that topic, counts this share of one that does,
#: or more: the source's share of its topics (a unit on one topic: all of it). Chosen on the dev sets (facts stated, five
#: knowledge bases: 373 at the flat 0.3, 376 so, 372 at a flat 0.6; docs/benchmarks/quality.md).
W_SOURCE_TOPIC = 0.3
#: A term of a paraphrase (one of the knowledge base's own questions saying the same) counts this share of the question's.
W_PARAPHRASE = 0.8
#: A paraphrase this much less near the question (cosine) than the nearest one counts nothing; between, linearly.
PARAPHRASE_SPREAD = 0.05
#: A focus term in the source's title but not in the span counts this share of one in the span.
W_TITLE = 0.8
#: The prior of the n-th source (0-based); later ones get the last value.
RANK_PRIOR = (1.0, 0.6, 0.4, 0.3, 0.2)

#: Questions after a quantity: a dose, a level, a count, a duration (domain-neutral question words).
_ASKS_AMOUNT = re.compile(
    r"\bhow\s+(?:much|many|long|often|far|high|low|big|old|hot|cold|warm|fast|heavy|tight|soon)\b"
    r"|\bwhat(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:\w+\s+){0,3}?(?:dose|dosage|amount|level|range|value|limit|threshold|"
    r"temperature|pressure|number|percentage|ratio|target|cut-?off|intake|interval|size|weight|speed|torque|distance)s?\b"
    r"|\bwhen\b|\bdos(?:e|es|age|ing)\b|多少|几|多久|多长|多高|多低|多大|多重|多远|多快|剂量|范围|标准|上限|下限|阈值|界值|几点|何时|什么时候",
    re.IGNORECASE,
)
#: Words of the question's form, not its subject: "how much"/"how many" ask for a quantity (``asks_amount``), as 多少
#: does (a stop word already). As focus terms, rare in a knowledge base's text, they outweighed what was asked: a title
#: "Deposits: how much, and when you get them back" was quoted before the price row for "how much is a 6 person tent".
QUESTION_FORM_TERMS = frozenset(tokenize("much many"))
#: Questions after a time of day ("when should I wash the panels?", 什么时候浇水): a span naming one states it, as a
#: quantity states an amount (a new team's "early in the morning or in the evening" was never quoted).
_ASKS_TIME = re.compile(r"^\W*(?:and |so |ok |but )?when\b|\bwhen (?:should|do|can|is|are|to|does|would)\b|\bwhat time\b"
                        r"|\btime of (?:the )?day\b|几点|何时|什么时候|什么时间|哪个时间|早上还是晚上|白天还是晚上", re.IGNORECASE)
_TIME_OF_DAY = re.compile(r"\b(?:mornings?|evenings?|night|nighttime|noon|midday|afternoons?|dawn|dusk|sunrise|sunset|bedtime"
                          r"|o'?clock|\d{1,2}(?::\d{2})?\s?[ap]\.?m)\b|早上|早晨|清晨|上午|中午|正午|下午|傍晚|晚上|夜里|夜间|凌晨"
                          r"|睡前|\d{1,2}点", re.IGNORECASE)
#: Questions after a frequency ("how often should I check my tyre pressure?", 多久浇一次水): a span saying how often
#: ("at least once a week", 每周一次, "before every ride") states it, as a quantity states an amount; without a digit it
#: stated nothing asked, and "lose 0.5–1 bar a week" was quoted before "check … at least once a week".
_ASKS_OFTEN = re.compile(r"\bhow\s+(?:often|frequently)\b|\bhow\s+many\s+times\b|多久[^，,。？?]{0,8}一次|多长时间[^，,。？?]{0,8}一次"
                         r"|隔多久|多少天[^，,。？?]{0,6}一次|频率|几天一次|一天几次|一周几次|每天几次", re.IGNORECASE)
_OFTEN = re.compile(r"\b(?:daily|weekly|monthly|yearly|annually|fortnightly|hourly|nightly)\b"
                    r"|\b(?:once|twice|thrice|\d+\s*times|times)\s+(?:a|an|per|every|each)\b|\bper\s+(?:day|week|month|year)\b"
                    r"|\bevery\s+(?:other\s+|few\s+|\d+\s*(?:to\s*\d+\s*)?|\d+\s*[–-]\s*\d+\s*)?(?:day|night|week|month|year|morning|"
                    r"evening|time|ride|use|wash|session|hour|minute|season|spring|summer|autumn|winter|visit|trip|shift)s?\b"
                    r"|每\s*(?:天|日|晚|周|星期|礼拜|月|年|季|隔|次|回|[0-9０-９一二两三四五六七八九十半])"
                    r"|(?:天|日|周|星期|月|年)[0-9一二两三四五六七八九十]+次|隔天|天天", re.IGNORECASE)
#: Questions after a list: the items of a list answer them together.
_ASKS_LIST = re.compile(r"\b(?:which|what\s+are|list|name)\b|哪些|哪几|有什么|是什么|几条|几个|几种"
                        r"|\b(?:where|when)\s+(?:are|do|were|did)\s+(?:the\s+|all\s+the\s+)?[a-z]{3,}s\b"  # "where are the trips going"
                        r"|\bwhat\s+(?!does\b|is\b|was\b|has\b)[a-z]{3,}s\s+(?:are|do|have|has|can|should|contain|give|help|to|"
                        r"for|with|in|is)\b", re.IGNORECASE)
#: Questions after a procedure: the steps of a numbered list on what is asked answer them together, in order.
_ASKS_STEPS = re.compile(r"\bhow\s+(?:do|can|should|would|could|does|did|to)\b(?!\s+(?:i|you|we|one)\s+(?:know|tell)\b)"
                         r"|\bwhat\s+(?:do|should|can|must)\s+(?:i|we)\s+do\b|\bwhat\s+to\s+do\b"
                         r"|\bsteps?\b|\bprocedure\b|\bprocess\b|怎么(?!会|回事|样)|如何|怎样(?!才算)|步骤|流程|程序", re.IGNORECASE)
#: Between two spans' words in the text a chunk's topics are looked for in: no mention runs across it.
_SEPARATOR = "\n\x00\n"
#: A number: not the digits of a name (B12), but one right after Chinese words is (每天2次).
_NUMBER = re.compile(r"(?<![.0-9A-Za-z_\u00c0-\u024f])\d+(?:[.,]\d+)*")
#: Small numbers written as words count as the number (a question's "2 dots", a table's "Two dots"; 两次 and 2次).
_EN_NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_EN_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(_EN_NUMBER_WORDS) + r")\b", re.IGNORECASE)
#: "one" as a pronoun is no number: "which one", "one of", "one's".
_NOT_ONE_BEFORE = frozenset("which this that the each any no every some another someone anyone everyone".split())
_NOT_ONE_AFTER = re.compile(r"\s*(?:of\b|another\b|by\b|'s\b|’s\b)", re.IGNORECASE)
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
#: A Chinese numeral counts only before a measure word or a unit (三次, 两个点, 第五步), not in 一些, 统一, 十分重要.
_ZH_NUMBER = re.compile(
    r"(?<![零〇一二三四五六七八九十百千万亿两])(?P<n>十[一二]?|[一二三四五六七八九两])(?![零〇一二三四五六七八九十百千万亿两])"
    r"(?=个?(?:次|天|日|周|星期|个月|月(?!饼)|年|小时|分钟|秒|点|档|挡|杯|勺|匙|克|公斤|斤|升|毫升|遍|步|种|片|粒|滴|件|圈|度|倍|层|瓶|袋|"
    r"包|盆|条|张|块|颗|根|只|台|岁|份|节|级|格|成|碗|个))")
#: 一点 is mostly "a little" (放一点, 多一点): one dot or one o'clock only at the start of a cell or a clause, after
#: 第/档/调/到/在/是/用/开/转/为, or before 钟.
_ZH_ONE_DOT_AFTER = re.compile(r"(?:^|[^\u4e00-\u9fff]|[第档调到在是用开转为])$")
#: 一 in a word is no count: 下一步 (next), 进一步 (further), 同一天, 统一, 唯一, 之一, 逐一, 每一次, 单一.
_ZH_ONE_IN_A_WORD = frozenset("下上进同统唯之逐每单")


def numbers_in(text: str) -> frozenset[str]:
    """The numbers a text states: its digits, and the small numbers it writes as words (two → "2", 两 → "2")."""
    found = set(_NUMBER.findall(text))
    for m in _EN_NUMBER_WORD.finditer(text):
        word = m.group(0).casefold()
        if word == "one":
            before = text[:m.start()].split()
            if (before and before[-1].casefold().strip(",;:") in _NOT_ONE_BEFORE) or _NOT_ONE_AFTER.match(text, m.end()):
                continue
        found.add(_EN_NUMBER_WORDS[word])
    for m in _ZH_NUMBER.finditer(text):
        n = m.group("n")
        if n == "一" and text[m.start() - 1:m.start()] in _ZH_ONE_IN_A_WORD and m.start() > 0:
            continue
        if (n == "一" and text[m.end():m.end() + 1] == "点" and text[m.end() + 1:m.end() + 2] != "钟"
                and not _ZH_ONE_DOT_AFTER.search(text[:m.start()])):
            continue
        found.add(str(10 + _ZH_DIGITS[n[1]] if len(n) == 2 else _ZH_DIGITS[n]))
    return frozenset(found)


def _states_number(term: str, reading: "SpanReading") -> bool:
    """Whether a span states the number a question's term is, written otherwise: "2" or "two" as "two dots" or
    "2 dots"; 两点 (a number and its measure word, one term) as 2点 (or 两个点)."""
    if term.isdigit() or term in _EN_NUMBER_WORDS:
        return _EN_NUMBER_WORDS.get(term, term) in reading.numbers
    bare = term.removeprefix("第")
    m = _ZH_NUMBER.match(bare) if reading.numbers else None
    unit = bare[m.end():].removeprefix("个") if m else ""
    return bool(unit) and bool(numbers_in(bare) & reading.numbers) and unit in reading.span.words


#: A number and its unit ("2.4 µg", "3 cups", 40%, 5分钟); a number glued to letters before it names a thing (B12, D3).
_QUANTITY = re.compile(r"(?<![^\W_\u4e00-\u9fff])\d(?:[\d.,]*)\s*(?:%|[^\W\d_]{1,6}|[\u4e00-\u9fff]{1,2}|°|℃)")


#: Chunks whose reading a lexicon keeps (a knowledge base's top sources recur from question to question).
READINGS_KEPT = 4096


@dataclass(frozen=True)
class SpanReading:
    """What a span says, read once per chunk: its terms, its numbers, whether it states a quantity."""

    span: Span
    terms: frozenset[str]
    numbers: frozenset[str]
    quantity: bool
    title_terms: frozenset[str] = frozenset()  # its source's title: what the whole chunk is about
    signpost: bool = False  # it only says what its text covers (``signposts``): never quoted
    time: bool = False  # it names a time of day ("early in the morning", 傍晚)
    often: bool = False  # it says how often ("once a week", 每周一次)


@dataclass
class ChunkReading:
    """A chunk's spans read once, and which spans name each topic, looked up a topic at a time when asked."""

    spans: tuple[SpanReading, ...]
    joined: str  # every span's normalised words, joined by _SEPARATOR: one scan of the chunk per topic
    starts: list[int]  # where each span's words start in ``joined``
    naming: dict[str, frozenset[int]] = field(default_factory=dict)  # topic id → positions of the spans naming it

    def topics_of(self, position: int, among: Iterable[str], topics: Mapping[str, Any]) -> frozenset[str]:
        """Which of the topics ``among`` the span at ``position`` names."""
        return frozenset(t for t in among if position in self._naming(t, topics))

    def named_anywhere(self, among: Iterable[str], topics: Mapping[str, Any]) -> frozenset[str]:
        """Which of the topics ``among`` some span of the chunk names."""
        return frozenset(t for t in among if self._naming(t, topics))

    def _naming(self, topic_id: str, topics: Mapping[str, Any]) -> frozenset[int]:
        found = self.naming.get(topic_id)
        if found is None:
            topic = topics.get(topic_id)
            matches = topic.mentions(self.joined) if topic is not None else ()
            found = self.naming[topic_id] = frozenset(bisect_right(self.starts, m.start()) - 1 for m in matches)
        return found


@dataclass(frozen=True)
class Lexicon:
    """What this knowledge base knows about words: each term's idf, and its topics' mention patterns."""

    idf: Mapping[str, float] | None = None  # None: every term weighs 1 (no knowledge base at hand)
    topics: Mapping[str, Any] = field(default_factory=dict)  # topic id → rag.search.broaden._Topic (``find``)
    _readings: dict[tuple[str, str], ChunkReading] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, vocab: Mapping[str, int], idf: Sequence[float], topics: Mapping[str, Any],
           counts: Sequence[int] | None = None) -> "Lexicon":
        """From a sparse index's vocabulary and idf (``rag.store.sparse.SparseIndex``) and the taxonomy's topics;
        with ``counts`` (the rows holding each term, as one audience sees them: ``SparseIndex.seen_by``), a term
        no row it reads holds is left out, as a word the knowledge base does not know is: otherwise a public
        answer would weigh a word of restricted units alone as the rarest there is, and choose other sentences."""
        return cls({term: float(idf[i]) for term, i in vocab.items() if counts is None or counts[i] > 0}, topics)

    def focus(self, question: str, named_topics: Sequence[str] = (),
              paraphrases: Mapping[str, float] | Sequence[str] = (), authored: Sequence[str] = (),
              translated: Mapping[str, float] | None = None) -> "QuestionFocus":
        """The question's focus terms (weighted by idf; a term no chunk uses cannot be matched and is left out),
        the topics it names, its numbers, and whether it asks for a quantity. ``paraphrases``: questions this
        knowledge base answers that say the same (``Exemplars.nearest_answered``, each with its cosine to the
        question; a plain sequence counts them all as near as the nearest); their terms count at
        ``W_PARAPHRASE``, less the further a paraphrase is from the nearest one (a neighbour about the same
        topic but another point, "is potassium-rich food safe with kidney disease?", must not steer the
        answer to "which foods are rich in potassium?"). Paraphrases in the other language (the authors'
        translations, lifted to the question's scale by ``Exemplars.nearest_answered``) go to ``bridge``: they
        read the other language's sources only, weighed against the best paraphrase of all. ``authored``: the units
        whose authors wrote the question among their own (``Exemplars.authored_units``), nearest first.
        ``translated``: the nearest such unit's questions in the other language (``Exemplars.translations``), each with
        its cosine: they bridge too, weighed against the nearest of them (a new team's 骨头和鱼刺能放进厨余桶吗, asked as the
        author of an English unit wrote it in Chinese, quoted its caddy sizes, the English question 0.82 away)."""
        near = paraphrases if isinstance(paraphrases, Mapping) else dict.fromkeys(paraphrases, 1.0)
        # the question itself (a labelled dev question asked word for word) is no other wording of it: as the nearest,
        # it would set the bar the authors' translations are measured against, and no translation would reach it
        asked = normalize_question(question).casefold()
        itself = {text: cosine for text, cosine in near.items() if normalize_question(text).casefold() == asked}
        near = {text: cosine for text, cosine in near.items() if text not in itself}
        own_terms = set(tokenize(question))
        said = {text: set(tokenize(text)) for text in near}  # each paraphrase's terms, read once
        near = {text: cosine for text, cosine in near.items() if not negates(own_terms, said[text])}
        lang = detect_lang(question)
        own_lang = {text: cosine for text, cosine in near.items() if detect_lang(text) == lang}
        # but it stays the bar its own language's paraphrases are measured against: another question of the same unit
        # ("what happens when I remove someone from a shared vault?") is no other wording of "how do I share a vault?"
        own_best = max([*own_lang.values(), *itself.values()], default=1.0)
        spread = _spread(own_lang, own_best)
        terms = self._weighted([(1.0, question), *spread])
        asked = self._weighted([(1.0, question)])
        # the question's terms no paraphrase says ("Millbrook" beside "…garden waste collected in Old Town?"): where it
        # differs from them, which a span must then say itself (``QuestionFocus.relevance``'s ``plain``)
        paraphrased = {term for weight, text in spread if weight > 0 for term in said[text]}
        distinct = frozenset(t for t in asked if t not in paraphrased)
        # the other language's: the author's own translation of the nearest question, as near as the best of all
        bridge = self._weighted(_spread({t: c for t, c in near.items() if t not in own_lang}, max(near.values(), default=1.0))
                                + _spread(translated or {}, max((translated or {}).values(), default=1.0)))
        topics = frozenset(t for t in named_topics if t in self.topics)
        folded = to_simplified(question)  # 多長時間 asks for an amount as 多长时间 does (the terms are folded already)
        return QuestionFocus(terms, topics, numbers_in(question), bool(_ASKS_AMOUNT.search(folded)),
                             bool(_ASKS_LIST.search(folded)), frozenset(t for t in own_terms if t in terms),
                             lang, bridge, tuple(authored), bool(_ASKS_STEPS.search(folded)),
                             bool(_ASKS_TIME.search(folded)), asked, distinct, bool(_ASKS_OFTEN.search(folded)),
                             durations(folded), units(folded), months(question), seasons(folded))  # "May": as written

    def _weighted(self, texts: Iterable[tuple[float, str]]) -> dict[str, float]:
        """Each term of the texts at its idf times its text's weight (the largest where texts share it)."""
        terms: dict[str, float] = {}
        for weight_of, text in texts:
            if weight_of <= 0:
                continue
            for term in tokenize(text):
                if term in QUESTION_FORM_TERMS:
                    continue
                weight = 1.0 if self.idf is None else self.idf.get(term)
                if weight is not None and weight > 0 and weight * weight_of > terms.get(term, 0.0):
                    terms[term] = weight * weight_of
        return terms

    def read(self, text: str, title: str = "") -> ChunkReading:
        """The spans of a source's text with what each says; remembered per chunk text."""
        key = (text, title)
        found = self._readings.get(key)
        if found is None:
            if len(self._readings) >= READINGS_KEPT:
                self._readings.clear()
            found = self._readings[key] = self._read(text, title)
        return found

    def _read(self, text: str, title: str) -> ChunkReading:
        found = spans(text, title)
        starts, joined = [], ""
        for span in found:
            starts.append(len(joined))
            joined += normalize_question(f"{span.context} {span.words}") + _SEPARATOR
        title_terms = frozenset(tokenize(title))
        readings = tuple(SpanReading(span, frozenset(tokenize(f"{span.context} {span.words}")),
                                     numbers_in(span.words), bool(_QUANTITY.search(span.words)), title_terms,
                                     is_signpost(span.words), bool(_TIME_OF_DAY.search(span.words)),
                                     bool(_OFTEN.search(span.words)))
                         for span in found)
        return ChunkReading(readings, joined, starts)


def _spread(near: Mapping[str, float], best: float) -> list[tuple[float, str]]:
    """Each paraphrase with its weight: ``W_PARAPHRASE``, less the further it is from ``best`` (none beyond the spread)."""
    return [(W_PARAPHRASE * max(0.0, 1.0 - (best - cosine) / PARAPHRASE_SPREAD), text) for text, cosine in near.items()]


def plain_lexicon() -> Lexicon:
    """Every term weighs the same, no topics (no knowledge base at hand: a test, a caller without one)."""
    return Lexicon()


@dataclass(frozen=True)
class QuestionFocus:
    terms: Mapping[str, float]  # term → idf
    topics: frozenset[str]  # the topics the question names
    numbers: frozenset[str]
    asks_amount: bool
    asks_list: bool = False
    own: frozenset[str] = frozenset()  # the terms of the question itself, not of its paraphrases
    lang: str = ""  # the question's ("en" | "zh"; "": unknown, every source read as in the same language)
    bridge: Mapping[str, float] = field(default_factory=dict)  # terms of paraphrases in the other language → weight
    authored: tuple[str, ...] = ()  # the units whose authors wrote this question among their own, nearest first
    asks_steps: bool = False  # "how do I …", "怎么…": a procedure, which a numbered list's steps give
    asks_time: bool = False  # "when should I …", 什么时候: a time of day states it
    asked: Mapping[str, float] = field(default_factory=dict)  # the terms of the question itself → idf
    distinct: frozenset[str] = frozenset()  # the question's terms none of its paraphrases says
    asks_often: bool = False  # "how often …", 多久…一次: a frequency states it
    durations: Mapping[str, float] = field(default_factory=dict)  # its lengths of time in days, by number ("3" → 21)
    units: Mapping[str, str] = field(default_factory=dict)  # the unit each of its numbers is said in ("125" → "cm")
    months: frozenset[int] = frozenset()  # the months it names, in either language (7月, "July": 7)
    seasons: frozenset[str] = frozenset()  # the seasons it names, in either language (冬天, "winter": winter)

    def relevance(self, reading: SpanReading, named: frozenset[str] = frozenset(), source_topics: Sequence[str] = (),
                  source_lang: str = "", plain: bool = False, unsaid: Collection[str] = (),
                  covers: Collection[str] = ()) -> float:
        """How much of what was asked a span states, whatever its source's rank: ``named``, the topics it names
        (of the question's and the top sources'), ``source_topics`` its source's. A span of a source in the other
        language (``source_lang``) is also read against the knowledge base's own questions in that language that
        say the same (``bridge``), whichever reading it states more of: its words are theirs, not the question's.
        ``plain``: the span is a row of a table another row of which alone says a term of the question its paraphrases
        do not (``extractive._named_rows``: "Millbrook"): only the question's own words count as stated there, since
        what a paraphrase adds is its own case ("…collected in Old Town?"), and the Old Town row was quoted. Measured
        on every dev and test set and six new teams' (docs/benchmarks/quality.md, stop 54): one fact more on each of
        a test set and a team's, none fewer. ``unsaid``: the terms that name that other row, which this row does not
        state even where it writes them; and such a row states no number at all (the 1-zone row's fare of 3 元 for
        "坐3个区多少钱", another station's "24/7" for "is Riverside open 24 hours?").
        ``covers``: the question's numbers this row's label covers (``row_ranges``: "135" under "120 平方米以上"), stated
        there as if written."""
        terms = _share(self.terms, reading, set(self.asked) - set(unsaid) if plain else None)
        if self.bridge and source_lang and self.lang and source_lang != self.lang and not plain:
            terms = max(terms, _share(self.bridge, reading))  # another row than the one named: its own words only
        topics = 0.0
        if self.topics:
            # a span of a source on the topic is about it by the source's share of it, at least a floor: in a unit on
            # one topic every span is (the row naming the plant asked about, not the one repeating "watering")
            part = max(W_SOURCE_TOPIC, 1.0 / max(1, len(source_topics)))
            topics = sum(1.0 if t in named else part if t in source_topics else 0.0 for t in self.topics) / len(self.topics)
        # about something else: it names other topics only, in a source not on any topic the question names
        off = 1.0 if self.topics and named and not (named | set(source_topics)) & self.topics else 0.0
        # no number of a row the question did not name is the one asked: not its amount or time, nor one the question
        # says ("is Riverside open 24 hours?" quoted another station's "24/7" before Riverside's 05:00–01:00)
        stated = bool((self.numbers | self.seasons) & (reading.numbers | set(covers)))  # or the season its row names
        asked = ((self.asks_amount and reading.quantity) or (self.asks_time and reading.time)
                 or (self.asks_often and reading.often))
        numbers = 1.0 if (stated or asked) and not plain else 0.0
        return W_TERMS * terms + W_TOPICS * topics + W_NUMBERS * numbers - W_OFF_TOPIC * off

    @staticmethod
    def prior(span: Span, rank: int) -> float:
        """What is known before reading the span: its source's rank, and its place in the source (earlier is likelier)."""
        return W_RANK * RANK_PRIOR[min(rank, len(RANK_PRIOR) - 1)] + W_ORDER / (1.0 + span.position / 4.0)


#: Prefixes that turn a term into its opposite: 全日制 and 非全日制, "paid" and "unpaid".
NEGATING_PREFIXES = ("非", "不", "无", "未", "non", "un")


def negates(asked: set[str], other: set[str]) -> bool:
    """Whether ``other`` (a paraphrase's terms) says the opposite of a term the question asked and not that opposite
    itself: "非全日制按学分收费吗" is the nearest of the college's questions to "本地全日制学生一年学费多少钱", and its terms
    quoted the part-time row. Such a question is about the other case, and no wording of this one."""
    return any(term[len(prefix):] in asked and term not in asked
               for term in other for prefix in NEGATING_PREFIXES
               if term.startswith(prefix) and len(term) > len(prefix) + 1)


def _share(terms: Mapping[str, float], reading: SpanReading, only: Collection[str] | None = None) -> float:
    """The idf-weighted share of ``terms`` a span states (a term only its source's title has counts ``W_TITLE``);
    a number the span writes otherwise ("2" and "two dots", "two" and "2 dots") is stated. ``only``: the terms that
    count as stated (the others still weigh in the whole)."""
    total = sum(terms.values())
    said = sum(0.0 if only is not None and t not in only
               else w if t in reading.terms or _states_number(t, reading)
               else W_TITLE * w if t in reading.title_terms else 0.0 for t, w in terms.items())
    return said / total if total else 0.0
