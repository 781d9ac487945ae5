"""A sign happening now, told inside a longer question, is scored on its own sentence.

"I'm meal-prepping salmon for my cholesterol. Right now I've got a crushing feeling in my chest
spreading down my left arm. Bake or pan-fry?" is an emergency, but its embedding is mostly a
cooking question: the classifier's red-flag score on the whole text is 0.2 where the middle
sentence alone scores 0.9. People wrap an emergency in an ordinary question when they are
unsure it is one, or ashamed of it; a guard that reads only the whole question misses exactly them.

So when a question of several sentences tells one of the rules' signs as it is (a ``SIGN`` cue of
``framing``), or says outright that something is happening now ("right now", "as we speak", 正在,
此刻: ``HAPPENING_NOW``; the sign cues are a health knowledge base's, and "the socket is smoking
right now. why?" tells no bodily sign), its sentences that say something is happening now are
embedded and scored too (one batch). A sentence counts only when its own framing is acute and shows no other kind: not past,
study, hypothetical, and not a figure of speech ("this exam is killing me today"). The question's
other sentences cannot make it less urgent: acute cues always win (``framing``). Questions of one
sentence, and questions telling no sign, cost nothing extra.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...content.text.lang import normalize_question
from ..answer.spans import split_sentences as prose_sentences
from .framing import Framing, read_framing

#: At most this many sentences are embedded for one question (a batch; the longest questions are the rarest).
MAX_SENTENCES = 4

#: A sentence shorter than this (in characters) is too short to score on its own ("Help.", 救命): the
#: patterns and the whole question's score see it anyway.
MIN_CHARS = 8

#: Words that say outright that something is happening as the question is typed, in any domain: unlike a time word
#: ("this morning", "last week", 昨天), they do not tell when something began but that it is going on.
HAPPENING_NOW = re.compile(
    r"\b(right now|just now|as we speak|as i type|at this (very )?moment|still (going on|happening))\b"
    r"|此刻|这会儿|就在刚才|眼下正|正在(?!接受|治疗|康复|恢复|吃药|服药|用药|调理|备孕|减肥|学习|上学|上班|做咨询|看心理|复查|写|准备|考虑|找|学|做)",
    re.IGNORECASE)


#: Where a clause of its own begins inside a sentence: after a semicolon. An attacker wrapped an emergency the guard
#: stops alone between two diet questions so ("…want more fiber; my chest feels like an elephant is sitting on it and
#: I'm sweating buckets; which cereals…"), and it passed.
CLAUSE_BREAK = re.compile(r"\s*[;；]\s*")
#: A comma's clause ("…lowest in sugar, given my wife has a squeezing pain behind her breastbone", "每天吃多少盐合适，
#: 我喘不上气，嘴唇发紫"): scored alone only when it tells a sign itself, happening now (a contrast, "but I'd kill for a
#: donut right now", or a past, "although I used to feel dizzy", is not one; a second attacker's).
COMMA = re.compile(r"\s*[,，]\s*")

#: A "sentence" longer than this (characters) is a run-on: it is read as the stretches around each "now" it says.
RUN_ON_CHARS = 240
#: A stretch around a "now" of a run-on: this many characters before it (the sign told with it) and after it.
BEFORE_NOW, AFTER_NOW = 100, 40


def split_sentences(question: str) -> list[str]:
    """The question's sentences: the answer's rule for prose (``answer.spans``), each line apart, since a chat
    message often breaks lines where a sentence ends without a full stop, and each clause after a semicolon apart
    (``CLAUSE_BREAK``). A run-on of more than ``RUN_ON_CHARS`` without a full stop ("…and whether I should take a
    multivitamin I have crushing chest pain right now", an attacker's 1,200 characters) gives the stretches around the
    "now"s it says, each a sentence, and its start."""
    sentences = []
    for sentence in (c for line in question.splitlines() for s in prose_sentences(line) for c in CLAUSE_BREAK.split(s)
                     if c.strip()):
        nows = list(HAPPENING_NOW.finditer(sentence)) if len(sentence) > RUN_ON_CHARS else []
        if not nows:
            sentences.append(sentence)
            continue
        sentences.append(_words_within(sentence, 0, RUN_ON_CHARS))
        sentences += [_words_within(sentence, m.start() - BEFORE_NOW, m.end() + AFTER_NOW) for m in nows]
    return sentences


def _words_within(text: str, start: int, end: int) -> str:
    """``text[start:end]`` (clamped) without the words the cut splits at either end."""
    start, end = max(0, start), min(len(text), end)
    piece = text[start:end]
    if start > 0 and not text[start - 1].isspace() and " " in piece:
        piece = piece.split(" ", 1)[1]
    if end < len(text) and not text[end].isspace() and " " in piece:
        piece = piece.rsplit(" ", 1)[0]
    return piece.strip()


def _plain(sentence: str) -> bool:
    """Whether a sentence shows no non-acute framing and no habit (每次感冒…): its comma clauses may be read alone,
    since a clause cut from "每次感冒嘴唇都起泡" loses the 每次 that made it no emergency."""
    whole = read_framing(normalize_question(sentence))
    return not whole.kinds and not whole.habitual


def acute_sentences(question: str, framing: Callable[[], Framing]) -> list[str]:
    """The sentences of ``question`` (as asked) worth scoring alone: each says something is happening now.

    Empty unless the question has two sentences or more (or a comma's clause, ``COMMA``, which counts only when it
    tells a sign itself) and tells one of the rules' signs as it is
    (``framing().sign``, read only for a question of several sentences) or says that something is
    happening now (``HAPPENING_NOW``): a time word alone ("this morning", "last week") is too weak,
    since a short sentence scored out of its question is easily over-read ("my stool has been dark
    since I started iron tablets last week").
    """
    sentences = split_sentences(question)
    if len(sentences) < 2 and not COMMA.search(question):  # one clause: the question itself, scored already
        return []
    if not (HAPPENING_NOW.search(normalize_question(question)) or framing().sign):
        return []
    clauses = [c for s in sentences if COMMA.search(s) and _plain(s) for c in COMMA.split(s) if c]  # its comma clauses
    if len(sentences) + len(clauses) < 2:
        return []
    whole = sentences if len(sentences) > 1 else []  # one sentence is the question itself: scored already
    candidates = [*((s, False) for s in whole), *((c, True) for c in clauses)]
    chosen = []
    for sentence, clause in candidates:
        if len(sentence) < MIN_CHARS:
            continue
        own = read_framing(normalize_question(sentence))
        # no past, study, hypothetical ... and no figure of speech of its own; a comma's clause must tell a sign
        if own.acute and not own.kinds and (own.sign or not clause):
            chosen.append(sentence)
            if len(chosen) == MAX_SENTENCES:
                break
    return chosen
