"""The action grammar on examples: sloppy model outputs parse, malformed lines fail exactly."""

from __future__ import annotations

import pytest

import kobrowser
from kobrowser import ActionSyntaxError
from kobrowser import actions as A


def test_canonical_lines_of_every_verb() -> None:
    text = "\n".join(A.USAGE.values())
    assert kobrowser.parse_actions(text) == [
        A.Click(5),
        A.DblClick(5),
        A.Hover(5),
        A.Focus(5),
        A.Fill(3, "text"),
        A.Type(3, "text"),
        A.Press("Enter"),
        A.Select(7, "Option label"),
        A.Check(4),
        A.Uncheck(4),
        A.Scroll("down", 600),
        A.Open("https://example.com"),
        A.Back(),
        A.Forward(),
        A.Reload(),
        A.Wait(1000),
        A.SwitchTab(2),
        A.Done("answer"),
    ]
    assert set(A.USAGE) == set(A.VERBS)
    for line in A.USAGE.values():
        assert str(kobrowser.parse_action(line)) == line


def test_escapes_in_strings() -> None:
    action = kobrowser.parse_action(r'fill 3 "say \"hi\"\\now\nthen"')
    assert action == A.Fill(3, 'say "hi"\\now\nthen')
    assert str(action) == r'fill 3 "say \"hi\"\\now\nthen"'
    # An unknown escape keeps its backslash (a Windows path typed by a model).
    assert kobrowser.parse_action(r'type 2 "C:\temp\x"') == A.Type(2, "C:\temp\\x")


def test_a_sloppy_model_reply() -> None:
    reply = """Sure! I can see the search box (id 3) and the button [5].
```
fill [3] "kobrowser"
press Enter
```
- `click @5`
Action: click 5
1. fill 3 'two words'.
CLICK   #5
Click the blue button first, then wait.
scroll down 300px
wait 1.5s
Done.
done The answer is 42.
"""
    assert kobrowser.parse_actions(reply) == [
        A.Fill(3, "kobrowser"),
        A.Press("Enter"),
        A.Click(5),
        A.Click(5),
        A.Fill(3, "two words"),
        A.Click(5),
        A.Scroll("down", 300),
        A.Wait(1500),
        A.Done("The answer is 42"),
    ]


def test_prose_only_gives_no_actions() -> None:
    assert kobrowser.parse_actions("I think the page is still loading.\n\nLet me look.") == []
    assert kobrowser.parse_actions("") == []


def test_bare_words_and_units() -> None:
    assert kobrowser.parse_actions("fill 3 hello\npress Control+a\nopen example.com/a?b=1") == [
        A.Fill(3, "hello"),
        A.Press("Control+a"),
        A.Open("example.com/a?b=1"),
    ]
    assert kobrowser.parse_action("wait 250ms") == A.Wait(250)
    assert kobrowser.parse_action("scroll UP") == A.Scroll("up")
    assert kobrowser.parse_action("done") == A.Done("")
    assert kobrowser.parse_action('Done "Paris"') == A.Done("Paris")


def test_keys_and_urls_that_need_quotes_are_printed_quoted() -> None:
    assert str(A.Press(".")) == 'press "."'
    assert str(A.Press("Control+a")) == "press Control+a"
    assert str(A.Open("https://x.test/a b")) == 'open "https://x.test/a b"'
    assert kobrowser.parse_action('press "."') == A.Press(".")


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("click", 1, 6, "click needs 1 argument"),
        ("click 5 6", 1, 9, "click takes 1 argument"),
        ("fill 3", 1, 7, "fill needs 2 arguments"),
        ('fill 3 "a" "b"', 1, 12, "fill takes 2 arguments"),
        ("fill 3 hello world", 1, 8, "quote the text"),
        ("back 2", 1, 6, "back takes no argument"),
        ("press", 1, 6, "press needs 1 argument"),
        ("tap 5", 1, 1, "unknown action 'tap'"),
        ("clik 5", 1, 1, "did you mean `click 5`"),
        ("goto https://example.com", 1, 1, "write `open https://example.com`"),
        ("click the button", 1, 7, "expected an id"),
        ("click 0", 1, 7, "ids start at 1"),
        ('fill 3 "unterminated', 1, 8, "unterminated string"),
        ('fill 3 "a"b', 1, 11, "space after the closing quote"),
        ("scroll sideways", 1, 8, "up, down, left or right"),
        ("wait soon", 1, 6, "expected milliseconds"),
        ("wait 10px", 1, 6, "expected milliseconds"),
        ("tab x", 1, 5, "expected a tab number"),
        ("Sure.\n\n  click 4 4", 3, 11, "click takes 1 argument"),
        ('{"action": "click"', 1, 19, "invalid JSON"),
        ('{"action": "clack", "id": 1}', 1, 1, "unknown action 'clack'"),
        ('{"action": "click"}', 1, 1, "click needs an element id"),
        ('{"action": "click", "id": "five"}', 1, 1, "must be a number"),
        ('{"thought": "hmm"}', 1, 1, "no action in this JSON object"),
        ('  {"action": "click", "id": 5} click 6', 1, 32, "unexpected text after the JSON"),
    ],
)
def test_malformed_lines_fail_with_their_position(
    text: str, line: int, column: int, words: str
) -> None:
    with pytest.raises(ActionSyntaxError) as caught:
        kobrowser.parse_actions(text)
    error = caught.value
    assert (error.line, error.column) == (line, column), str(error)
    assert words in error.reason
    assert str(error).startswith(f"line {line}, column {column}: ")
    assert error.source == text.split("\n")[line - 1]
    assert isinstance(error, ValueError) and isinstance(error, kobrowser.KoBrowserError)


def test_parse_action_wants_exactly_one() -> None:
    with pytest.raises(ActionSyntaxError, match="found no action"):
        kobrowser.parse_action("just words")
    with pytest.raises(ActionSyntaxError, match="found 2 actions"):
        kobrowser.parse_action("click 1\nclick 2")
    with pytest.raises(kobrowser.InvalidArgumentError):
        kobrowser.parse_actions(b"click 1")  # type: ignore[arg-type]


def test_actions_validate_their_fields() -> None:
    with pytest.raises(ValueError, match=r"^id: got 0; expected an element id .* >= 1$"):
        A.Click(0)
    with pytest.raises(ValueError, match=r"^amount: got -5; expected a whole number of pixels"):
        A.Scroll("down", -5)
    with pytest.raises(ValueError, match=r"^ms: got True; expected a whole number of milliseconds"):
        A.Wait(True)
    with pytest.raises(ValueError, match=r"^tab index: got 0; expected a whole number >= 1$"):
        A.SwitchTab(0)
    with pytest.raises(kobrowser.InvalidArgumentError):
        A.Fill(3, 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        A.Scroll("diagonal")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        A.Wait(-1)
    assert A.Fill(3, "x").element_id == 3 and A.Back().element_id is None
    assert hash(A.Click(2)) == hash(A.Click(2)) and A.Click(2) != A.DblClick(2)
