"""A sign happening now, told inside a longer question, is scored on its own sentence.

"I'm meal-prepping salmon for my cholesterol. Right now I've got a crushing feeling in my chest
spreading down my left arm. Bake or pan-fry?" is an emergency, but its embedding is mostly a
cooking question: the classifier's red-flag score on the whole text is 0.2 where the middle
sentence alone scores 0.9. People wrap an emergency in an ordinary question when they are
unsure it is one, or ashamed of it; a guard that reads only the whole question misses exactly them.

So when a question of several sentences tells one of the rules' signs as it is (a ``SIGN`` cue of
``framing``), its sentences that say something is happening now are embedded and scored too (one
batch). A sentence counts only when its own framing is acute and shows no other kind: not past,
study, hypothetical, and not a figure of speech ("this exam is killing me today"). The question's other sentences cannot make
it less urgent: acute cues always win (``framing``). Questions of one sentence, and questions
telling no sign, cost nothing extra.
"""

from __future__ import annotations

import re

from .framing import Framing, read_framing

#: Sentence ends: Chinese full stops, question and exclamation marks and semicolons; a Latin full stop
#: followed by a space or a Chinese character (``normalize_question`` folds 。 to "."; a decimal point
#: is not an end); line breaks.
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;…])|(?<=\.)(?=[\u3400-\u9fff])|(?<=[.!?])\s+|\n+")

#: At most this many sentences are embedded for one question (a batch; the longest questions are the rarest).
MAX_SENTENCES = 4

#: A sentence shorter than this (in characters) is too short to score on its own ("Help.", 救命): the
#: patterns and the whole question's score see it anyway.
MIN_CHARS = 8


def split_sentences(text: str) -> list[str]:
    """The question's sentences, stripped, empty ones dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def acute_sentences(text: str, framing: Framing) -> list[str]:
    """The sentences of ``text`` (normalised) worth scoring alone: each says something is happening now.

    Empty unless the question has two sentences or more and tells one of the rules' signs as it is
    (``framing.sign``): a time word alone ("this morning", "last week") is too weak, since a short
    sentence scored out of its question is easily over-read ("my stool has been dark since I started
    iron tablets last week").
    """
    if not framing.sign:
        return []
    sentences = split_sentences(text)
    if len(sentences) < 2:
        return []
    chosen = []
    for sentence in sentences:
        if len(sentence) < MIN_CHARS:
            continue
        own = read_framing(sentence)
        if own.acute and not own.kinds:  # no past, study, hypothetical ... and no figure of speech of its own
            chosen.append(sentence)
    return chosen[:MAX_SENTENCES]
