"""Broadening: a question about a topic group as a whole becomes one sub-query per member.

"What do the B vitamins do?" has no single best passage: the knowledge sits in the
units about B12, folate and B6, and one embedding of the whole question lands near
whichever is most generic. Asking once per member (from the taxonomy) and merging
the results gives every member a fair chance. A question that names a member
("is vitamin B12 one of the B vitamins?") is about that member and is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from ...artifact.bounded_sandbox import render_bounded
from ...artifact.prompts import TEMPLATE_ENV
from ...content.text.lang import normalize_question
from ...content.text.tokenize import EN_STOPWORDS

#: A line longer than this in an LLM's reply is prose, not a sub-query.
MAX_QUERY_CHARS = 300

_LEADING_MARK = re.compile(r"^(?:[-*•·]+|\(?\d+[.)、:]|[(（]\d+[)）]|[一二三四五六七八九十]+[、.])\s*")
_QUOTES = "\"'“”‘’「」"
_ALNUM = "A-Za-z0-9"


@dataclass(frozen=True)
class Broadening:
    """The group a question is about, its members and one sub-query per member (same order)."""

    group: str
    members: list[str]
    queries: list[str]
    via: Literal["template", "llm"] = "template"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


#: What an exclude's match is blanked with before a topic's mention is searched: neither a letter nor a space, so a
#: blanked word joins nothing to its neighbours and stays a word boundary; the same length, so positions hold.
_MASK = "\x00"


@dataclass(frozen=True)
class _Topic:
    id: str
    names: Mapping[str, str]
    mention: re.Pattern[str] | None  # any name or synonym, of either language
    #: Its false friends (``excludes`` in topics.yaml: 高铁 for 铁): a mention inside one does not count. None: no excludes.
    excludes: re.Pattern[str] | None = None

    def _visible(self, text: str) -> str:
        """``text`` with the excludes' matches blanked (the same length); ``text`` itself when there are none."""
        if self.excludes is None:
            return text
        return self.excludes.sub(lambda m: _MASK * len(m.group()), text)

    def find(self, text: str) -> re.Match[str] | None:
        """The first mention of the topic in (normalised) ``text`` outside its excludes; its span indexes ``text``."""
        if self.mention is None:
            return None
        return self.mention.search(self._visible(text))

    def mentions(self, text: str) -> Iterator[re.Match[str]]:
        """Every mention of the topic in (normalised) ``text`` outside its excludes, in order."""
        if self.mention is None:
            return iter(())
        return self.mention.finditer(self._visible(text))

    def replace(self, text: str, repl: Callable[[re.Match[str]], str] | str) -> str:
        """``text`` with every mention outside the excludes replaced (``re.sub``'s ``repl``)."""
        if self.mention is None:
            return text
        if self.excludes is None:
            return self.mention.sub(repl, text)
        out, end = [], 0
        for match in self.mention.finditer(self._visible(text)):
            out += [text[end:match.start()], repl if isinstance(repl, str) else repl(match)]
            end = match.end()
        return "".join(out) + text[end:]


#: "vitamin D" is typed "vit D", "vit. D", "vitD3"; "维生素D" is typed "维D", "维他命D" (a letter, maybe a number).
#: Bare "vit" needs a dot, a space or a number after the letter: "a vita drink" names no vitamin A.
_VITAMIN_WORDS = ((re.compile(r"vitamin[\s\-]*(?=[A-Ka-k][\s\-]?\d{0,2}$)", re.IGNORECASE),
                   r"(?:vitamin[\s\-]*|vit\.[\s\-]*|vit[\s\-]+|vit(?=[A-Ka-k][\s\-]?\d))"),
                  (re.compile(r"维生素(?=[A-Ka-k][\s\-]?\d{0,2}$)"), "(?:维生素|维他命|维)"))


#: A chemical element's symbol as a topic's synonym ("Fe", "Mg", "Zn"): matched with its case only.
_ELEMENT_SYMBOL = re.compile(r"[A-Z][a-z]")


def _spaced(form: str) -> list[str]:
    """A form's characters as regex parts, where a space or a hyphen stands for any run of either."""
    return [r"[\s\-]*" if ch in " -" else re.escape(ch) for ch in form]


