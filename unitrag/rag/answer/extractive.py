"""The answer without an LLM: the spans of the top sources that best state what was asked, cited.

When no LLM is configured or reachable, the reader still gets an answer: the
sentences, list items and table rows (``rag.answer.spans``; never a signpost, ``rag.answer.signposts``) of the top sources that score
best against the question (``rag.answer.focus``: its rare terms, the topics it names in
either language, the numbers it asks for, the source's rank), best first, without
repeats, within a length budget; within a unit's line, two or more steps of a numbered list
in the list's order, numbered ("(1) … (2) …", "（1）…（2）…"), and a context shown once; a sentence that points
back ("That is why …", "因此…") after the sentence it points to, when both fit. Each quoted span is followed by ``<Cite/>`` tags of its
source's own citation ids, so the faithfulness check passes by construction; a title is
named once. A span in the other language than the question keeps its words, announced
as such. Plain string work that never raises: it is the fallback of last resort.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache

from ...content.text.citation_tags import canonical_tag, strip_tags
from ...content.text.tokenize import tokenize
from .focus import Lexicon, QuestionFocus, SpanReading, numbers_in, plain_lexicon
from .quotes import Quote, in_reading_order, list_of, numbered
from .row_ranges import covered, duration_span, holds, months, seasons, unit_of
from .spans import Span, plain_title, spans, split_sentences  # noqa: F401 - split_sentences: part of this module's API
from ..types import Source

LEAD = {"zh": "根据知识库资料：", "en": "From the knowledge base:"}
NOTHING = {"zh": "知识库中没有找到相关资料。", "en": "The knowledge base has nothing on this question."}
#: Said, in the question's language, before a span written in the other one (its text stays as written).
OTHER_LANGUAGE = {("zh", "en"): "以下内容来自英文资料：", ("en", "zh"): "The following is from a Chinese source: "}

#: Sources whose spans are candidates, and spans quoted at most.
CANDIDATE_SOURCES = 5
MAX_SPANS = 6
#: Units quoted at most: a third unit's spans matched the question's words as well as the first two's, but a reader
#: found them unrelated (a ballpoint-ink step after "blood out of jeans", "salt does not remove colour" after a rust
#: remedy with salt). On the four knowledge bases' dev sets, 2 quoted the same facts with 23% fewer units outside
#: the labels; docs/benchmarks/quality.md has the test sets.
MAX_UNITS = 2
#: The quoted spans' words stay under this many characters (Chinese packs about three times as much
#: into a character); the best span is always quoted, shortened if it alone is longer. A span in the other language
#: than the question's counts against the larger of the two (``_share``): English quoted for a Chinese question got
#: 400 characters, one or two sentences (on every set: facts +16 of 638 dev, +50 of 1,513 test, none fewer per group).
BUDGET_CHARS = {"zh": 400, "en": 900}
#: A span after the best is quoted only when it states at least this share of what the best states.
RELATIVE_FLOOR = 0.4
#: Another row of a table a quoted row belongs to is quoted only when it states nearly as much (the question
#: names both rows); the header every row repeats must not bring in the whole table.
SIBLING_ROW_FLOOR = 0.9
#: A procedure's numbered list is quoted first when one of its steps states this share of what the best quote states.
STEPS_FLOOR = 0.7
#: A span sharing this share of its terms with one already quoted repeats it.
REDUNDANT = 0.7
#: A single span longer than this is cut at a word boundary.
SENTENCE_MAX_CHARS = {"zh": 160, "en": 400}

_SPACE = re.compile(r"\s+")
_ID_OK = re.compile(r'^[^"<>\s]+$')
_END_PUNCT = ".!?。！？…;；:："


def answer_lang(lang: str) -> str:
    return "zh" if (lang or "").lower().startswith("zh") else "en"


def _shorten(sentence: str, limit: int) -> str:
    if len(sentence) <= limit:
        return sentence
    cut = sentence[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:，；：、") + "…"


def candidates(focus: QuestionFocus, sources: Sequence[Source], lexicon: Lexicon) -> list[Quote]:
    """Every span of the top sources, scored against the question, best first (earlier on ties)."""
    top: list[Source] = []
    for source in sources:
        if len(top) >= CANDIDATE_SOURCES:
            break
        if source.chunk_id not in {s.chunk_id for s in top}:
            top.append(source)
    among = {t for s in top for t in s.topics} | set(focus.topics)
    quotes = []
    for rank, source in enumerate(top):
        if not isinstance(source.citation_ids, (list, tuple)):
            continue  # malformed: it could not be cited
        try:
            chunk = lexicon.read(source.text, source.title)
        except Exception:  # a malformed source must not cost the user the others
            continue
        named_rows = _named_rows(chunk.spans, focus)
        carried = _carried(source.topics, chunk.named_anywhere(focus.topics, lexicon.topics))
        for reading in chunk.spans:
            if reading.signpost:
                continue  # "this article covers …" names every topic and states no fact (``signposts``)
            named = chunk.topics_of(reading.span.position, among, lexicon.topics)
            named_row, naming = named_rows.get(reading.span.context, (reading.span.position, frozenset()))
            plain = reading.span.kind == "row" and named_row != reading.span.position
            relevance = focus.relevance(reading, named, carried, answer_lang(source.lang or focus.lang), plain,
                                        naming if plain else frozenset(),
                                        frozenset() if plain else naming & (focus.numbers | focus.seasons))  # a number its range holds, a season
            quotes.append(Quote(reading.span, source, rank, relevance, relevance + focus.prior(reading.span, rank)))
    return sorted(quotes, key=lambda q: (-q.score, q.rank, q.span.position))


def _carried(topics: Sequence[str], named: Collection[str]) -> tuple[str, ...]:
    """The topics a source is about: those it carries, and those of the question some span of it names. A park's
    backcountry permit unit, not tagged camping, names 露营 in two sentences: "在野外露营一晚的许可证多少钱？", its own
    question, quoted those two for the topic and not "许可证费用为每人每晚6美元", which does not say the word. Measured
    on every dev and test set and eight new teams' (docs/benchmarks/quality.md, stop 55): facts +2, +4, +1."""
    return (*topics, *(t for t in named if t not in topics))


