"""Golden tests in a real Chromium: every rule of docs/snapshot-format.md on a page made for it.

Every expected text here was written from the spec, by hand. Each snapshot is
also checked by ``assert_consistent`` (text <-> id map <-> to_dict()).
"""

from __future__ import annotations

import textwrap

import pytest
from _server import PageServer

import kobrowser

from ._browser_helpers import assert_consistent, page
from .conftest import OpenTab, SnapHtml

pytestmark = [pytest.mark.anyio, pytest.mark.each_transport]  # same answers on every transport


def expect(lines: str, title: str | None = "T") -> str:
    """The expected snapshot: a Page line (unless ``title`` is None) and ``lines``."""
    body = textwrap.dedent(lines).strip("\n")
    body = body + "\n" if body else ""
    return body if title is None else f'Page: "{title}"\n\n{body}'


FOCUS = "<script>document.querySelector('[data-focus]').focus()</script>"


async def golden(snap_html: SnapHtml, body: str, expected: str, **options: object) -> None:
    snap = await snap_html(page(body), **options)
    assert snap.text == expect(expected)


# --- states ---------------------------------------------------------------

STATES = {
    "focused": (
        '<input aria-label="Name" data-focus>' + FOCUS,
        '1: textbox "Name" focused',
    ),
    "disabled": (
        "<button disabled>Save</button><button>Send</button>",
        """
        1: button "Save" disabled
        2: button "Send"
        """,
    ),
    "checked": (
        '<input type="checkbox" aria-label="Agree" checked>'
        '<input type="checkbox" aria-label="Off">'
        '<input type="radio" name="r" aria-label="Yes" checked>'
        '<input type="radio" name="r" aria-label="No">'
        '<button role="switch" aria-checked="true">Wifi</button>'
        '<div role="menu"><div role="menuitemcheckbox" aria-checked="true"'
        ' tabindex="-1">Bold</div></div>',
        """
        1: checkbox "Agree" checked
        2: checkbox "Off"
        3: radio "Yes" checked
        4: radio "No"
        5: switch "Wifi" checked
        6: menu
          7: menuitemcheckbox "Bold" checked
        """,
    ),
    "mixed": (
        '<div role="checkbox" aria-checked="mixed" tabindex="0">All</div>'
        '<input type="checkbox" aria-label="Some" id="some">'
        "<script>document.getElementById('some').indeterminate = true</script>",
        """
        1: checkbox "All" mixed
        2: checkbox "Some" mixed
        """,
    ),
    "pressed": (
        '<button aria-pressed="true">Bold</button><button aria-pressed="false">Italic</button>',
        """
        1: button "Bold" pressed
        2: button "Italic"
        """,
    ),
    "expanded-collapsed": (
        '<button aria-expanded="true">Menu</button>'
        '<button aria-expanded="false">More</button>'
        "<button>Plain</button>",
        """
        1: button "Menu" expanded
        2: button "More" collapsed
        3: button "Plain"
        """,
    ),
    "selected": (
        '<div role="tablist"><div role="tab" aria-selected="true">One</div>'
        '<div role="tab" aria-selected="false">Two</div></div>',
        """
        1: tablist
          2: tab "One" selected
          3: tab "Two"
        """,
    ),
    "required": (
        '<input aria-label="Email" required><input aria-label="Phone">',
        """
        1: textbox "Email" required
        2: textbox "Phone"
        """,
    ),
    "readonly": (
        '<input aria-label="Code" value="XYZ" readonly>',
        '1: textbox "Code" value="XYZ" readonly',
    ),
    "multiline": (
        '<textarea aria-label="Notes"></textarea>',
        '1: textbox "Notes" multiline',
    ),
}


@pytest.mark.parametrize("case", sorted(STATES))
async def test_state(snap_html: SnapHtml, case: str) -> None:
    body, expected = STATES[case]
    await golden(snap_html, body, expected)


