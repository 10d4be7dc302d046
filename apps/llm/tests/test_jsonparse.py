import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.llm.jsonparse import extract_json, find_list


def test_it_reads_plain_json():
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json("[1, 2]") == [1, 2]


def test_it_reads_a_fenced_block_after_leading_prose():
    text = 'Sure! Here is your quiz:\n```json\n{"questions": [{"q": "Why?"}]}\n```\nEnjoy.'

    assert extract_json(text) == {"questions": [{"q": "Why?"}]}


def test_it_reads_an_unfenced_object_after_prose_and_before_chatter():
    assert extract_json('Here you go: {"title": "Cells"} Hope that helps!') == {"title": "Cells"}


def test_a_bare_array_is_fine():
    assert extract_json('Cards:\n[{"front": "A", "back": "B"}]') == [{"front": "A", "back": "B"}]


def test_a_citation_in_the_prose_does_not_shadow_the_answer():
    text = 'As shown in [1], the outline is {"lessons": ["Intro", "Cells"]}'

    assert extract_json(text) == {"lessons": ["Intro", "Cells"]}


def test_one_trailing_comma_pass_repairs_objects_and_arrays():
    assert extract_json('{"a": [1, 2,], "b": "x",}') == {"a": [1, 2], "b": "x"}


def test_a_trailing_comma_in_the_outer_list_is_repaired_not_traded_for_an_inner_object():
    text = '{"questions": [ {"q": "Why?", "a": 1}, {"q": "How?", "a": 2}, ]}'

    assert extract_json(text) == {"questions": [{"q": "Why?", "a": 1}, {"q": "How?", "a": 2}]}


def test_commas_inside_strings_are_left_alone():
    assert extract_json('{"a": "x,]", "b": [1,],}') == {"a": "x,]", "b": [1]}


@pytest.mark.parametrize(
    "text",
    ["", "no json here", "{'single': 'quotes'}", '{"truncated": [1, 2', "{a: 1}", "42", '"str"'],
)
def test_it_does_not_guess_beyond_that(text):
    assert extract_json(text) is None


def test_deep_nesting_is_not_a_crash():
    assert extract_json("[" * 100_000) is None


@given(st.text())
def test_it_never_raises_on_any_text(text):
    result = extract_json(text)

    assert result is None or isinstance(result, dict | list)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(
    st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=4), st.text(max_size=40)
)
def test_an_object_after_any_prose_without_brackets_comes_back_intact(value, prose):
    prose = prose.replace("{", "").replace("[", "")

    assert extract_json(f"{prose}\n{json.dumps(value)}") == value


def closing_brackets(text: str) -> list[int]:
    """Positions of the `}` and `]` of JSON text that are not inside a string."""
    positions, in_string, escaped = [], False, False
    for position, char in enumerate(text):
        if escaped:
            escaped = False
        elif in_string:
            escaped, in_string = char == "\\", char != '"'
        elif char == '"':
            in_string = True
        elif char in "}]":
            positions.append(position)
    return positions


@given(
    st.dictionaries(st.text(max_size=8), json_values, max_size=4) | st.lists(json_values), st.data()
)
def test_trailing_commas_before_any_closing_brackets_give_the_same_value(value, data):
    text = json.dumps(value, indent=data.draw(st.sampled_from([None, 2])))
    brackets = closing_brackets(text)
    chosen = data.draw(st.sets(st.sampled_from(brackets), min_size=1))
    broken = "".join(("," if i in chosen else "") + char for i, char in enumerate(text))

    assert extract_json(broken) == value


def test_find_list_takes_a_bare_array_a_named_key_or_the_only_list():
    assert find_list([1], "cards") == [1]
    assert find_list({"cards": [2], "other": [3]}, "cards") == [2]
    assert find_list({"deck": [4], "title": "x"}, "cards") == [4]
    assert find_list({"a": [1], "b": [2]}, "cards") == []
    assert find_list(None, "cards") == []
