import json

import pytest

from apps.chat.tools import Toolbox

pytestmark = pytest.mark.django_db


def run(user, name: str, arguments: dict) -> dict:
    return json.loads(Toolbox(user).run(name, arguments))


def test_arguments_a_tool_does_not_take_are_named_back_to_the_model(alice):
    assert run(alice, "calculator", {"expr": "1+1"}) == {
        "error": "calculator takes expression; it has no expr"
    }
    assert run(alice, "current_time", {"zone": "UTC"}) == {
        "error": "current_time takes no arguments; it has no zone"
    }


def test_a_tool_with_its_arguments_runs(alice):
    assert run(alice, "calculator", {"expression": "(17.5 * 3) / 4"})["result"] == 13.125
    assert "now" in run(alice, "current_time", {})


def test_a_bug_inside_a_tool_is_not_passed_off_as_wrong_arguments(alice, monkeypatch):
    def broken(self, expression=""):
        raise TypeError("a bug")

    monkeypatch.setattr(Toolbox, "calculator", broken)
    with pytest.raises(TypeError, match="a bug"):
        Toolbox(alice).run("calculator", {"expression": "1"})