def _form_pattern(form: str) -> str | None:
    """A name as a regex: spaces and hyphens interchangeable, an English plural 's' optional, whole words.

    Not where the singular is a stop word of the analyzer (``tokenize.EN_STOPWORDS``): "cans" matches "can" only as a
    noun (``_as_noun``), so "Where can I...?" names no topic.

    A vitamin's name also matches its everyday shorthand (``_VITAMIN_WORDS``).
    """
    form = normalize_question(form)
    if len(form) < 2 and form.isascii():
        return None  # "K", "C": as a word in a question it is almost never the nutrient
    prefix, first = "", form[0]
    for word, shorthand in _VITAMIN_WORDS:
        if match := word.match(form):
            prefix, form = shorthand, form[match.end():]
            break
    parts = [prefix, *_spaced(form)]
    plural = form.isascii() and form[-1] in "sS" and len(form) > 3
    if plural and form[:-1].lower() in EN_STOPWORDS:
        # "cans" without its s is the modal "can" ("Where can I...?", "Can you...?"): the singular only as a noun
        pattern = f"(?:{''.join(parts)}|{_as_noun(''.join(parts[:-1]))})"
    else:
        if plural:
            parts[-1] += "?"
        elif form.isascii() and form[-1].isdigit():
            parts[-1] += "s?"  # "omega-3s", "B12s": a plural after a number
        pattern = "".join(parts)
    if _ELEMENT_SYMBOL.fullmatch(form):
        pattern = f"(?-i:{pattern})"  # "Mg" is magnesium, "mg" a milligram: a chemical symbol keeps its case
    if re.match(f"[{_ALNUM}]", first):
        pattern = f"(?<![{_ALNUM}])" + pattern
    if re.match(f"[{_ALNUM}]", form[-1]):
        pattern += f"(?![{_ALNUM}])"
    return pattern


#: Words that make the next one a noun: "a can", "the can", "my can" (not "this", "that", "one": "this can be
#: recycled", "a bin that can take glass", "one can recycle it").
_DETERMINERS = ("a", "an", "the", "each", "every", "any", "my", "your", "our", "his", "her", "their", "its")


def _as_noun(word: str) -> str:
    """``word`` (a regex) where it can only be a noun: after a determiner ("a can", "the can"), before "of" ("can of
    beans"), or ending a clause ("an empty can?", "a soda can, rinsed"); a function word anywhere else names nothing."""
    behind = "|".join(f"(?<=(?<![{_ALNUM}]){d}\\s)" for d in _DETERMINERS)  # each look-behind of a fixed width
    return f"(?:(?:{behind}){word}|{word}(?=\\s+of(?![{_ALNUM}])|\\s*(?:[.?!,;:)]|$)))"


def _mention_regex(forms: Iterable[str]) -> re.Pattern[str] | None:
    forms = list(forms)
    patterns = {p for p in map(_form_pattern, forms) if p}
    if not patterns:
        return None
    # Case folding over all of Unicode made compiling the sample's 52 topics cost ~120 ms of every open; names
    # in English and Chinese need ASCII folding only (Chinese has no case), so that is used unless a name has
    # a cased letter beyond ASCII ("Crème"). Questions are NFKC-normalised first: full-width letters and
    # spaces are ASCII by then.
    unicode_case = any(not ch.isascii() and ch.lower() != ch.upper() for form in forms for ch in normalize_question(form))
    flags = re.IGNORECASE if unicode_case else re.IGNORECASE | re.ASCII
    return _longest_first(patterns, flags)


def _longest_first(patterns: Iterable[str], flags: int) -> re.Pattern[str]:
    """One alternation of ``patterns``, longest first, so "vitamin B complex" wins over a shorter form inside it."""
    return re.compile("|".join(sorted(patterns, key=lambda p: (-len(p), p))), flags)


def _exclude_regex(excludes: Iterable[str]) -> re.Pattern[str] | None:
    """Any of a topic's excludes, as typed in a normalised question (spaces and hyphens interchangeable); None: none."""
    patterns = set()
    for entry in excludes:
        form = normalize_question(entry)
        if form:
            patterns.add("".join(_spaced(form)))
    if not patterns:
        return None
    return _longest_first(patterns, re.IGNORECASE)


def _topic(row: Mapping[str, Any]) -> _Topic:
    forms = [row["name_en"], row["name_zh"], *(row.get("synonyms_en") or ()), *(row.get("synonyms_zh") or ())]
    mention = _mention_regex(forms)
    # rows of an artifact or database older than the column have no "excludes" key, or NULL: no excludes
    excludes = _exclude_regex(row.get("excludes") or ()) if mention is not None else None
    return _Topic(id=row["id"], names={"en": row["name_en"], "zh": row["name_zh"]}, mention=mention, excludes=excludes)


def _localized(topic: _Topic, lang: str) -> str:
    return topic.names.get(lang) or topic.names["en"]