async def test_states_in_grammar_order_on_one_element(snap_html: SnapHtml) -> None:
    # Grammar order: focused disabled checked expanded collapsed selected
    # required readonly multiline mixed pressed, then kobrowser's clickable
    # focusable (a gridcell has no interactive role: tabindex marks it). (Chrome reports no
    # required/readonly on checkboxes, so those combinations are not made.)
    body = (
        '<textarea aria-label="Bio" required readonly data-focus>x</textarea>'
        '<input type="checkbox" aria-label="Terms" checked disabled>'
        '<button aria-pressed="true" aria-expanded="false" aria-disabled="true">Tools</button>'
        '<div role="checkbox" aria-checked="mixed" aria-disabled="true" tabindex="0">Partial</div>'
        '<div role="tree" aria-label="Files"><div role="treeitem" aria-expanded="true"'
        ' aria-selected="true" aria-disabled="true" tabindex="0">Docs</div></div>'
        '<div role="grid" aria-label="Sheet"><div role="row" aria-label="R1">'
        '<div role="gridcell" aria-selected="true" aria-required="true" aria-readonly="true"'
        ' tabindex="0">Cell</div></div></div>'
        '<div role="combobox" aria-label="Pick" aria-expanded="false" aria-required="true"'
        ' aria-disabled="true" tabindex="0"></div>' + FOCUS
    )
    await golden(
        snap_html,
        body,
        """
        1: textbox "Bio" value="x" focused required readonly multiline
        2: checkbox "Terms" disabled checked
        3: button "Tools" disabled collapsed pressed
        4: checkbox "Partial" disabled mixed
        5: tree "Files"
          6: treeitem "Docs" disabled expanded selected
        7: grid "Sheet"
          8: row "R1"
            9: gridcell "Cell" selected required readonly focusable
        10: combobox "Pick" disabled collapsed required
        """,
    )


# --- name, value, title: whitespace and truncation -------------------------

CJK_100 = "漢字" * 50
EMOJI_90 = "😀" * 90
MIXED_81 = ("a漢😀" * 27)[:81]


async def test_name_truncation_in_code_points(snap_html: SnapHtml) -> None:
    body = (
        f"<button>{CJK_100}</button>"
        f"<button>{EMOJI_90}</button>"
        f"<button>{'字' * 80}</button>"
        f"<button>{'字' * 81}</button>"
        f"<button>{MIXED_81}</button>"
    )
    await golden(
        snap_html,
        body,
        f"""
        1: button "{CJK_100[:77]}..."
        2: button "{"😀" * 77}..."
        3: button "{"字" * 80}"
        4: button "{"字" * 77}..."
        5: button "{MIXED_81[:77]}..."
        """,
    )


async def test_value_truncation_in_code_points(snap_html: SnapHtml) -> None:
    body = (
        f'<input aria-label="A" value="{"値" * 60}">'
        f'<input aria-label="B" value="{"🎉" * 50}">'
        f'<input aria-label="C" value="{"🎉" * 51}">'
    )
    await golden(
        snap_html,
        body,
        f"""
        1: textbox "A" value="{"値" * 47}..."
        2: textbox "B" value="{"🎉" * 50}"
        3: textbox "C" value="{"🎉" * 47}..."
        """,
    )


async def test_title_truncation_and_whitespace(snap_html: SnapHtml) -> None:
    long_title = "标题" * 45  # 90 code points
    snap = await snap_html(page("<button>OK</button>", title=long_title))
    assert snap.text == f'Page: "{long_title[:77]}..."\n\n1: button "OK"\n'
    assert snap.title == long_title
    emoji_title = "🚀" * 80
    snap = await snap_html(page("<button>OK</button>", title=emoji_title))
    assert snap.text == f'Page: "{emoji_title}"\n\n1: button "OK"\n'
    snap = await snap_html(page("<button>OK</button>", title="  Two\n\tlines  "))
    assert snap.text == 'Page: "Two lines"\n\n1: button "OK"\n'


async def test_quotes_newlines_and_tabs_in_names_and_values(snap_html: SnapHtml) -> None:
    body = (
        '<button aria-label="Say &quot;hi&quot;&#10;&#9; now "></button>'
        '<a href="#q">The "best"\n\n\tdeal</a>'
        '<textarea aria-label="Notes">first\n\n\tsecond  </textarea>'
        "<pre>line one\n\tline two</pre>"
    )
    await golden(
        snap_html,
        body,
        """
        1: button "Say "hi" now"
        2: link "The "best" deal"
        3: textbox "Notes" value="first second" multiline
        4: text "line one line two"
        """,
    )


async def test_value_only_when_it_differs_from_the_name(snap_html: SnapHtml) -> None:
    body = (
        '<input aria-label="Email" value="ana@example.com">'
        '<input aria-label="same" value="same">'
        '<input aria-label="Blank" value="   ">'
        '<input type="submit" value="Send">'
        '<input type="range" aria-label="Volume" min="0" max="100" value="30">'
        '<input type="number" aria-label="Qty" value="2">'
    )
    await golden(
        snap_html,
        body,
        """
        1: textbox "Email" value="ana@example.com"
        2: textbox "same"
        3: textbox "Blank"
        4: button "Send"
        5: slider "Volume" value="30"
        6: spinbutton "Qty" value="2"
        """,
    )