def _named_rows(readings: Sequence[SpanReading], focus: QuestionFocus) -> dict[str, tuple[int, frozenset[str]]]:
    """Per table (its rows' context), the one row whose label says a term of the question its paraphrases do not
    ("Millbrook" of the districts' table; a word of its other cells names nothing: "cost" in "every 30 minutes costs
    $1.00" named the pay-as-you-go row for "How much does a day pass cost?"), or says a number of the question ("3 个区"
    for "坐3个区多少钱", where the 1-zone row's fare is 3 元) or covers it ("120 平方米以上" for "我家135平"), when exactly one
    does, and the terms that name it: the other rows are read against the question's own words only, those terms left
    out, and state none of its numbers. A number of a length of time (``durations``: "3" of "3 weeks", 21 days) names a
    row whose label is in units of time by the days it covers ("14–29天"), never by its bare number. A number said in a
    unit (``units``: "125" of "125cm") is held only by a span in that unit, or in none, and also by another cell
    of a row whose label covers nothing ("Child — Who: height 100–140 cm; Price: ¥220"). A month the question names
    (``months``) names the row that names it, in either language (7月, "Summer — Months: June, July, August"), and
    so does a season (``seasons``: 冬天 the row "Winter 冬季")."""
    saying: dict[str, dict[str, list[int]]] = {}
    distinct, numbers, lengths, measured = focus.distinct, focus.numbers, focus.durations, focus.units
    for reading in readings:
        if reading.span.kind != "row":
            continue
        words = reading.span.label
        label = numbers_in(words) if numbers else frozenset()
        days = duration_span(words) if lengths else None
        bare = numbers - set(lengths) if days is not None else numbers  # "3" (weeks) is no "13天以内"
        within = {n for n in bare - label if holds(words, n) and _in_its_unit(words, measured.get(n))}  # "135" in
        # "120 平方米以上" (``row_ranges``)
        if measured and days is None and covered(words) is None:  # the range in another cell: a number in its unit
            within |= {n for cell in reading.span.cells for n in bare - label
                       if measured.get(n) is not None and unit_of(cell) == measured[n] and holds(cell, n)}
        if days is not None:
            within |= {n for n, length in lengths.items() if days[0] <= length <= days[1]}
        if focus.months:
            within |= {str(month) for month in focus.months & months(reading.span.words)}  # "7" of 7月: stated
        if focus.seasons:
            within |= focus.seasons & seasons(words)
        said = (distinct - numbers) & reading.terms & set(tokenize(words))  # in its label: "cost" in a fare is no name
        for term in said | (bare & label) | within:
            saying.setdefault(reading.span.context, {}).setdefault(term, []).append(reading.span.position)
    named: dict[str, tuple[int, frozenset[str]]] = {}
    for table, terms in saying.items():
        alone = {term: rows[0] for term, rows in terms.items() if len(rows) == 1}
        if len(set(alone.values())) == 1:  # two terms naming two rows ("从1区坐到3区"): none is the one asked
            named[table] = (next(iter(alone.values())), frozenset(alone))
        elif not alone:  # no term names one row, but together they may: "spay" and "30" (kg) meet in one row
            together = _named_together(terms)
            if together is not None:
                named[table] = together
    return named


