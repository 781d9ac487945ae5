"""Signposts: the sentences that say what a text covers, never what is so.

Authors open a story with a map of it ("This article covers drainage holes, potting mix
and repotting", "本篇先讲氮磷钾的含义，再讲冬季的施肥频率") and close its summary with
the next sections' contents ("The first section covers …; the second, …"). Such a sentence
names every topic of the story, so it matches a question's terms better than any fact does,
and the extractive answer quoted it: "冬天要施肥吗" got "本篇先讲…再讲生长季与冬季的施肥频率"
instead of the scene that says to reduce or stop feeding. A signpost states no fact, so it
is never quoted (``rag.answer.extractive.candidates``); an audience line ("This section is for
workshop staff", 本节面向专业人员) is one too, and so is a summary told as a run of indirect questions
("How to bring new fish home …, and how to feed them afterwards: how much, how often …"), which a reader
asking "how do I acclimate new fish?" got as the first line of the answer.

The cues are sentence openings, per language, both tried on every span (a Chinese unit may
quote an English one). They need a word for a text ("article", 本篇) or a section ordinal
("the first section", 第一节) before a verb of telling, so a fact that starts "Below 5 °C…"
or "以下人群…需要…" is not one.
"""

from __future__ import annotations

import re

_TEXT_EN = r"(?:article|story|guide|page|section|post|piece|chapter|unit|document|note|overview|part|scene|entry)"
_TELLS_EN = (r"(?:covers?|explains?|describes?|shows?|gives?|sets? out|walks?|looks?|is about|are about|deals?|tells?|"
             r"lists?|goes|go|will|is for|are for|is written for|focus(?:es)?|summari[sz]es|introduces?|outlines?|"
             r"answers?|identifies|identify|turns? to|moves? on|then)")
_SECTION_EN = r"(?:section|chapter|scene|article)"
_ORDINAL_EN = r"(?:first|second|third|fourth|fifth|next|last|final|following|other|two|three|four)"

_EN = (
    # "This article covers …", "The guide below explains …", "This section is for workshop staff."
    rf"^(?:(?:this|the present|our) {_TEXT_EN}s?(?: below| that follows?| here)?|the {_TEXT_EN}s? (?:below|that follows?)) "
    rf"{_TELLS_EN}\b",
    # "The first section covers …; the second, …", "The next two sections explain …"
    rf"^(?:the )?{_ORDINAL_EN}(?: (?:two|three|four))? {_SECTION_EN}s?(?: below)? (?:{_TELLS_EN}|is|are)\b",
    # "Below, we explain …", "In this guide you will find …", "Here we look at …"
    rf"^(?:below|here|in (?:this|the) {_TEXT_EN}s?(?: below)?|in the {_ORDINAL_EN} {_TEXT_EN}),? "
    r"(?:we|you(?:'ll| will| can)?|i)\b",
    # "We'll cover …", "We start with …"
    r"^(?:we|i)(?:'ll| will| shall)? (?:cover|look at|explain|walk|go through|start with|begin with|turn to)\b",
    r"^(?:read on|see the (?:sections?|scenes?|articles?) below)\b",
)
_ZH = (
    # 本篇先讲…再讲…, 本文介绍…, 下面两节分别讲…, 以下按先易后难的顺序说明…, 本节面向专业人员
    r"^(?:本篇|本文|这篇|本节|这一节|这节|本章|本部分|下面|下文|以下|接下来|后面)[^。；！？]{0,14}?"
    r"(?:讲|介绍|说明|谈|列出|给出|分为|分成|涵盖|围绕|整理|总结|梳理|面向|适用于|写给|第[一二三四五六七八九十\d]+(?:节|部分))",
    # 第一节讲…，第二节讲…
    r"^第[一二三四五六七八九十\d]+(?:节|部分|篇|章)(?:先|再|主要|则)?(?:讲|介绍|说明|谈|是|给出|列出|面向)",
)
#: A summary told as a run of indirect questions: "How to bring new fish home …, and how to feed them afterwards: how
#: much, how often …", "How light, medium and dark roasts differ …, how long roasted beans keep …"; 如何…，以及如何….
_WH_EN = r"(?:how|what|why|when|which|where|whether)"  # the later questions; the first is a "how to" or a how, a why
_QUESTIONS = (
    re.compile(rf"^(?:how|what) to\b[^?]*?[,;:]\s*(?:and\s+)?{_WH_EN}\b[^?]*$", re.IGNORECASE),
    # "How X …" may be a sentence's subject ("How much you need depends on your age, and what you eat"): three of them
    re.compile(rf"^(?:how|why)\b(?:[^?]*?[,;:]\s*(?:and\s+)?{_WH_EN}\b){{2}}[^?]*$", re.IGNORECASE),
    re.compile(r"^(?:如何|怎样|怎么|为什么|什么时候)[^？?]*?[，、；：](?:以及|还有|和)?(?:如何|怎样|怎么|为什么|什么时候)[^？?]*$"),
)
_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (*_EN, *_ZH))
_DIGIT = re.compile(r"(?<![A-Za-z0-9.,-])\d")  # a quantity, not a name (B12, omega-3)
_LEAD = re.compile(r"^[\s\"'“‘(（\[【*_>#-]+")


def is_signpost(words: str) -> bool:
    """Whether a span only says what its text (or a section of it) covers or whom it is for."""
    text = _LEAD.sub("", words or "")
    if _DIGIT.search(text):  # "以下方法给出起点，之后每次微调 2–3 mm": a quantity is a fact, whatever the opening
        return False
    return any(p.search(text) for p in (*_PATTERNS, *_QUESTIONS))