async def test_password_value_never_shown(snap_html: SnapHtml) -> None:
    body = (
        '<input type="password" aria-label="Password" value="hunter2">'
        '<input type="password" aria-label="PIN" id="pin">'
        "<script>document.getElementById('pin').value = 'typed-secret'</script>"
    )
    snap = await snap_html(page(body))
    assert snap.text == expect(
        """
        1: textbox "Password"
        2: textbox "PIN"
        """
    )
    assert snap.id_map[1].value is None
    assert snap.id_map[2].value is None
    dumped = str(snap.to_dict())
    assert "hunter2" not in dumped
    assert "typed-secret" not in dumped


async def test_no_title_no_page_line(snap_html: SnapHtml) -> None:
    snap = await snap_html(page("<button>OK</button>", title=None))
    assert snap.text == '1: button "OK"\n'
    assert snap.title == ""
    snap = await snap_html(page("<button>OK</button>", title=" \n\t "))
    assert snap.text == '1: button "OK"\n'
    assert snap.title == ""


async def test_empty_page(snap_html: SnapHtml) -> None:
    snap = await snap_html(page("", title="Empty"))
    assert snap.text == 'Page: "Empty"\n\n'
    assert snap.id_map == {}
    assert snap.nodes == []


async def test_blank_tab(open_tab: OpenTab) -> None:
    async with open_tab("about:blank") as tab:
        snap = await tab.snapshot()
    assert_consistent(snap)
    assert snap.text == ""
    assert snap.url == "about:blank"
    assert snap.title == ""


# --- which elements appear --------------------------------------------------


async def test_shadow_dom_content_appears(snap_html: SnapHtml) -> None:
    body = """
    <div id="host"><a href="#s">Slotted link</a></div>
    <div id="closed"></div>
    <script>
      const root = document.getElementById('host').attachShadow({mode: 'open'});
      root.innerHTML = '<h2>Shadow heading</h2><button>Shadow button</button><slot></slot>'
        + '<div id="inner"></div>';
      root.getElementById('inner').attachShadow({mode: 'open'}).innerHTML =
        '<input aria-label="Nested shadow field">';
      document.getElementById('closed').attachShadow({mode: 'closed'}).innerHTML =
        '<button>Closed shadow button</button>';
    </script>
    """
    await golden(
        snap_html,
        body,
        """
        1: heading "Shadow heading"
        2: button "Shadow button"
        3: link "Slotted link"
        4: textbox "Nested shadow field"
        5: button "Closed shadow button"
        """,
    )


async def test_role_mapping(snap_html: SnapHtml) -> None:
    body = """
    <p>Plain words</p>
    <dl><dt>Coffee</dt><dd>Black drink</dd></dl>
    <label aria-label="Field label">Label text <input aria-label="Inner field"></label>
    <img alt="Logo" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
    <img alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
    <section role="doc-abstract" aria-label="Summary"><button>Go</button></section>
    <input type="search" aria-label="Find">
    <hr>
    <details><summary>Show more</summary>Hidden body</details>
    """
    await golden(
        snap_html,
        body,
        """
        1: text "Plain words"
        2: list
          3: term "Coffee"
          4: text "Black drink"
        5: label "Field label"
          6: text "Label text"
          7: textbox "Inner field"
        8: img "Logo"
        9: docabstract "Summary"
          10: button "Go"
        11: searchbox "Find"
        12: group
          13: button "Show more" collapsed
        """,
    )


async def test_interactive_roles_appear_unnamed(snap_html: SnapHtml) -> None:
    body = """
    <button></button>
    <input>
    <input type="checkbox">
    <div role="slider" aria-valuenow="5" aria-valuemin="0" aria-valuemax="10" tabindex="0"></div>
    <div role="listbox"><div role="option">Only</div></div>
    <textarea></textarea>
    """
    await golden(
        snap_html,
        body,
        """
        1: button
        2: textbox
        3: checkbox
        4: slider value="5"
        5: listbox
          6: option "Only"
        7: textbox multiline
        """,
    )


async def test_select_shows_its_selection_as_value(snap_html: SnapHtml) -> None:
    body = """
    <select aria-label="Size"><option>Small</option><option selected>Large</option></select>
    <select aria-label="Colour" size="2"><option>Red</option><option selected>Blue</option></select>
    """
    await golden(
        snap_html,
        body,
        """
        1: combobox "Size" value="Large" collapsed
          2: option "Small"
          3: option "Large" selected
        4: listbox "Colour"
          5: option "Red"
          6: option "Blue" selected
        """,
    )