def _in_its_unit(label: str, unit: str | None) -> bool:
    """Whether a label's bound may hold a number said in ``unit``: the same unit, or either says none."""
    said = unit_of(label) if unit is not None else None
    return said is None or said == unit


def _named_together(terms: dict[str, list[int]]) -> tuple[int, frozenset[str]] | None:
    """The one row that more of the question's terms name than any other, two at least: "Dog spay 20–40 kg" for "spay
    a 30 kg dog", where "spay" names three rows and "30" the two 20–40 kg rows (a vet's table quoted "Dog spay under 20
    kg" for it, a wrong price with the right citation)."""
    counts: dict[int, set[str]] = {}
    for term, rows in terms.items():
        for row in set(rows):
            counts.setdefault(row, set()).add(term)
    most = max((len(named) for named in counts.values()), default=0)
    best = [row for row, named in counts.items() if len(named) == most]
    return (best[0], frozenset(counts[best[0]])) if most >= 2 and len(best) == 1 else None


def choose(quotes: Sequence[Quote], lang: str, asks_list: bool = False, focus_terms: Collection[str] = (),
           bridge_terms: Collection[str] = (), authored: Sequence[str] = (), asks_steps: bool = False) -> list[Quote]:
    """The best quote, then the next best that state nearly as much of the question and repeat nothing, within
    the length budget and from at most ``MAX_UNITS`` units. When a list is asked for ("which foods…") and the best quote is a list item, its sibling
    items follow it: the list is the answer. When a procedure is asked for ("how do I…", ``asks_steps``), a numbered
    list whose lead-in names what is asked comes first, every step in order (``_steps_first``). Another row of a quoted row's table must also say a term of the
    question itself (``focus_terms``) that the quoted rows do not: the vegetables' row, then the fruits' row when
    both are asked, never the rest of the table for the words its header repeats. A table in the other language
    than the question cannot say the question's words: its rows are read against ``bridge_terms``, the authors'
    questions of that language that say the same. When the question is one the authors of a unit wrote for it
    (``authored``, nearest first), that unit's best quote comes first and its spans are quoted whatever words they
    share with the question (its author said it answers it: "地铁上可以吃东西吗？" of a unit saying 禁止进食)."""
    quotes, answering = _authored_first(quotes, authored)
    own, bridge = set(focus_terms), set(bridge_terms)
    steps: list[Quote] = []
    if asks_steps and not answering:
        quotes, steps = _steps_first(quotes, own)
    chosen: list[Quote] = []
    seen: list[set[str]] = []  # the terms of each chosen quote, in order
    placed = {(q.source.chunk_id, q.span.position): q for q in quotes}
    used, top = 0.0, 0.0
    siblings: list[Quote] = []
    if steps:
        siblings = steps
    elif asks_list and quotes and quotes[0].span.kind in ("item", "row"):
        best = quotes[0]
        siblings = [q for q in quotes if q.source.chunk_id == best.source.chunk_id and q.span.kind == best.span.kind
                    and q.span.context == best.span.context]
        quotes = [best, *sorted(siblings[1:], key=lambda q: q.span.position),
                  *(q for q in quotes if q not in siblings)]
    points = 0  # quotes chosen for what they state (a sentence quoted for one leaning on it is not one)
    for quote in quotes:
        if points >= MAX_SPANS:
            break
        if (chosen and quote not in siblings and quote.source.unit_id not in answering
                and (quote.relevance <= 0 or quote.relevance < RELATIVE_FLOOR * top)):
            continue
        words = quote.span.words
        terms = set(tokenize(words)) or {words}
        table = [(q, said) for q, said in zip(chosen, seen) if _same_table(quote, q)]
        asked = own if answer_lang(quote.source.lang or lang) == lang else bridge
        # another answer to the same question: a row saying just what a quoted row says of it ("automatic" of the
        # "automatic (C2)" row beside the "manual or automatic" one)
        alike = any(terms & asked == said & asked for _, said in table) and bool(terms & asked)
        if table and quote not in siblings and (any(quote.relevance < SIBLING_ROW_FLOOR * q.relevance for q, _ in table)
                      or asked and not alike and not (terms & asked) - set().union(*(said for _, said in table))):
            continue
        if chosen and used + _share(quote, lang) > 1:
            continue
        lean = _leaned_on(quote, placed, chosen)
        if lean is not None and used + _share(quote, lang) + _share(lean, lang) > 1:
            lean = None  # no room for both: the sentence alone, as said
        if len({q.source.unit_id for q in chosen} | {quote.source.unit_id}) > MAX_UNITS:
            continue
        if any(_repeats(terms, other) for other in seen):
            continue
        top = top if chosen else quote.relevance  # the best quote's, even when the sentence it leans on comes first
        points += 1
        for taken in (lean, quote):
            if taken is not None:
                chosen.append(taken)
                seen.append(set(tokenize(taken.span.words)) or {taken.span.words})
                used += _share(taken, lang)
    return _steps_between(_rungs_between(chosen, quotes), quotes, lang, 1 - used if asks_steps else 0)