def _in_sentence(name: str, at_start: bool, lang: str) -> str:
    """"Vitamin B12" reads "vitamin B12" mid-sentence; acronyms and Chinese stay as they are."""
    if lang == "zh" or len(name) < 2 or not (name[0].isupper() and name[1].islower()):
        return name
    return name if at_start else name[0].lower() + name[1:]


class Broadener:
    """The taxonomy's groups and member names, compiled once from rows of the ``topics`` table."""

    def __init__(self, topics: Iterable[_Topic], groups: Mapping[str, list[str]]) -> None:
        self.topics: dict[str, _Topic] = {t.id: t for t in topics}
        self.groups: dict[str, list[str]] = {g: [m for m in ms if m in self.topics] for g, ms in groups.items()}

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> "Broadener":
        rows = list(rows)
        return cls(
            topics=[_topic(r) for r in rows],
            groups={r["id"]: list(r.get("members") or ()) for r in rows if r["is_group"]},
        )

    def find_group(self, question: str) -> tuple[str, re.Match[str]] | None:
        """The group mentioned first (the longest mention on a tie), with that mention."""
        found: list[tuple[int, int, str, re.Match[str]]] = []
        for group_id, members in self.groups.items():
            match = self.topics[group_id].find(question) if members else None
            if match:
                found.append((match.start(), -len(match.group()), group_id, match))
        if not found:
            return None
        _, _, group_id, match = min(found, key=lambda f: f[:3])
        return group_id, match

    def names_member(self, question: str, group_id: str) -> bool:
        """True when the question names one of the group's members (outside the group's own mention)."""
        rest = self.topics[group_id].replace(question, " ")
        return any(self.topics[m].find(rest) for m in self.groups[group_id])

    def expand(self, question: str, lang: str) -> Broadening | None:
        """One sub-query per member, written by putting the member's name where the group was; None if not broad."""
        text = normalize_question(question)
        found = self.find_group(text)
        if found is None or self.names_member(text, found[0]):
            return None
        group_id = found[0]
        members = self.groups[group_id]
        group = self.topics[group_id]
        queries = [
            group.replace(text, lambda m, t=self.topics[member]: _in_sentence(_localized(t, lang), m.start() == 0, lang))
            for member in members
        ]
        return Broadening(group=group_id, members=list(members), queries=queries)

    def expand_with_llm(
        self, question: str, lang: str, complete: Callable[[str], str], template: str
    ) -> Broadening | None:
        """Let an LLM write the sub-queries (better phrasing); the template substitution when it fails.

        ``template`` is the artifact's ``broaden`` prompt (variables: question, group,
        members, lang). Its reply is read one sub-query per non-empty line; it is used
        when every member gets a line naming it, or when there is exactly one line per
        member. A raising callable or an unusable reply falls back to ``expand``.
        """
        base = self.expand(question, lang)
        if base is None:
            return None
        try:  # the artifact's template is data: sandboxed, and a template that does not render falls back too
            prompt = render_bounded(TEMPLATE_ENV.from_string(template), {
                "question": question,
                "group": _localized(self.topics[base.group], lang),
                "members": [_localized(self.topics[m], lang) for m in base.members],
                "lang": lang,
            })
            reply = complete(prompt)
        except Exception:  # any provider failure: the template answer is always available
            return base
        queries = self._assign(_reply_lines(reply if isinstance(reply, str) else ""), base.members)
        if queries is None:
            return base
        return Broadening(group=base.group, members=base.members, queries=queries, via="llm")

    def _assign(self, lines: list[str], members: list[str]) -> list[str] | None:
        """One line per member: the first line naming it, else by position when the counts agree."""
        if not lines:
            return None
        chosen: list[str] = []
        unused = list(lines)
        for member in members:
            topic = self.topics[member]
            line = next((ln for ln in unused if topic.find(normalize_question(ln))), None)
            if line is None:
                break
            chosen.append(line)
            unused.remove(line)
        else:
            return chosen
        return list(lines) if len(lines) == len(members) else None


def _reply_lines(reply: str) -> list[str]:
    """Non-empty lines without list markers or quotes; headings ("Sub-questions:") and prose dropped."""
    lines: list[str] = []
    for raw in reply.splitlines():
        line = _LEADING_MARK.sub("", raw.strip()).strip().strip(_QUOTES).strip()
        if not line or line.endswith((":", "：")) or len(line) > MAX_QUERY_CHARS or line in lines:
            continue
        lines.append(line)
    return lines