async def test_text_lines(snap_html: SnapHtml) -> None:
    body = """
    <a href="#home">Home page</a>
    <button><span>Add</span> <b>to cart</b></button>
    <p>Hello <b>bold</b> and <i>italic</i> world</p>
    <hr aria-label="Rule">
    <p>Read the <a href="#t">terms</a> now.</p>
    <h2><a href="#s">Section</a></h2>
    <h3>Plain heading</h3>
    <div>one<br>two</div>
    """
    await golden(
        snap_html,
        body,
        """
        1: link "Home page"
        2: button "Add to cart"
        3: text "Hello bold and italic world"
        4: separator "Rule"
        5: text "Read the"
        6: link "terms"
        7: text "now."
        8: heading "Section"
          9: link "Section"
        10: heading "Plain heading"
        11: text "one two"
        """,
    )


async def test_paragraphs_are_separate_text_lines(snap_html: SnapHtml) -> None:
    first = "The first paragraph is fairly long and says something about the product."
    second = "The second paragraph holds the important part: the price is 42 euros."
    await golden(
        snap_html,
        f"<p>{first}</p><p>{second}</p>",
        f"""
        1: text "{first}"
        2: text "{second}"
        """,
    )


async def test_list_marker_of_presentational_list_item_not_printed(snap_html: SnapHtml) -> None:
    await golden(
        snap_html,
        '<ul role="none"><li role="none"><a href="#1">One</a></li></ul>'
        '<ol role="none"><li role="none"><a href="#2">Two</a></li></ol>'
        '<ul><li><a href="#3">Three</a></li></ul>',
        """
        1: link "One"
        2: link "Two"
        3: list
          4: listitem
            5: link "Three"
        """,
    )


async def test_ignored_and_presentation_children_move_up(snap_html: SnapHtml) -> None:
    body = """
    <table role="presentation"><tr><td><button>In table</button></td></tr></table>
    <ul role="none" style="list-style: none"><li role="none"><a href="#1">One</a></li></ul>
    <div><div><span><button>Deep</button></span></div></div>
    <nav aria-label="Main"><div><div><a href="#n">Nav link</a></div></div></nav>
    <div aria-hidden="true"><button>Hidden</button></div>
    <div style="display:none"><button>Not displayed</button></div>
    <section><button>In unnamed section</button></section>
    """
    await golden(
        snap_html,
        body,
        """
        1: button "In table"
        2: link "One"
        3: button "Deep"
        4: navigation "Main"
          5: link "Nav link"
        6: button "In unnamed section"
        """,
    )


async def test_structure_appears_only_named_or_with_content(snap_html: SnapHtml) -> None:
    body = """
    <ul><li>Alpha</li><li></li></ul>
    <ul></ul>
    <main></main>
    <form aria-label="Signup"></form>
    <table><tr><th>H</th></tr><tr><td>C</td></tr></table>
    """
    await golden(
        snap_html,
        body,
        """
        1: list
          2: listitem
            3: text "Alpha"
        4: form "Signup"
        5: table
          6: row
            7: columnheader "H"
          8: row
            9: cell "C"
        """,
    )


# --- modes -----------------------------------------------------------------

MODES_PAGE = page(
    """
    <nav aria-label="Site">
      <ul>
        <li><a href="#a">Alpha</a></li>
        <li><a href="#b">Beta</a></li>
      </ul>
    </nav>
    <main>
      <h1>Welcome</h1>
      <p>Intro text</p>
      <form aria-label="Signup">
        <input aria-label="Email">
        <button>Join</button>
      </form>
      <div id="box"><ul><li><button>Inner</button></li></ul></div>
    </main>
    """,
    title="Modes",
)

FULL = """
1: navigation "Site"
  2: list
    3: listitem
      4: link "Alpha"
    5: listitem
      6: link "Beta"
7: main
  8: heading "Welcome"
  9: text "Intro text"
  10: form "Signup"
    11: textbox "Email"
    12: button "Join"
  13: list
    14: listitem
      15: button "Inner"
"""

