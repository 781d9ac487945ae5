"""A question in a language the knowledge base does not answer in is told so, not answered from a guess.

multilingual-e5 embeds a Japanese or Korean question near *something*, but the extractive answer, the
gate's topics and the guard's patterns read Chinese and English only: "ビタミンDは一日どれくらい必要ですか"
was answered with two sentences about iodine. The reply names the languages the knowledge base answers
in, once in each of them (the asker may read either), and states nothing from a unit.
"""

from __future__ import annotations

from collections.abc import Sequence

from .prompt import Identity

#: Each answered language's name, said in each answered language.
_NAMES = {"en": {"en": "English", "zh": "Chinese"}, "zh": {"en": "英文", "zh": "中文"}}
_ASK = {"en": 'The knowledge base "{name}" answers questions in {names}: please ask in {either}.',
        "zh": "知识库“{name}”只回答用{names}提出的问题，请用{either}提问。"}


def other_language_reply(languages: Sequence[str], identity: Identity) -> str:
    """One line per answered language (in ``languages``' order) naming them all and asking for one of them."""
    lines = []
    for lang in languages:
        names = [_NAMES[lang][other] for other in languages]
        if lang == "zh":
            joined, either = "或".join(names), "或".join(names)
        else:
            joined = " or ".join(names) if len(names) > 1 else f"{names[0]} only"
            either = "one of them" if len(names) > 1 else names[0]
        lines.append(_ASK[lang].format(name=identity.in_lang(lang).name, names=joined, either=either))
    return "\n".join(lines)
