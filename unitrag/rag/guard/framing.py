"""How a question is framed: is what it names happening now, or is it past, hypothetical, general or study?

A red-flag pattern or the classifier says *what* a question is about; the framing says
whether it is an emergency. "My dad had a stroke last year, what should he eat now" and
"a school report on suicide prevention" name a red-flag condition but describe nothing
happening now; a safety message telling them to call emergency services teaches people
to ignore the guard.

The cues are data (``CUES``), per language; both languages are tried on every question, as
the guard's patterns are. Time, person and purpose cues are domain-neutral; ``ACUTE`` cues
(signs happening now: "right now", "since this morning", "is here with me", 刚才, 正在, 突然)
and ``SIGN`` cues (the red-flag rules' signs told as they are: sweating, can't breathe, not
answering, giving one's things away, a drooping face) both say "now", since a present-tense
symptom carries no time word. Acute cues always win: a diet question wrapped around chest pain happening now stays an
emergency, and a recent event (yesterday, last week, 最近: ``RECENT``) counts as now, except for a rule that notes
what its classifier alone finds (``Framing.recent_only``: the suicide rule). The other kinds
(past, hypothetical, general, study, prevention, curiosity, diet after an event) count only
when no acute cue is present; the everyday cause of a sign named, or an ordinary occasion for a
goodbye (``EXPLAINED``), counts the same way but against the classifier only, never against a
rule's pattern. Erring acute costs a false alarm; erring not acute, a missed emergency: when in
doubt a cue goes to ``ACUTE``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...content.text.literal_prefilter import fold, prefilter_of
from .cues import (  # noqa: F401  (the kinds are re-exported: callers name them from here)
    ACUTE, CUES, EXPLAINED, FIGURE_OF_SPEECH, FIRE, HABITUAL, NOW, RECENT, SIGN, SIGN_KINDS, TURN, WARNING,
)


@dataclass(frozen=True)
class Framing:
    """The cue kinds a question shows: ``acute`` or not, and the non-acute kinds found (past, study, ...)."""

    acute: bool
    kinds: tuple[str, ...]
    sign: bool = False  # among the acute cues, a sign told as it is (``SIGN``, ``WARNING``, ``TURN``), not only a time word
    sign_kinds: tuple[str, ...] = ()  # which of those kinds were told
    recent_only: bool = False  # acute only by a recent time word (``RECENT``): no sign, no "now", no other acute cue
    habitual: bool = False  # a symptom told as coming with an occasion, again and again (``HABITUAL``)
    timed_only: bool = False  # acute by a time word alone ("this morning", 昨天): no sign told, no "now"

    @property
    def clearly_not_acute(self) -> bool:
        """Some non-acute framing and no sign happening now: a pattern alone must not stop this question."""
        return any(kind not in EXPLAINED for kind in self.kinds) and not self.acute

    @property
    def explained(self) -> bool:
        """The asker names an everyday cause or occasion and nothing happens now ("black stools since I started iron",
        "saying goodbye to my coworkers"). For the classifier, which the symptom or the goodbye fools; a rule's
        pattern is its author's own words, in any domain, and these health-worded cues do not overrule it."""
        return any(kind in EXPLAINED for kind in self.kinds) and (not self.acute or self.timed_only)

    @property
    def sign_explained(self) -> bool:
        """An everyday cause named ("numb at the dentist") or a symptom told as coming with an occasion ("I get out of
        breath on the stairs"): a sign told beside it lends a score under the threshold no weight (``rag.guard.screen``)."""
        return "everyday_cause" in self.kinds or self.habitual

    @property
    def sign_is_topic(self) -> bool:
        """The question is about preventing it ("how do I childproof the cabinets so my kid doesn't swallow pills"): a
        sign named there is what it is about, not what is happening, and lends a score under the threshold no weight. A
        score past the threshold still stops it. Not a study framing: a teacher quotes a student's warning in one."""
        return "prevention" in self.kinds

    @property
    def figurative(self) -> bool:
        """A figure of speech and no sign told as it is ("that finale killed me last night", 昨晚被对面血虐): a time word
        beside a figure does not make it literal. For the classifier, which the violent word fools; a rule's pattern is
        its author's own words ("my battery got crushed last night and it's smoking") and keeps the time word's say."""
        return FIGURE_OF_SPEECH in self.kinds and not self.sign


_COMPILED: dict[str, tuple[re.Pattern[str], ...]] = {
    kind: tuple(re.compile(source, re.IGNORECASE) for lang in ("en", "zh") for source in by_lang.get(lang, ()))
    for kind, by_lang in CUES.items()
}


#: A future "some day" just before a sign makes the sign imagined, not happening: "万一哪天我低血糖晕倒了",
#: "if he ever starts slurring". Only within ``SOMEDAY_REACH`` characters of the sign and the same clause.
SOMEDAY = re.compile(r"(万一|如果|假如|要是|假设)?(哪天|哪一天|有一天|某天|将来)|(万一|如果|假如|要是|假设)以后|\bif ([\w']+ ){0,3}ever\b|\b(some ?day|one day)\b",
                     re.IGNORECASE)
SOMEDAY_REACH = 20
#: ... and a clearly past time just before it makes it a memory: "上次怀孕流产大出血", "last year he was slurring". Never
#: 之前 or "earlier", which also mean "earlier today".
BEFORE_NOW = re.compile(r"上次|上一次|上回|上一胎|去年|前年|以前|曾经|小时候|(\d+|[一二两三四五六七八九十几]+)年前|"
                        r"\blast (year|time|pregnancy)\b|\b(years|months) ago\b|\b(in|back in) (19|20)\d\d\b|\bwhen (i|he|she) was\b",
                        re.IGNORECASE)
