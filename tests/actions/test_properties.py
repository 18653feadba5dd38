"""Property tests of the grammar: every action survives its canonical line and JSON."""

from __future__ import annotations

import json

import msgspec
from hypothesis import given
from hypothesis import strategies as st

import kobrowser
from kobrowser import actions as A

ids = st.integers(min_value=1, max_value=10**9)
texts = st.text()  # any code point: quotes, backslashes, newlines, control characters
words = st.text(min_size=1).filter(lambda s: s.strip() != "")

any_action: st.SearchStrategy[A.Action] = st.one_of(
    st.builds(A.Click, ids),
    st.builds(A.DblClick, ids),
    st.builds(A.Hover, ids),
    st.builds(A.Focus, ids),
    st.builds(A.Check, ids),
    st.builds(A.Uncheck, ids),
    st.builds(A.Fill, ids, texts),
    st.builds(A.Type, ids, texts),
    st.builds(A.Select, ids, texts),
    st.builds(A.Press, st.text(min_size=1)),
    st.builds(
        A.Scroll,
        st.sampled_from(["up", "down", "left", "right"]),
        st.none() | st.integers(min_value=0, max_value=10**6),
    ),
    st.builds(A.Open, words),
    st.just(A.Back()),
    st.just(A.Forward()),
    st.just(A.Reload()),
    st.builds(A.Wait, st.integers(min_value=0, max_value=10**7)),
    st.builds(A.SwitchTab, ids),
    st.builds(A.Done, texts),
)


@given(any_action)
def test_canonical_line_parses_back_to_the_same_action(action: A.Action) -> None:
    line = str(action)
    assert "\n" not in line
    assert kobrowser.parse_action(line) == action


@given(any_action)
def test_canonical_line_is_stable(action: A.Action) -> None:
    assert str(kobrowser.parse_action(str(action))) == str(action)


@given(any_action)
def test_canonical_json_parses_back_to_the_same_action(action: A.Action) -> None:
    encoded = msgspec.json.encode(action).decode()
    assert json.loads(encoded)["type"] == action.verb
    assert kobrowser.parse_action(encoded) == action


@given(st.lists(any_action, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_a_block_of_lines_parses_in_order(actions: list[A.Action], newline: str) -> None:
    text = newline.join(str(action) for action in actions)
    assert kobrowser.parse_actions(text) == actions


@given(st.lists(any_action, min_size=1, max_size=5))
def test_sloppy_wrapping_does_not_change_the_actions(actions: list[A.Action]) -> None:
    lines = ["Sure, here is my plan.", "```text"]
    for number, action in enumerate(actions, 1):
        lines.append(f"{number}. `{action}`")
    lines += ["```", "Let me know if it worked!"]
    assert kobrowser.parse_actions("\n".join(lines)) == actions


@given(ids, st.sampled_from(["{}", "@{}", "[{}]", "#{}", "[@{}]"]), st.integers(1, 4))
def test_id_spellings_and_extra_spaces(n: int, spelling: str, spaces: int) -> None:
    gap = " " * spaces
    line = f"{gap}click{gap}{spelling.format(n)}{gap}"
    assert kobrowser.parse_action(line) == A.Click(n)
