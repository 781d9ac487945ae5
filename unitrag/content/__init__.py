"""The content model and its validation: what authors write and what is wrong with it."""

from .loader import ContentSet, LoadedUnit, load_content
from .models import Citation, Document, Rule, Scene, Story, Taxonomy, Topic, TopicGroup, Trigger
from .guard_model import GuardRule
from .problems import Problem
from .validate import cited_ids, validate_content

__all__ = [
    "Citation", "ContentSet", "Document", "GuardRule", "LoadedUnit", "Problem", "Rule", "Scene", "Story",
    "Taxonomy", "Topic", "TopicGroup", "Trigger", "cited_ids", "load_content", "validate_content",
]