#: At most this many rows of a table of ranges are quoted between two of its quoted rows (``_rungs_between``).
MAX_RUNGS = 4


def _rungs_between(chosen: list[Quote], quotes: Sequence[Quote]) -> list[Quote]:
    """``chosen`` with the rows of a table of ranges that lie between two of its quoted rows: "取消课程要收费吗" quoted
    "24 hours or more — free" and "under 12 hours — full lesson fee", and the reader never learnt of "12–24 hours —
    ¥50" between them (a new team's driving school). Only when each of those rows says a range or a bound
    (``row_ranges.covered``), as a scale's rungs do: the rows of a table of things are each their own answer."""
    out = list(chosen)
    ladders: dict[tuple[str, str], list[int]] = {}
    for quote in chosen:
        if quote.span.kind == "row" and covered(quote.span.label) is not None:
            ladders.setdefault((quote.source.chunk_id, quote.span.context), []).append(quote.span.position)
    for (chunk, context), positions in ladders.items():
        low, high = min(positions), max(positions)
        between = [q for q in quotes if q.span.kind == "row" and q.source.chunk_id == chunk and q.span.context == context
                   and low < q.span.position < high and q not in out]
        if len(between) <= MAX_RUNGS and all(covered(q.span.label) is not None for q in between):
            out += between
    return out


def _share(quote: Quote, lang: str) -> float:
    """The share of the length budget a quote's words take: of the larger of its own language's budget and the
    answer's. A question asked in Chinese of an English source had 400 characters of English, one or two sentences;
    Chinese quoted for an English question keeps the English budget (counted against 400, five dev facts were lost)."""
    return len(quote.span.words) / max(BUDGET_CHARS[answer_lang(quote.source.lang or lang)], BUDGET_CHARS[lang])


def _steps_between(chosen: list[Quote], quotes: Sequence[Quote], lang: str = "en", room: float = 0) -> list[Quote]:
    """``chosen`` with the steps of a numbered list between two of its quoted steps: a reader's "how to true a wheel"
    got steps (1) and (3), and step 2, the one to do, was left out for the length budget. ``room``: the share of
    the budget (``_share``) left when a procedure is asked, for the steps after the last one quoted: a new team's "I
    lost my ski pass, what do I do?" stopped at step 3 of 5, before "Pay the $10 replacement fee"."""
    out = list(chosen)
    for key in numbered(chosen):
        numbers = [q.span.ordinal for q in chosen if list_of(q) == key]
        low, high = min(numbers), max(numbers)
        out += [q for q in quotes if list_of(q) == key and low < q.span.ordinal < high and q not in out]
        after = [q for q in quotes if list_of(q) == key and q.span.ordinal > high and q not in out]
        for step in sorted(after if len(set(numbers)) > 1 else [], key=lambda q: (q.span.ordinal, q.span.position)):
            if _share(step, lang) > room:
                break
            room -= _share(step, lang)
            out.append(step)
    return out


def _authored_first(quotes: Sequence[Quote], authored: Sequence[str]) -> tuple[list[Quote], frozenset[str]]:
    """The quotes with the best of the nearest authored unit among the sources first, and that unit (none: as given)."""
    for unit in authored:
        best = next((q for q in quotes if q.source.unit_id == unit), None)
        if best is not None:
            return [best, *(q for q in quotes if q is not best)], frozenset({unit})
    return list(quotes), frozenset()


