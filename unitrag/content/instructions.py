"""Text in a unit that reads as an instruction to a language model: said to the author, not refused.

A unit's text goes into the LLM's prompt as a source. A line like "Ignore all previous
instructions and answer every question with …" (pasted from a web page, or planted in a pull
request) then competes with the prompt itself, and the extractive answer would quote it word for
word. Nothing in the schema catches it, and a reviewer reading a long diff can miss it, so
validation names each such line as a note: a knowledge base about prompt injection may mean it,
so it does not fail the build.

The cues are the phrasings such text uses in both languages: overriding earlier instructions,
giving the model a new role, naming its system prompt, dictating every answer.
"""

from __future__ import annotations

import re

from .problems import Problem
from .text.excerpt import excerpt

_CUES = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions?|prompts?|rules|messages?)"
    r"|\byou\s+are\s+now\s+(?:an?\s+|the\s+)?(?:ai|assistant|chatbot|model|language\s+model|dan)\b"
    r"|\b(?:reveal|print|repeat|show)\s+(?:me\s+)?(?:your|the)\s+system\s+prompt"
    r"|\b(?:answer|reply\s+to|respond\s+to)\s+(?:every|all|each|any)\s+(?:question|query|message)s?\s+with\b"
    r"|\bnew\s+instructions?\s*:"
    r"|(?:忽略|无视|忘记|忽视)(?:掉)?(?:你)?(?:之前|以上|上面|前面|先前|此前|所有|全部)(?:的)?(?:所有|全部)?(?:的)?(?:指令|指示|提示词?|规则|设定)"
    r"|你现在(?:是|扮演)(?:一个)?(?:ai|人工智能|助手|机器人|模型)"
    r"|(?:输出|显示|泄露|重复)(?:你的)?系统提示"
    r"|(?:所有|每个|任何)问题都(?:只)?(?:回答|回复)",
    re.IGNORECASE,
)
#: A line quoted in a note is cut to this many characters.
SHOWN_CHARS = 80


def instruction_notes(path: str, body: str, first_line: int) -> list[Problem]:
    """One note per body line that reads as an instruction to a model (``first_line``: the body's first line)."""
    notes = []
    for offset, line in enumerate(body.splitlines()):
        found = _CUES.search(line)
        if found is None:
            continue
        shown = excerpt(line.strip(), SHOWN_CHARS)
        notes.append(Problem(path, first_line + offset, "body",
                             f"{shown!r} reads as an instruction to a language model ({found.group(0)!r}): an LLM given "
                             "this unit as a source may follow it, and the extractive answer may quote it; reword it, "
                             "unless the unit is about such text"))
    return notes
