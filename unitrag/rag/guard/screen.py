"""The first stage of every question: red flags and out-of-scope requests never reach retrieval.

A possible emergency gets the rule's fixed safe response and nothing else: no
retrieval, no LLM, so nothing can dilute or contradict it. An out-of-scope
request gets a refusal. Red flags are checked before out-of-scope rules, so a
question that is both ("my kid swallowed pills, can I sue?") gets the safety
message. Patterns of both languages are tried on every question, because a
Chinese question may quote English and the other way round; only the response
follows the question's language.

Patterns only stop the phrasings their authors foresaw, so a rule also fires when the
classifier the build fitted on its examples (``semantic``) scores the question's
embedding past its type's threshold; the embedding is the one retrieval uses (the query
encoder's cache hands it over), so similarity costs one small matrix product. The order
is red-flag patterns, red-flag similarity, out-of-scope patterns, out-of-scope similarity.
With an LLM configured, a score in the uncertain band gets a second opinion (``second_opinion``).

A red flag is then read against the question's framing (``framing``): when nothing in
it is happening now and it is clearly past, hypothetical, general, study or prevention, the
red flag does not stop it. The question is answered, with the rule's ``caution`` note when the
rule has one (a ``caution`` outcome), else as any other question; a figure of speech that alone made the classifier
find it ("this heat is killing me", nothing happening now) gets no note. A red flag found by similarity alone,
in a question that tells no sign and nothing happening now, is the rule's ``similar_without_sign``
to decide (a recent time word alone, "last week", 最近, does not count as now here): ``stop``;
``caution``, the note; ``unsure`` (the default), the note while the score is
under ``BARE_STOP`` and the rule has a note, unless the rules that always note (the suicide rule)
share ``WARNING_SHARE`` of it. Acute cues always stop, and a
sign told as it is ("he has gone grey and clammy") also stops a red-flag score a little under its
threshold (``SIGN_SHARE``; reason ``sign``) when the sign is of the kind the rule's own examples tell: a
warning sign of suicide for that rule, a bodily sign for the others. A question that tells a sign and still scores low, because
an ordinary question around it dilutes the embedding, has its sentences that say "now" scored alone
(``sentences``; reason ``sentence``).

Someone typing in a hurry misspells the very words the patterns and the sign cues look for ("chest
presure and short of breth started 30 mins ago" scored 0.53, then 0.45 as the background moved, while
spelled right a pattern stops it). So the patterns and the framing also read the question with each
English word the knowledge base does not know, one edit from a word of a rule's examples, replaced by
that word (``spell``: ``search.spelling.Speller.from_examples``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import cache, partial
from typing import Any

import numpy as np

from ...content.guard_rules import CHECK_ORDER, CompiledRule, compile_rule, first_match
from .framing import FIRE, SIGN, TURN, WARNING, Framing, may_tell_warning, read_framing
from .sentences import acute_sentences
from ..answer.prompt import UNNAMED
from .second_opinion import SecondOpinion
from .semantic import SemanticGuard, SemanticScore
from ...content.text.lang import normalize_question
from ...content.text.letters_as_read import digits_as_letters
from ..timing import timed
from ..types import GuardOutcome

#: A red-flag score this share of its threshold stops a question that tells one of the rules' signs as it is
#: (``framing.SIGN``): a long diet question around "my dad has gone grey and clammy" dilutes the embedding, and
#: the sign says the classifier's lean is right. Chosen on guard6 and guard8 (docs/benchmarks/guard.md).
SIGN_SHARE = 0.6
#: A red flag by similarity alone, in a question that tells no sign and nothing happening now, stops only from this
#: score when its rule has a caution note; under it the question is answered with the note. Everyday questions reach
#: 0.5-0.8 on bodily words alone ("春天花粉过敏打喷嚏流眼泪怎么办" 0.68 on anaphylaxis, "衣服上的血渍怎么清洗" 0.82);
#: an emergency told with nothing happening now is rare (docs/benchmarks/guard.md, stop 41).
BARE_STOP = 0.8
#: ... unless the rules that note every such question (``similar_without_sign: caution``, the suicide rule) hold this
#: much of the probability: a hidden suicide warning can reach a bodily rule's examples first (buying the means
#: online, close to the poisoning rule's pills), and is then stopped.
WARNING_SHARE = 0.25


class Guard:
    """Guard rules compiled once (case-insensitive), checked in ``CHECK_ORDER`` then file order.

    ``semantic`` and ``embed`` (the query encoder's ``encode``) add similarity; ``llm`` (a
    callable returning the configured LLM or None) adds the second opinion.
    """

    def __init__(
        self, rules: Iterable[CompiledRule], *, semantic: SemanticGuard | None = None,
        embed: Callable[[str], np.ndarray] | None = None, llm: Callable[[], Any] | None = None,
        service: str = UNNAMED.service(), embed_many: Callable[[list[str]], list[np.ndarray]] | None = None,
        spell: Callable[[str], str] | None = None,
    ) -> None:
        rules = list(rules)
        self.rules: tuple[CompiledRule, ...] = tuple(r for t in CHECK_ORDER for r in rules if r.type == t)
        self._by_id = {r.id: r for r in self.rules}
        self.semantic = semantic if embed is not None else None
        self._embed = embed
        # the sentences' vectors in one batch (``sentences``); one by one when only ``embed`` is given
        self._embed_many = embed_many or (lambda texts: [embed(t) for t in texts] if embed else [])
        # ``service``: what the knowledge base is (``Identity.service``), said to the second opinion
        self.second_opinion = SecondOpinion(llm, service=service) if llm is not None else None
        # ``spell``: the question with misspelled emergency words read as the rules' examples write them, for the
        # patterns (tried on the question as typed first) and the framing; the classifier reads it as typed
        self._spell = spell
        self._examples_read: dict[str, list[Framing]] = {}  # per rule, its examples' framings (read on first use)
        self._sign_kinds: dict[str, str] = {}  # per rule, the kind of sign most of its examples tell
        self._restricted: Guard | None = None  # ``for_restricted_role``, made once

    def check_restricted(self, question: str, lang: str, timings: dict[str, float] | None = None) -> GuardOutcome | None:
        """``check`` as the restricted role meets it: past the rules that exempt it (``for_restricted_role``), but a
        red flag the public would be stopped for comes as a caution with the rule's note (its ``caution``, else its
        response): the staff asking what to do when someone is on the track get their procedure and the safety line
        beside it, and the answer says which rule they were answered past (``reason: "exempt"``)."""
        restricted = self.for_restricted_role()
        outcome = restricted.check(question, lang, timings)
        if restricted is self or (outcome is not None and outcome.type == "red_flag"):
            return outcome
        public = self.check(question, lang, timings)
        if public is None or public.type != "red_flag" or not self._by_id[public.rule].exempt_restricted_role:
            return outcome
        rule = self._by_id[public.rule]
        note = rule.caution(lang) or public.response
        if outcome is not None and outcome.stops:  # refused for another reason: the refusal still says the safety line
            return replace(outcome, response=f"{outcome.response}\n\n{note}")
        return replace(public, type="caution", response=note, reason="exempt")

    def for_restricted_role(self) -> "Guard":
        """This guard without the rules the restricted role is exempt from (``exempt_restricted_role``): the staff
        asking about the emergency the public is stopped for are answered from their own procedures. The classifier
        still scores every rule; an exempt rule's score stops nobody here, and no other rule's takes its place."""
        if self._restricted is None:
            kept = tuple(r for r in self.rules if not r.exempt_restricted_role)
            if kept == self.rules:
                self._restricted = self
            else:
                restricted = copy.copy(self)
                restricted.rules, restricted._by_id, restricted._restricted = kept, {r.id: r for r in kept}, restricted
                self._restricted = restricted
        return self._restricted

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]], **options: Any) -> "Guard":
        """Build from rows of the artifact's ``guard_rules`` table; a bad rule is an error, never skipped."""
        return cls((compile_rule(row) for row in rows), **options)

    def check(self, question: str, lang: str, timings: dict[str, float] | None = None) -> GuardOutcome | None:
        """The first rule that stops the question, with its response in ``lang``; else a ``caution`` outcome (a red
        flag the framing made a note: answer, and show its note) or None (answer as any other question).

        ``timings`` gets ``embed`` (the question's vector, which retrieval then reuses) and
        ``guard`` (everything else) in milliseconds.
        """
        timings = {} if timings is None else timings
        started, embedded_before = time.perf_counter(), timings.get("embed", 0.0)
        text = normalize_question(question)
        spelled = digits_as_letters(text)  # "k1ll mys3lf": the patterns and the framing read the letters meant
        spelled = self._spell(spelled) if self._spell is not None and spelled else spelled
        framing = cache(partial(read_framing, spelled))  # read at most once, and only for a red flag or a score near one
        outcome, caution = None, None
        if text:
            scores: list[SemanticScore] | None = None  # computed once, when the first pattern-free type needs them
            for rule_type in CHECK_ORDER:
                outcome = self._by_pattern(text, rule_type, lang)
                if outcome is None and spelled != text:
                    outcome = self._by_pattern(spelled, rule_type, lang)
                if outcome is None and self.semantic is not None:
                    scores = self._scores(question, timings) if scores is None else scores
                    outcome = self._by_similarity(question, scores, rule_type, lang, framing)
                if rule_type == "red_flag" and self.semantic is not None and (outcome is None or outcome.reason == "similarity"):
                    # a sentence telling a sign now outranks the whole question's diluted nearest rule: an attacker's
                    # 我现在胸口剧痛 after a long diet question was stopped as the suicide rule, with its crisis line
                    told = self._by_sentence(question, lang, framing, timings)
                    if told is not None and (outcome is None or (told.score or 0.0) > (outcome.score or 0.0)):
                        outcome = told
                if outcome is not None and rule_type == "red_flag":
                    outcome, caution = self._framed(outcome, framing(), lang, scores)
                if outcome is not None:
                    break
            outcome = outcome or caution or (self._warned(framing(), lang) if may_tell_warning(spelled) else None)
        spent = (time.perf_counter() - started) * 1000 - (timings.get("embed", 0.0) - embedded_before)
        timings["guard"] = timings.get("guard", 0.0) + spent
        return outcome

    def scores(self, question: str) -> list[SemanticScore]:
        """The classifier's best rule per type for ``question`` (empty without a semantic guard): for evaluation."""
        if self.semantic is None or self._embed is None:
            return []
        return self.semantic.scores(self._embed(question))

    def caught_by_pattern(self, question: str, rule_type: str) -> bool:
        """Whether some rule of ``rule_type`` stops ``question`` by pattern alone (the fit counts these as stopped)."""
        return self._by_pattern(normalize_question(question), rule_type, "en") is not None

    def _framed(self, red_flag: GuardOutcome, framing: Framing, lang: str,
                scores: list[SemanticScore] | None) -> tuple[GuardOutcome | None, GuardOutcome | None]:
        """(the red flag, None) when it stands; (None, a caution or None) when the framing is clearly not acute."""
        rule = self._by_id[red_flag.rule]
        if "pet" in framing.kinds and self._about_animals(rule.id):  # a vet's rule: the animal is whom it is about
            framing = replace(framing, kinds=tuple(kind for kind in framing.kinds if kind != "pet"))
        similar = red_flag.reason == "similarity"  # by the classifier alone
        quiet = similar and (not framing.acute or framing.recent_only)  # nothing happening now but a recent time word
        noted = quiet and (rule.similar_without_sign == "caution"
                           or rule.similar_without_sign == "unsure" and self._unsure(red_flag, rule, scores, lang))
        # an animal's illness (``pet``): the rules' emergencies are a person's, whatever is happening to the dog now
        classifier_fooled = (framing.figurative or framing.explained or "pet" in framing.kinds) and similar
        if not (noted or framing.clearly_not_acute or classifier_fooled):
            return red_flag, None
        if quiet and framing.figurative:
            return None, None  # only the figure spoke ("this heat is killing me"): a crisis line under it reads as noise
        note = rule.caution(lang)
        if note is None:
            return None, None
        return None, replace(red_flag, type="caution", response=note, framing=framing.kinds)

    def _about_animals(self, rule: str) -> bool:
        """Whether ``rule``'s own examples tell of an animal (a vet clinic's "my dog ate grapes"): for such a rule an
        animal named is no sign that a person's emergency was mistaken (``pet``), so neither makes the question "not
        acute" nor says the classifier was fooled. A rule without examples is read as the sample's: about people."""
        return any("pet" in read.kinds for read in self._examples_framed(rule))

    def _examples_framed(self, rule: str) -> list[Framing]:
        """The framing of each of ``rule``'s examples, read once: what kind of sign they tell, whether of an animal."""
        if rule not in self._examples_read:
            texts = self.semantic.example_texts(rule) if self.semantic is not None else []
            self._examples_read[rule] = [read_framing(normalize_question(text)) for text in texts]
        return self._examples_read[rule]

    def _warned(self, framing: Framing, lang: str) -> GuardOutcome | None:
        """A warning sign of suicide told as it is, which nothing else stopped (the classifier scores means asked
        about beside a diet question near 0: "how high does a bridge have to be for a fall to be a sure thing"): the
        note of the rule that notes what it is unsure of (``similar_without_sign: caution``), never silence."""
        if WARNING not in framing.sign_kinds or framing.clearly_not_acute:
            return None
        noted = next(((r, note) for r in self.rules if r.type == "red_flag" and r.similar_without_sign == "caution"
                      and (note := r.caution(lang))), None)
        return None if noted is None else GuardOutcome(type="caution", rule=noted[0].id, response=noted[1],
                                                       reason="warning", framing=framing.kinds)

    def _unsure(self, red_flag: GuardOutcome, rule: CompiledRule, scores: list[SemanticScore] | None, lang: str) -> bool:
        """Whether the classifier alone is too unsure for the safe response (``BARE_STOP``, ``WARNING_SHARE``), and the
        rule has a note to show instead."""
        if (red_flag.score or 0.0) >= BARE_STOP or rule.caution(lang) is None:
            return False
        score = next((s for s in scores or () if s.type == "red_flag"), None)
        shares = score.shares if score is not None else {}
        warned = sum(p for name, p in shares.items()
                     if name in self._by_id and self._by_id[name].similar_without_sign == "caution")
        return warned < WARNING_SHARE

    def _by_pattern(self, text: str, rule_type: str, lang: str) -> GuardOutcome | None:
        rule = first_match(self.rules, text, rule_type)
        return None if rule is None else GuardOutcome(type=rule.type, rule=rule.id, response=rule.response(lang))

    def _scores(self, question: str, timings: dict[str, float]) -> list[SemanticScore]:
        assert self.semantic is not None and self._embed is not None
        with timed(timings, "embed"):
            vector = self._embed(question)
        return self.semantic.scores(vector)

    def _by_similarity(self, question: str, scores: list[SemanticScore], rule_type: str, lang: str,
                       framing: Callable[[], Framing]) -> GuardOutcome | None:
        for score in scores:
            rule = self._by_id.get(score.rule)
            if score.type != rule_type or rule is None:
                continue
            fires, opinion = score.fires, None
            if self.second_opinion is not None:
                fires, opinion = self.second_opinion.decide(question, score, rule.response("en"))
            considered = opinion is not None and opinion.match is not None  # an LLM that answered, not one that failed
            signed = (not fires and not considered and rule_type == "red_flag"
                      and score.score >= SIGN_SHARE * score.threshold and self._agrees(framing(), rule.id)
                      and not framing().sign_explained and not framing().sign_is_topic)
            if fires or signed:
                reason = "sign" if signed else "llm" if opinion is not None and not score.fires else "similarity"
                return _scored(rule, score, lang, reason)
        return None

    def _agrees(self, framing: Framing, rule: str) -> bool:
        """Whether the question tells a sign of the kind ``rule``'s examples tell (a warning sign for a suicide rule, a
        bodily one for the others; a turn, "that's what's happening to him", for any): "out of breath on the stairs
        and pale" lends nothing to a suicide score that a diet question happened to reach."""
        if not framing.sign_kinds:
            return False
        if rule not in self._sign_kinds:
            told = [read.sign_kinds for read in self._examples_framed(rule)]
            counts = {kind: sum(kind in kinds for kinds in told) for kind in (SIGN, WARNING, FIRE)}  # SIGN on a tie
            self._sign_kinds[rule] = max(counts, key=lambda kind: counts[kind])
        return TURN in framing.sign_kinds or self._sign_kinds[rule] in framing.sign_kinds

    def _by_sentence(self, question: str, lang: str, framing: Callable[[], Framing],
                     timings: dict[str, float]) -> GuardOutcome | None:
        """A red flag fired by one sentence that says something is happening now (``sentences``): of several, the one
        scored highest (a sentence on a yellowish face must not name the rule for the chest pain told after it)."""
        chosen = acute_sentences(question, framing)
        if not chosen:
            return None
        assert self.semantic is not None
        with timed(timings, "embed"):
            vectors = self._embed_many(chosen)
        fired = [(score, rule) for vector in vectors for score in self.semantic.scores(vector)
                 if score.type == "red_flag" and score.fires and (rule := self._by_id.get(score.rule)) is not None]
        if not fired:
            return None
        score, rule = max(fired, key=lambda pair: pair[0].score)  # the sentence that tells its sign most plainly
        return _scored(rule, score, lang, "sentence")

    def __len__(self) -> int:
        return len(self.rules)


def _scored(rule: CompiledRule, score: SemanticScore, lang: str, reason: str) -> GuardOutcome:
    """The outcome of ``rule`` fired by a classifier score (whole question, sign, LLM or sentence), with the score."""
    return GuardOutcome(type=rule.type, rule=rule.id, response=rule.response(lang), reason=reason, score=score.score,
                        threshold=score.threshold, nearest_example=score.nearest_example,
                        similarity=score.nearest_similarity)