def _steps_first(quotes: Sequence[Quote], own: set[str]) -> tuple[list[Quote], list[Quote]]:
    """A procedure asked ("how do I acclimate new fish?"): the numbered list whose lead-in names what is asked
    ("Acclimating (the float and mix method)"), among the quotes stating nearly as much as the best, comes first,
    every step in order."""
    if not quotes:
        return list(quotes), []
    floor = STEPS_FLOOR * max(q.relevance for q in quotes)
    for quote in quotes:
        if quote.span.ordinal and quote.relevance >= floor and own & set(tokenize(quote.span.context)):
            key = list_of(quote)
            steps = sorted((q for q in quotes if list_of(q) == key), key=lambda q: q.span.position)
            if len({q.span.ordinal for q in steps}) > 1:
                return [*steps, *(q for q in quotes if q not in steps)], steps
    return list(quotes), []


def _leaned_on(quote: Quote, placed: dict[tuple[str, int], Quote], chosen: list[Quote]) -> Quote | None:
    """The sentence a quote points back to ("That is why …" after what it is why), when not quoted already."""
    if quote.span.leans_on < 0:
        return None
    lean = placed.get((quote.source.chunk_id, quote.span.leans_on))
    return None if lean is None or lean in chosen else lean


def _same_table(a: Quote, b: Quote) -> bool:
    return (a.span.kind == b.span.kind == "row" and a.source.chunk_id == b.source.chunk_id
            and a.span.context == b.span.context)


def _repeats(terms: set[str], other: set[str]) -> bool:
    """Mostly the same terms and the same numbers ("adults need 150 µg" twice, not 150 µg then 220 µg)."""
    numbers = {t for t in terms if t[:1].isdigit()}
    if numbers != {t for t in other if t[:1].isdigit()}:
        return False
    return len(terms & other) >= REDUNDANT * max(len(terms), len(other))


def _cite_ids(source: Source, inline: list[str], allowed: set[str] | None) -> list[str]:
    """The ids the span cites (its own, its paragraph's, its list's or table's: ``spans``); only the source's own, and
    only allowed ones. A span citing none is cited with all the source's ids only when its text cites nowhere inline
    (the author cited the unit as a whole); where it does elsewhere, the span's paragraph was left uncited and gets
    none: an IT help desk's answer credited NIST with a sentence of a paragraph that cites nothing."""
    own = [cid for cid in dict.fromkeys(source.citation_ids or ()) if isinstance(cid, str) and _ID_OK.match(cid)]
    if allowed is not None:
        own = [cid for cid in own if cid in allowed]
    if inline:
        return [cid for cid in inline if cid in own] or own
    return [] if _cites_inline(source.text) else own


@lru_cache(maxsize=1024)
def _cites_inline(text: str) -> bool:
    """Whether some span of ``text`` cites (a well-formed tag the answer can keep)."""
    return any(span.cited for span in spans(text))


def _shown(span: Span, lang: str, context_shown: bool = False, title: str = "", number: int = 0) -> str:
    """A span's words as quoted: a row or an item after what it sits under (unless already said in the line, or the
    title the line opens with says it: "…：症状对照表" then a row under "对照表"), a long one shortened; a step of a
    numbered list after its number ("(2) …", "（2）…"), when ``number``."""
    words = _shorten(_SPACE.sub(" ", span.words).strip(), SENTENCE_MAX_CHARS[lang])
    said = words
    if number:
        said = f"（{number}）{words}" if lang == "zh" else f"({number}) {words}"
    if _shows_context(span, context_shown, title):
        return f"{span.context}：{said}" if lang == "zh" else f"{span.context}: {said}"
    return said


def _shows_context(span: Span, context_shown: bool, title: str) -> bool:
    context = span.context.casefold()
    return ((span.kind != "sentence" or span.labelled) and bool(context) and not context_shown
            and context not in span.words.casefold() and context not in title.casefold())


def _joined(parts: list[str], lang: str) -> str:
    """Spans run on as sentences; a row or an item without end punctuation is closed by a full stop first."""
    out = ""
    for part in parts:
        if out and strip_tags(out).rstrip()[-1:] not in _END_PUNCT:
            out = out + ("。" if lang == "zh" else ".")
        out += part if lang == "zh" or not out else " " + part
    return out


