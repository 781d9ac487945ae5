"""The answer without an LLM: the sentences of the top sources that best match the question, cited.

When no LLM is configured or reachable, the user still gets the passages the
retriever judged best, in the question's language frame, each followed by
``<Cite/>`` tags for that source's citation ids only, so the faithfulness check
passes by construction. It is built from plain string operations and never raises:
it is the fallback of last resort.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..content.citation_tags import canonical_tag, find_tags, replace_tags, strip_tags
from .types import Source

LEAD = {"zh": "根据知识库资料：", "en": "From the knowledge base:"}
NOTHING = {"zh": "知识库中没有找到相关资料。", "en": "The knowledge base has nothing on this question."}
#: Said, in the question's language, before a source written in the other one (its text stays as written).
OTHER_LANGUAGE = {("zh", "en"): "以下内容来自英文资料：", ("en", "zh"): "The following is from a Chinese source: "}

#: Sources shown, and sentences taken from each.
TOP_SOURCES = 3
MAX_SENTENCES = 2
#: A second sentence is added only while the snippet stays under this many characters
#: (Chinese packs about three times as much into a character).
SNIPPET_CHARS = {"zh": 120, "en": 320}
#: A single sentence longer than this is cut at a word boundary.
SENTENCE_MAX_CHARS = {"zh": 160, "en": 400}

_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")
_LINE_MARK = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)")
# A line that is all bold ("**Targets for adults:**") heads what follows; it is a heading
# when it ends in a colon, has no end punctuation, or is short ("**安全性。**").
_BOLD_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(\*\*|__)(?P<text>[^*_]+?)\1\s*(?P<colon>[:：]?)\s*$")
_HEADING_CHARS = 40
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_SPACE = re.compile(r"\s+")
# A sentence ends at 。！？!? (plus closing quotes/brackets), at ；… runs, or at a "." followed by
# whitespace and not preceded by a common abbreviation or a single letter (e.g., Dr., U.S.).
_ZH_END = re.compile(r"[。！？!?]+[”’」』）)]*|…{1,2}")
_EN_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)(?<!\bNo)(?<!\bFig)(?<!\b[A-Z])\.[”’\")]*(?=\s|$|<)")
_ID_OK = re.compile(r'^[^"<>\s]+$')
_END_PUNCT = ".!?。！？…"


def answer_lang(lang: str) -> str:
    return "zh" if (lang or "").lower().startswith("zh") else "en"


def plain_text(text: str, *, keep_cites: bool = False) -> str:
    """Source text as running prose: no Markdown markers or headings, no tags (well-formed ``<Cite/>``
    kept on request, rewritten canonical and moved up against the word they follow)."""
    text = replace_tags(text or "", lambda t: canonical_tag(t.id) if keep_cites and t.id else "")
    text = _TAG.sub(lambda m: m.group(0) if _is_cite(m.group(0)) else "", text)
    lines = []
    for line in text.splitlines():
        if line.lstrip().startswith("#") or _TABLE_RULE.match(line) or _is_bold_heading(line):
            continue  # headings repeat the title or only announce what follows; table rules carry nothing
        lines.append(_LINE_MARK.sub("", line).replace("|", " "))
    text = _MD_LINK.sub(r"\1", "\n".join(lines))
    text = _MD_EMPHASIS.sub("", text)
    text = _SPACE.sub(" ", text).strip()
    return re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])", "", text)


def _is_cite(tag: str) -> bool:
    found = find_tags(tag)
    return len(found) == 1 and found[0].canonical and found[0].raw == tag


def _is_bold_heading(line: str) -> bool:
    m = _BOLD_LINE.match(line)
    if m is None:
        return False
    words = m.group("text").strip()
    ends = words[-1:]
    return bool(m.group("colon")) or ends in ":：" or ends not in _END_PUNCT or len(words) <= _HEADING_CHARS


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in strip_tags(text))


def _leading_tags(piece: str) -> int:
    """Where the citation tags at the very start of ``piece`` end (0 when it starts with words)."""
    end = 0
    for tag in find_tags(piece):
        if piece[end:tag.start].strip():
            break
        end = tag.end
    return end


def split_sentences(text: str) -> list[str]:
    """Sentences of Chinese, English or mixed prose, end punctuation kept.

    A ``<Cite/>`` written just after a full stop belongs to the sentence before it.
    """
    bounds = sorted({m.end() for m in _ZH_END.finditer(text)} | {m.end() for m in _EN_END.finditer(text)} | {len(text)})
    sentences: list[str] = []
    start = 0
    for end in bounds:
        piece = text[start:end].strip()
        start = end
        lead = _leading_tags(piece)
        if lead and sentences:
            sentences[-1] += piece[:lead].strip()
            piece = piece[lead:].strip()
        if not piece:
            continue
        if _has_words(piece) or not sentences:
            sentences.append(piece)
        else:
            sentences[-1] += piece  # stray punctuation or tags
    return [s for s in sentences if _has_words(s)]


def _shorten(sentence: str, limit: int) -> str:
    if len(sentence) <= limit:
        return sentence
    cut = sentence[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:，；：、") + "…"


def _best_start(sentences: list[str], question: str) -> int:
    """Index of the sentence sharing the most terms with the question (the first on ties or none)."""
    if not question:
        return 0
    from ..content.tokenize import tokenize

    wanted = set(tokenize(question))
    if not wanted:
        return 0
    overlaps = [len(wanted.intersection(tokenize(strip_tags(s)))) for s in sentences]
    best = max(overlaps)
    return overlaps.index(best) if best > 0 else 0


def snippet(text: str, lang: str, question: str = "") -> tuple[str, list[str]]:
    """One or two sentences of a source's text (two while they stay short), starting at the
    one that best matches the question, without tags, and the ids those sentences cite inline."""
    lang = answer_lang(lang)
    sentences = split_sentences(plain_text(text, keep_cites=True))
    if not sentences:
        return "", []
    sentences = sentences[_best_start(sentences, question):]
    chosen = [sentences[0]]
    first_len = len(strip_tags(sentences[0]))
    for sentence in sentences[1:MAX_SENTENCES]:
        if first_len + len(strip_tags(sentence)) > SNIPPET_CHARS[lang]:
            break
        chosen.append(sentence)
    ids = list(dict.fromkeys(t.id for sentence in chosen for t in find_tags(sentence) if t.id))
    shown = [_shorten(_SPACE.sub(" ", strip_tags(sentence)).strip(), SENTENCE_MAX_CHARS[lang]) for sentence in chosen]
    return ("" if lang == "zh" else " ").join(shown), ids


def _cite_ids(source: Source, inline: list[str], allowed: set[str] | None) -> list[str]:
    """The ids the chosen sentences cite, else all the source's citation ids; only the source's own,
    and only allowed ones."""
    own = [cid for cid in dict.fromkeys(source.citation_ids) if _ID_OK.match(cid)]
    if allowed is not None:
        own = [cid for cid in own if cid in allowed]
    return [cid for cid in inline if cid in own] or own


def _line(source: Source, lang: str, allowed: set[str] | None, seen: set[str], question: str) -> str | None:
    """One source's entry (title, best sentences, citations), or None when it adds nothing new."""
    text_lang = answer_lang(source.lang or lang)
    text, inline = snippet(source.text, text_lang, question)
    if not text or text in seen or source.chunk_id in seen:
        return None
    seen.update((text, source.chunk_id))
    cites = "".join(canonical_tag(cid) for cid in _cite_ids(source, inline, allowed))
    title = _SPACE.sub(" ", _TAG.sub("", source.title or "")).strip()
    head = (f"{title}：" if text_lang == "zh" else f"{title}: ") if title else ""
    return f"{OTHER_LANGUAGE.get((lang, text_lang), '')}{head}{text}{cites}"


def extractive_answer(question: str, lang: str, sources: Sequence[Source], *, allowed: Iterable[str] | None = None) -> str:
    """A lead line, then for each top source its title, first sentences and ``<Cite/>`` tags.

    ``allowed`` (the whitelist) narrows the ids further; by default every citation
    id of a shown source may be cited. ``question`` picks, within each source, the
    sentences that share the most terms with it.
    """
    lang = answer_lang(lang)
    allowed_set = set(allowed) if allowed is not None else None
    lines: list[str] = []
    seen: set[str] = set()
    for source in sources:
        if len(lines) >= TOP_SOURCES:
            break
        try:
            line = _line(source, lang, allowed_set, seen, question)
        except Exception:  # a malformed source must not cost the user the others
            continue
        if line:
            lines.append(f"{len(lines) + 1}. {line}")
    if not lines:
        return NOTHING[lang]
    return LEAD[lang] + "\n" + "\n".join(lines)
