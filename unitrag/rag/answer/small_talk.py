"""A message that is only a greeting, a thanks, a goodbye or "who are you" gets a reply, not a "not found".

A new user's first message on the page is often "hi" or "你好". Searched as a question, it finds
nothing (or worse, something), and "the knowledge base has nothing that answers this question"
tells them nothing about what it does answer. Such a message is recognised only when *every*
word of it is small talk ("hi, how much vitamin D?" is a question and goes the usual way), so
the check cannot take a real question away from retrieval. The reply names the knowledge base
and, for a greeting or "what can you do", a few of its authors' own questions, so it shows the
domain the caller may ask about; it never states a fact from a unit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from .prompt import Identity

SmallTalk = Literal["greeting", "thanks", "farewell", "about"]

#: Phrases (after lower-casing, with punctuation, emoji and spaces between Chinese characters dropped), by kind.
_PHRASES: dict[SmallTalk, tuple[str, ...]] = {
    "greeting": ("hi", "hello", "hey", "hiya", "howdy", "yo", "good morning", "good afternoon", "good evening",
                 "morning", "hi there", "hello there", "hey there", "how are you", "how are you doing", "你好吗", "你好", "您好", "嗨", "哈喽", "哈啰", "早上好",
                 "上午好", "下午好", "晚上好", "早", "早安", "在吗", "在不在", "有人吗", "大家好"),
    "thanks": ("thanks", "thank you", "thx", "ty", "cheers", "many thanks", "thanks a lot", "thank you so much",
               "thank you very much", "thanks so much", "much appreciated", "great thanks", "ok thanks",
               "okay thanks", "thanks for the help", "thanks for your help", "thank you for the help",
               "thank you for your help", "thanks for helping", "thank you for helping", "appreciate it", "谢谢", "谢谢你", "谢谢您", "谢了", "多谢", "感谢", "非常感谢", "太感谢了", "辛苦了", "好的谢谢"),
    "farewell": ("bye", "goodbye", "good bye", "bye bye", "see you", "see ya", "good night", "再见", "拜拜", "晚安",
                 "回头见"),
    "about": ("who are you", "what are you", "what can you do", "what do you do", "what do you know",
              "what can i ask", "what can i ask you", "help", "how does this work", "你是谁", "你是什么",
              "你能做什么", "你会什么", "你可以做什么", "我能问什么", "我可以问什么", "能问什么", "怎么用", "帮助"),
}
#: Words that may stand beside a phrase without making a question of it ("hi bot", "thanks again").
_FILLERS = ("again", "bot", "assistant", "everyone", "all", "guys", "there", "so much", "a lot", "ok", "okay",
            "great", "awesome", "perfect", "cool", "nice", "got it", "you re great", "you are great", "you re the best",
            "you are the best", "very helpful", "that helps", "that helped",
            # Chinese sentence particles and praise: 谢谢啦, 好的呀, 太棒了
            "啊", "呀", "哦", "噢", "喔", "呢", "吧", "哈", "哈哈", "嗯", "啦", "嘛", "哟", "咯", "哒", "你", "您", "好的",
            "好", "太棒了", "真棒", "厉害")

_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)
#: At most this many characters of text make small talk: a long message is a question, whatever its words.
MAX_CHARS = 40


def _alternation(phrases: Sequence[str]) -> str:
    return "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))


_ANY = _alternation([p for phrases in _PHRASES.values() for p in phrases] + list(_FILLERS))
#: The whole message: phrases and fillers only, each Latin word standing alone (not "hi" of "high").
_ONLY = re.compile(rf"(?:(?:{_ANY})(?![a-z])\s*)+")
_PIECE = re.compile(rf"(?:{_ANY})(?![a-z])")
#: Each phrase's kind; a filler has none. A phrase is read whole: "help" in "thanks for the help" asks for none.
_KIND_OF = {phrase: kind for kind, phrases in _PHRASES.items() for phrase in phrases}


def small_talk(message: str) -> SmallTalk | None:
    """The kind of small talk ``message`` is, or None when any word of it asks something else."""
    if len(message) > MAX_CHARS:
        return None
    text = _SEPARATORS.sub(" ", message.lower()).strip()
    text = re.sub(r"(?<=[^\x00-\x7f]) (?=[^\x00-\x7f])", "", text)  # 你 好 → 你好
    if not text or not _ONLY.fullmatch(text):
        return None
    kinds = {_KIND_OF.get(piece) for piece in _PIECE.findall(text)}
    for kind in ("about", "greeting", "thanks", "farewell"):  # "hi, who are you?" asks what it is
        if kind in kinds:
            return kind  # type: ignore[return-value]
    return None  # fillers alone ("ok") ask nothing: the usual way


_REPLIES: dict[str, dict[SmallTalk, str]] = {
    "en": {"greeting": 'Hello! I answer questions from the knowledge base "{name}"{about}.',
           "about": 'I answer questions from the knowledge base "{name}"{about}, quoting its units and citing their sources.',
           "thanks": 'You\'re welcome. Ask me anything else about "{name}".',
           "farewell": "Goodbye!"},
    "zh": {"greeting": "你好！我回答知识库“{name}”中的问题{about}。",
           "about": "我根据知识库“{name}”回答问题{about}，引用其中的内容并注明出处。",
           "thanks": "不客气。关于“{name}”还有什么想问的，随时问我。",
           "farewell": "再见！"},
}
_EXAMPLES_LEAD = {"en": " For example: ", "zh": "例如："}
#: Example questions named at most.
EXAMPLES_SHOWN = 3


def small_talk_reply(kind: SmallTalk, lang: str, identity: Identity, examples: Sequence[str] = ()) -> str:
    """The reply to small talk of ``kind`` in ``lang``; a greeting or "what can you do" lists ``examples``."""
    lang = "zh" if lang.startswith("zh") else "en"
    said = identity.in_lang(lang)
    description = said.description.strip().rstrip("。.")
    about = (f"（{description}）" if lang == "zh" else f" ({description})") if description else ""
    text = _REPLIES[lang][kind].format(name=said.name, about=about)
    shown = list(dict.fromkeys(examples))[:EXAMPLES_SHOWN]
    if shown and kind in ("greeting", "about"):
        quoted = "、".join(f"“{q}”" for q in shown) if lang == "zh" else ", ".join(f'"{q}"' for q in shown)
        text += f"{_EXAMPLES_LEAD[lang]}{quoted}{'。' if lang == 'zh' else '.'}"
    return text