MODES: dict[str, tuple[dict[str, object], str]] = {
    "full": ({}, FULL),
    "interactive": (
        {"interactive": True},
        """
        1: link "Alpha"
        2: link "Beta"
        3: textbox "Email"
        4: button "Join"
        5: button "Inner"
        """,
    ),
    "compact": (
        {"compact": True},
        """
        1: navigation "Site"
          2: link "Alpha"
          3: link "Beta"
        4: heading "Welcome"
        5: text "Intro text"
        6: form "Signup"
          7: textbox "Email"
          8: button "Join"
        9: button "Inner"
        """,
    ),
    "depth-0": ({"depth": 0}, ""),
    "depth-1": (
        {"depth": 1},
        """
        1: navigation "Site"
        2: main
        """,
    ),
    "depth-2": (
        {"depth": 2},
        """
        1: navigation "Site"
          2: list
        3: main
          4: heading "Welcome"
          5: text "Intro text"
          6: form "Signup"
          7: list
        """,
    ),
    "depth-100": ({"depth": 100}, FULL),
    "selector-unprinted-div": (
        {"selector": "#box"},
        """
        1: list
          2: listitem
            3: button "Inner"
        """,
    ),
    "selector-printed-element": (
        {"selector": "form"},
        """
        1: form "Signup"
          2: textbox "Email"
          3: button "Join"
        """,
    ),
    "selector-several-matches": (
        {"selector": "li"},
        """
        1: listitem
          2: link "Alpha"
        3: listitem
          4: link "Beta"
        5: listitem
          6: button "Inner"
        """,
    ),
    "selector-nested-matches-not-repeated": (
        {"selector": "main, form"},
        """
        1: main
          2: heading "Welcome"
          3: text "Intro text"
          4: form "Signup"
            5: textbox "Email"
            6: button "Join"
          7: list
            8: listitem
              9: button "Inner"
        """,
    ),
    "selector-matches-nothing": ({"selector": ".nope"}, ""),
    "selector-body": ({"selector": "body"}, FULL),
    "selector-html": ({"selector": "html"}, FULL),
    "selector-with-quotes": ({"selector": 'input[aria-label="Email"]'}, '1: textbox "Email"'),
    "interactive+selector": (
        {"interactive": True, "selector": "nav"},
        """
        1: link "Alpha"
        2: link "Beta"
        """,
    ),
    "compact+depth": (
        {"compact": True, "depth": 1},
        """
        1: navigation "Site"
        2: heading "Welcome"
        3: text "Intro text"
        4: form "Signup"
        5: button "Inner"
        """,
    ),
    "selector+compact+depth": (
        {"selector": "main", "compact": True, "depth": 1},
        """
        1: heading "Welcome"
        2: text "Intro text"
        3: form "Signup"
        4: button "Inner"
        """,
    ),
    "interactive+compact+depth+selector": (
        {"interactive": True, "compact": True, "depth": 5, "selector": "form"},
        """
        1: textbox "Email"
        2: button "Join"
        """,
    ),
    "interactive+depth": (
        {"interactive": True, "depth": 1},
        """
        1: link "Alpha"
        2: link "Beta"
        3: textbox "Email"
        4: button "Join"
        5: button "Inner"
        """,
    ),
}


@pytest.mark.parametrize("mode", list(MODES))
async def test_modes(snap_html: SnapHtml, mode: str) -> None:
    options, expected = MODES[mode]
    snap = await snap_html(MODES_PAGE, **options)
    assert snap.text == expect(expected, title="Modes")


async def test_invalid_selector_raises(snap_html: SnapHtml) -> None:
    for selector in ("[[", "a:::b", "div >", "'"):
        with pytest.raises(kobrowser.InvalidSelectorError, match="invalid CSS selector"):
            await snap_html(MODES_PAGE, selector=selector)


async def test_negative_depth_is_rejected(snap_html: SnapHtml) -> None:
    with pytest.raises(ValueError):
        await snap_html(MODES_PAGE, depth=-1)


async def test_next_snapshot_renumbers(server: PageServer, open_tab: OpenTab) -> None:
    url = server.set_page("/renumber.html", page("<button>A</button><button>B</button>"))
    async with open_tab(url) as tab:
        first = await tab.snapshot()
        await tab.evaluate(
            "document.body.prepend(Object.assign(document.createElement('button'),"
            " {textContent: 'New'}))"
        )
        second = await tab.snapshot()
    assert first.text == expect(
        """
        1: button "A"
        2: button "B"
        """
    )
    assert second.text == expect(
        """
        1: button "New"
        2: button "A"
        3: button "B"
        """
    )
    assert [first.id_map[i].name for i in (1, 2)] == ["A", "B"]  # the old map is untouched
    assert second.id_map[2].backend_node_id == first.id_map[1].backend_node_id
