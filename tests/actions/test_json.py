"""Actions written as JSON objects, in the shapes models and other tools produce."""

from __future__ import annotations

import json

import pytest

import kobrowser
from kobrowser import actions as A


@pytest.mark.parametrize(
    ("obj", "action"),
    [
        ({"type": "input", "node_id": 3, "text": "hi"}, A.Fill(3, "hi")),
        ({"action": "click", "id": 5}, A.Click(5)),
        ({"type": "click", "id": 5}, A.Click(5)),
        ({"action": "click", "id": "@5"}, A.Click(5)),
        ({"verb": "dblclick", "element_id": 2}, A.DblClick(2)),
        ({"click": {"index": 5}}, A.Click(5)),
        ({"click_element_by_index": {"index": 5}}, A.Click(5)),
        ({"input_text": {"index": 2, "text": "a"}}, A.Fill(2, "a")),
        ({"action": "type", "ref": 4, "value": "abc"}, A.Type(4, "abc")),
        ({"action": "select_option", "id": 7, "option": "Blue"}, A.Select(7, "Blue")),
        ({"action": "press", "key": "Control+a"}, A.Press("Control+a")),
        ({"send_keys": {"keys": "Enter"}}, A.Press("Enter")),
        ({"action": "scroll", "direction": "up", "amount": 200}, A.Scroll("up", 200)),
        ({"scroll_down": {"amount": 300}}, A.Scroll("down", 300)),
        ({"action": "scroll"}, A.Scroll("down")),
        ({"go_to_url": {"url": "https://example.com"}}, A.Open("https://example.com")),
        ({"open": "example.com"}, A.Open("example.com")),
        ({"action": "go_back"}, A.Back()),
        ({"forward": {}}, A.Forward()),
        ({"action": "refresh"}, A.Reload()),
        ({"action": "wait", "ms": 500}, A.Wait(500)),
        ({"wait": {"seconds": 2}}, A.Wait(2000)),
        ({"switch_tab": {"page_id": 2}}, A.SwitchTab(2)),
        ({"action": "tab", "index": 3}, A.SwitchTab(3)),
        ({"done": {"text": "42", "success": True}}, A.Done("42")),
        ({"action": "done", "answer": "Paris", "reason": "found it"}, A.Done("Paris")),
        ({"name": "click", "arguments": '{"id": 9}'}, A.Click(9)),
        ({"tool": "fill", "args": {"id": 1, "text": "x"}}, A.Fill(1, "x")),
    ],
)
def test_json_shapes(obj: dict[str, object], action: A.Action) -> None:
    assert kobrowser.parse_action(json.dumps(obj)) == action


def test_lists_and_wrapped_lists() -> None:
    browser_use = {
        "current_state": {"next_goal": "log in"},
        "action": [{"input_text": {"index": 3, "text": "ada"}}, {"click_element": {"index": 4}}],
    }
    expected = [A.Fill(3, "ada"), A.Click(4)]
    assert kobrowser.parse_actions(json.dumps(browser_use)) == expected
    assert kobrowser.parse_actions(json.dumps({"actions": browser_use["action"]})) == expected
    assert kobrowser.parse_actions(json.dumps(browser_use["action"])) == expected


def test_pretty_printed_json_in_a_fence_among_lines() -> None:
    reply = """I will type and submit.
```json
{
  "action": "fill",
  "id": 3,
  "text": "multi\\nline"
}
```
click 4
"""
    assert kobrowser.parse_actions(reply) == [A.Fill(3, "multi\nline"), A.Click(4)]


def test_a_bracket_line_that_is_not_json_is_prose() -> None:
    assert kobrowser.parse_actions("[see the button above]\nclick 2") == [A.Click(2)]
    assert kobrowser.parse_actions("[1, 2]\nclick 2") == [A.Click(2)]