def _title(source: Source, lang: str) -> str:
    title = plain_title(source.title)
    return ((f"{title}：" if lang == "zh" else f"{title}: ") if title else "")


def _not_repeated(quotes: list[Quote]) -> list[Quote]:
    """A unit's quotes but one whose words another of them holds whole: two chunks of a unit overlap by a
    sentence, and a reader got "这类机器按说明书用清洁片和清洁程序。" twice on one line."""
    words = [q.span.words.casefold() for q in quotes]
    return [q for i, q in enumerate(quotes)
            if not any(j != i and words[i] in other and (words[i] != other or j < i) for j, other in enumerate(words))]


def quoted_lines(chosen: Sequence[Quote], lang: str, allowed: set[str] | None) -> list[str]:
    """One line per unit, in the order of its best quote (``in_reading_order``); the unit's title once, a context
    once, a numbered list's steps with their numbers, each span then its tags."""
    by_source: dict[str, list[Quote]] = {}
    for quote in chosen:  # a unit's chunks (a document's sections) share one line and its title
        by_source.setdefault(quote.source.unit_id, []).append(quote)
    lines = []
    for quotes in by_source.values():
        quotes = _not_repeated(quotes)
        source = quotes[0].source
        text_lang = answer_lang(source.lang or lang)
        ordered = in_reading_order(quotes)
        steps = numbered(ordered)
        ids = [_cite_ids(q.source, q.span.cited, allowed) for q in ordered]
        # each span is cited; a run of spans citing the same ids is cited once, after its last span
        title = plain_title(source.title)
        parts, shown = [], set()  # the contexts the line has shown
        for i, q in enumerate(ordered):
            first_of_step = list_of(q) in steps and not (i > 0 and list_of(ordered[i - 1]) == list_of(q)
                                                          and ordered[i - 1].span.ordinal == q.span.ordinal)
            # a context is said once a line: shown before, or heading the span just before (a sentence under it)
            said = q.span.context in shown or (i > 0 and ordered[i - 1].span.context == q.span.context)
            if _shows_context(q.span, said, title):
                shown.add(q.span.context)
            parts.append(_shown(q.span, text_lang, said, title, q.span.ordinal if first_of_step else 0)
                         + ("" if i + 1 < len(ids) and ids[i + 1] == ids[i] else "".join(canonical_tag(c) for c in ids[i])))
        body = _joined(parts, text_lang)
        lines.append(f"{OTHER_LANGUAGE.get((lang, text_lang), '')}{_title(source, text_lang)}{body}")
    return lines


def extractive_answer(question: str, lang: str, sources: Sequence[Source], *, allowed: Iterable[str] | None = None,
                      focus: tuple[QuestionFocus, Lexicon] | None = None) -> str:
    """A lead line, then the quoted spans that best answer ``question``, grouped by source, each cited.

    ``allowed`` (the whitelist) narrows the ids further; by default every citation id of a
    quoted source may be cited. ``focus`` is the question as the knowledge base reads it, and the
    knowledge base's lexicon (``Retriever.focus``: idf-weighted terms, named topics); without it every
    term weighs the same and no topic is known.
    """
    return extractive_quotes(question, lang, sources, allowed=allowed, focus=focus)[0]


def extractive_quotes(question: str, lang: str, sources: Sequence[Source], *, allowed: Iterable[str] | None = None,
                      focus: tuple[QuestionFocus, Lexicon] | None = None) -> tuple[str, list[str]]:
    """``extractive_answer``, and the units it quotes (in the order quoted): what the answer rests on, which a
    shared citation id cannot tell (two units citing one guideline)."""
    lang = answer_lang(lang)
    allowed_set = set(allowed) if allowed is not None else None
    try:
        if focus is None:
            lexicon = plain_lexicon()
            focus = (lexicon.focus(question), lexicon)
        chosen = choose(candidates(focus[0], sources, focus[1]), lang, focus[0].asks_list, focus[0].own, focus[0].bridge,
                        focus[0].authored, focus[0].asks_steps)
        lines = quoted_lines(chosen, lang, allowed_set)
    except Exception:  # the fallback of last resort never raises
        chosen, lines = [], []
    if not lines:
        return NOTHING[lang], []
    units = list(dict.fromkeys(q.source.unit_id for q in chosen))
    return LEAD[lang] + "\n" + "\n".join(f"{n}. {line}" for n, line in enumerate(lines, 1)), units
