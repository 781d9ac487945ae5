"""UserContext parses strictly at the edge: one type inside, a clear ValueError for anything else, never a grant."""

from __future__ import annotations

import pytest

from unitrag.errors import InvalidArgument, UserError
from unitrag.rag.types import UserContext, user_context


@pytest.mark.parametrize("roles", ["nonclinician", "clinician", {"clinician": False}, {"clinician": True}, 1, b"clinician"])
def test_roles_that_are_not_a_list_of_names_are_refused(roles):
    with pytest.raises(ValueError, match="roles"):
        UserContext(roles=roles)  # type: ignore[arg-type]


@pytest.mark.parametrize("roles", [["Clinician"], [1], [["clinician"]], [""], ["public"], ["on call"], ["x" * 33]])
def test_mistyped_role_names_are_refused(roles):
    with pytest.raises(ValueError, match="roles"):
        UserContext(roles=roles)


def test_a_role_spelled_right_is_checked_by_the_knowledge_base_not_here():
    """Which role a knowledge base has is its own (restricted_role): the context only checks the spelling."""
    assert UserContext(roles=["staff"]).roles == ("staff",)


@pytest.mark.parametrize("roles", [["clinician"], ("clinician",), {"clinician"}, frozenset({"clinician"}), ["clinician"] * 2])
def test_any_collection_of_roles_is_one_tuple_inside(roles):
    user = UserContext(roles=roles)
    assert user.roles == ("clinician",) and user.holds("clinician") and not user.holds("staff")


def test_no_role_is_a_public_caller():
    assert not UserContext().holds("clinician") and not UserContext(roles=[]).holds("clinician")


@pytest.mark.parametrize("field, value", [
    ("current_topic", ["sodium"]), ("current_topic", 5), ("current_topic", ""),
    ("triggered_rules", "rule-a"), ("triggered_rules", {"rule-a": 1}), ("triggered_rules", [None]),
    ("recent_scenes", "scene-a"), ("recent_scenes", 3), ("recent_scenes", [""]),
])
def test_other_fields_of_the_wrong_type_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        UserContext(**{field: value})


def test_from_dict_parses_json_shapes_and_refuses_the_leaky_ones():
    user = UserContext.from_dict({"roles": ["clinician"], "triggered_rules": ["r"], "recent_scenes": ["s"], "current_topic": "t"})
    assert user == UserContext(roles=("clinician",), triggered_rules=("r",), recent_scenes=("s",), current_topic="t")
    for data in ({"roles": {"clinician": False}}, {"roles": "nonclinician"}, {"roles": None}, {"role": ["clinician"]}):
        with pytest.raises(ValueError):
            UserContext.from_dict(data)
    with pytest.raises(ValueError, match="object"):
        UserContext.from_dict(["clinician"])  # type: ignore[arg-type]


def test_the_error_is_a_user_error_too_so_the_cli_prints_one_line():
    with pytest.raises(UserError):
        UserContext(roles="clinician")  # type: ignore[arg-type]


def test_a_huge_bad_value_gives_a_short_message():
    with pytest.raises(ValueError) as raised:
        UserContext(roles="x" * 100_000)  # type: ignore[arg-type]
    assert len(str(raised.value)) < 300


class UnprintableValue:
    """A caller's object whose ``__repr__`` raises (audit F7 f)."""

    def __repr__(self) -> str:
        raise RuntimeError("the caller's own repr failed")


@pytest.mark.parametrize("fields, argument", [
    ({"roles": [UnprintableValue()]}, "roles"),
    ({"roles": UnprintableValue()}, "roles"),
    ({"recent_scenes": [UnprintableValue()]}, "recent_scenes"),
    ({"triggered_rules": frozenset({UnprintableValue(), UnprintableValue()})}, "triggered_rules"),
    ({"current_topic": UnprintableValue()}, "current_topic"),
])
def test_a_field_whose_repr_raises_is_an_invalid_argument_naming_it(fields, argument):
    with pytest.raises(InvalidArgument, match=rf"^{argument}: .*UnprintableValue object whose repr\(\) failed"):
        UserContext(**fields)


def test_a_user_whose_repr_raises_is_an_invalid_argument_naming_user():
    with pytest.raises(InvalidArgument, match=r"^user: expected a UserContext.*UnprintableValue"):
        user_context(UnprintableValue())


def test_a_str_subclass_equal_to_everything_holds_no_role_it_does_not_name():
    """An attacker's audit: a ``str`` subclass whose ``__eq__`` says yes to every name was granted the restricted role."""

    class Everything(str):
        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return hash("clinician")

    user = UserContext(roles=[Everything("x")])
    assert user.roles == ("x",) and type(user.roles[0]) is str
    assert not user.holds("clinician")


def test_a_user_context_is_made_again_from_its_fields_before_it_is_believed() -> None:
    """An attacker's three ways past ``check_user``, which iterated ``roles`` and then asked ``holds``: a subclass
    saying yes to every role, a ``roles`` tuple whose ``in`` says yes, one set behind the frozen dataclass's back."""

    class HoldsAll(UserContext):
        def holds(self, role: str) -> bool:
            return True

    class Everyone(tuple):
        def __contains__(self, item: object) -> bool:
            return True

    tampered = UserContext()
    object.__setattr__(tampered, "roles", Everyone())
    for user in (HoldsAll(), tampered):
        plain = user_context(user)
        assert type(plain) is UserContext and plain.roles == () and not plain.holds("clinician")
    kept = user_context(UserContext(roles=["clinician"], current_topic="sodium"))
    assert kept.holds("clinician") and kept.current_topic == "sodium"