#: ... and so does a film's or a series' scene: "电影里主角吃了虾喉咙就肿起来" is the film's.
NOT_REAL = re.compile(r"电影里|电影中|电视剧里|剧里|剧中|小说里|动画片?里|\b(in|on) (the|a|this|that) (movie|film|show|series|book|novel|"
                      r"episode|drama|cartoon|anime|soap)\b", re.IGNORECASE)
#: ... unless the past runs on to now ("去年开始", "since last year") or a "now" follows it ("2 years ago and right now").
STILL_NOW = re.compile(r"^\s*(开始|起|以来|到现在|至今)|\b(now|today|tonight|this (morning|evening))\b|现在|今天|此刻|刚才|刚刚|这会儿",
                       re.IGNORECASE)
_CLAUSE_END = re.compile(r"[，。！？；,.!?;\n]")
#: Beside these kinds a time word tells when, not that it is happening: what is over ("this morning, gone within
#: minutes"), a screen's scene (昨晚电视剧里孕妇摔倒出血) ...
OVER = ("resolved", "fiction")
#: ... and beside these, a recent time word alone ("last week ... poison control said she'd be fine").
OVER_BY_NOW = ("past", *OVER)


def _before_now(before: str) -> bool:
    """Whether ``before`` (the start of a sign's clause) puts the sign in the past: a past time not running on to now."""
    past = [m for m in BEFORE_NOW.finditer(before) if not before[max(0, m.start() - 6):m.start()].lower().endswith("since ")]
    return bool(past) and not STILL_NOW.search(before[past[-1].end():])


def _happening(pattern: re.Pattern[str], text: str, told: bool = False) -> bool:
    """Whether ``pattern`` finds a cue that no nearby "some day" of its own clause puts in an imagined future, nor, for a
    sign told as it is (``told``), a past time in the past."""
    for found in pattern.finditer(text):
        before = _CLAUSE_END.split(text[max(0, found.start() - SOMEDAY_REACH):found.start()])[-1]
        if SOMEDAY.search(before):
            continue
        if not told:
            return True
        after = _CLAUSE_END.split(text[found.end():found.end() + SOMEDAY_REACH])[0]  # "swallowed a magnet last year"
        if not (_before_now(before) or _past_after(after) or NOT_REAL.search(before)):
            return True
    return False


def _past_after(after: str) -> bool:
    """Whether a clearly past time follows a sign in its clause ("swallowed a magnet last year", 吐过血三年前)."""
    found = BEFORE_NOW.search(after)
    return found is not None and not STILL_NOW.search(after[:found.start()])


def _cues(kind: str, folded: str) -> list[re.Pattern[str]]:
    """The cue patterns of ``kind`` that may match the question ``folded`` was made from (``literal_prefilter``): a
    pattern none of whose words the question holds cannot match, and is not searched."""
    return [p for p in _COMPILED[kind] if prefilter_of(p.pattern, p.flags).may_match(folded)]


def may_tell_warning(normalized_question: str) -> bool:
    """Whether a warning sign's cue (``WARNING``) appears anywhere: a cheap first look (a tenth of ``read_framing``'s
    time), so an ordinary question never pays for the whole framing."""
    return any(p.search(normalized_question) for p in _cues(WARNING, fold(normalized_question)))


def _without_figures(text: str, folded: str) -> tuple[str, bool, str]:
    """``text`` with each figure of speech (``FIGURE_OF_SPEECH``) blanked, for reading the signs it tells (a sign
    said beside a figure still counts: "this deadline is killing me, and my chest has been crushing for 20 min"),
    whether it had one, and the blanked text ``fold``-ed (``folded``: the text's, read again only once it changes)."""
    found = 0
    for pattern in _COMPILED[FIGURE_OF_SPEECH]:
        if not prefilter_of(pattern.pattern, pattern.flags).may_match(folded):  # read on the text as blanked so far
            continue
        text, n = pattern.subn(lambda m: " " * len(m.group(0)), text)
        if n:
            found, folded = found + n, fold(text)
    return text, found > 0, folded


def read_framing(normalized_question: str) -> Framing:
    """The framing of a question (already ``lang.normalize_question``-ed): a few compiled regexes, microseconds."""
    # a sign's words inside a figure of speech are the figure's ("lmaooo I can't breathe", "my bank account is bleeding")
    folded = fold(normalized_question)  # what the cues' prefilters read (``_cues``)
    told, figurative, told_folded = _without_figures(normalized_question, folded)
    sign_kinds = tuple(kind for kind in SIGN_KINDS
                       if any(_happening(p, told, told=True) for p in _cues(kind, told_folded)))
    sign = any(kind != FIRE for kind in sign_kinds)  # a fire is a sign only to a rule that tells fires (``Guard._agrees``)
    kinds = tuple(kind for kind in _COMPILED
                  if kind not in (ACUTE, NOW, RECENT, HABITUAL, *SIGN_KINDS)
                  and (figurative if kind == FIGURE_OF_SPEECH
                       else any(p.search(normalized_question) for p in _cues(kind, folded))))
    now = "past" not in kinds and "resolved" not in kinds \
        and any(_happening(p, normalized_question) for p in _cues(NOW, folded))
    timed = (not any(kind in kinds for kind in OVER) or sign or now) \
        and any(_happening(p, normalized_question) for p in _cues(ACUTE, folded))
    strong = sign or now or timed
    recent_only = not strong and not any(kind in kinds for kind in OVER_BY_NOW) \
        and any(_happening(p, normalized_question) for p in _cues(RECENT, folded))
    habitual = any(p.search(normalized_question) for p in _cues(HABITUAL, folded))
    return Framing(strong or recent_only, kinds, sign, sign_kinds, recent_only=recent_only, habitual=habitual,
                   timed_only=(timed or recent_only) and not (sign or now))
