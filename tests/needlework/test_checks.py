"""One check and one wording for "value must be one of the choices" (:mod:`needlework.checks`)."""

from __future__ import annotations

import pytest

from needlework.checks import is_one_of, one_of_message, require_one_of
from needlework.errors import NeedleworkError, SpecError


def test_a_value_among_the_choices_passes():
    assert require_one_of("layout", "spread", ("spread", "packed")) is None
    assert require_one_of("preset", "", ("", "paper")) is None
    assert require_one_of("style", "iso", {"iso": "{year}", "us": "{month}"}) is None  # a dict's keys


def test_the_message_names_what_lists_every_choice_in_order_as_repr_and_gives_the_value():
    with pytest.raises(SpecError) as caught:
        require_one_of("preset", "papr", ("", "paper"))
    assert str(caught.value) == "preset must be one of '', 'paper'; got 'papr'"
    assert one_of_message("count", "4", (4, 8)) == "count must be one of 4, 8; got '4'"


def test_what_may_carry_a_prefix_that_places_the_value():
    with pytest.raises(SpecError, match=r"^q-7: lang must be one of 'en', 'zh'; got 'fr'$"):
        require_one_of("q-7: lang", "fr", ("en", "zh"))


def test_the_error_is_a_spec_error_and_a_value_error():
    with pytest.raises(SpecError) as caught:
        require_one_of("task", "x", ("a",))
    assert isinstance(caught.value, NeedleworkError) and isinstance(caught.value, ValueError)


def test_an_unhashable_value_checked_against_a_dict_is_reported_not_a_type_error():
    with pytest.raises(SpecError, match=r"^domain must be one of 'law', 'math'; got \['law'\]$"):
        require_one_of("domain", ["law"], {"law": 1, "math": 2})
    assert not is_one_of(["law"], {"law": 1})
    assert is_one_of("law", {"law": 1})
