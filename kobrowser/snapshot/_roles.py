"""Role mapping and role classes for the snapshot (docs/snapshot-format.md).

Chrome reports ARIA role names (``button``, ``heading`` ...) and, where no
ARIA role exists, Chrome-internal names (``StaticText``, ``LabelText``,
``RootWebArea`` ...). :func:`role_info` maps a raw role to the printed role and
a *kind* that decides when an element is printed:

``INTERACTIVE``
    Always printed, named or not (the spec's interactive list).
``IFRAME``
    Interactive; its content comes from the child frame's own tree.
``STRUCTURE``
    Printed when named or when anything is printed below it.
``NAMED``
    Printed only with a non-empty name, otherwise transparent (its children
    move up). This is ``img``, a named ``generic``, and every other role in
    neither list (``paragraph``, ``term``, ``definition``, ``label``,
    ``blockquote``, ``caption``, ``code``, ``note``, ``math`` ...).
``TRANSPARENT``
    Never printed, children move up: presentation/none, the document roots
    (``RootWebArea``, also of frames), ``MenuListPopup``, Chrome's layout-only
    containers (``LayoutTable*``, ``Pre``, ``SectionWithoutName``,
    ``HeaderAsNonLandmark`` ...), ``Unknown`` and roles that map to nothing.
``TEXT``
    ``StaticText``: a text piece, see the text rules in ``_runs``.
``BREAK``
    ``LineBreak``: never printed; separates text pieces with a space.
``SKIP``
    ``InlineTextBox``, ``ListMarker``: never printed, nor anything below.

Decisions where the spec is silent:

* Internal widgets with an ARIA counterpart are mapped to it so they count as
  interactive: ``DisclosureTriangle`` (``<summary>``), ``ToggleButton``,
  ``MenuButton``, ``ColorWell`` -> ``button``; ``PopUpButton``,
  ``ComboBoxSelect``, ``ComboBoxMenuButton``, ``TextFieldWithComboBox`` ->
  ``combobox``; ``ListBoxOption``, ``MenuListOption`` -> ``option``;
  ``RadioButton`` -> ``radio``; ``Date``, ``DateTime``, ``InputTime`` ->
  ``textbox`` (a date or time field the agent fills).
* ``image`` (ARIA 1.3 synonym, reported by recent Chrome) -> ``img``;
  ``DescriptionList`` -> ``list``; ``Figcaption`` -> ``caption``;
  ``ProgressIndicator`` -> ``progressbar``; ``Splitter`` -> ``separator``;
  ``EmbeddedObject``/``PluginObject`` -> ``embed``.
* Any other role: lower-cased with everything but ``a-z`` removed
  (``doc-abstract`` -> ``docabstract``); a role that becomes empty is
  transparent.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "BREAK",
    "FIELD_ROLES",
    "IFRAME",
    "INLINE_ROLES",
    "INTERACTIVE",
    "INTERACTIVE_ROLES",
    "NAMED",
    "ROLE_CACHE",
    "SKIP",
    "STRUCTURE",
    "STRUCTURE_ROLES",
    "TEXT",
    "TRANSPARENT",
    "role_info",
    "walks_below",
]

# Kinds. Small ints: compared on the hot path.
SKIP: Final = 0
BREAK: Final = 1
TEXT: Final = 2
TRANSPARENT: Final = 3
NAMED: Final = 4
STRUCTURE: Final = 5
INTERACTIVE: Final = 6
IFRAME: Final = 7

INTERACTIVE_ROLES: Final[frozenset[str]] = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "option",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "slider",
        "spinbutton",
        "switch",
        "tab",
        "treeitem",
        "iframe",
    }
)
"""Roles printed named or not (docs/snapshot-format.md, "Interactive")."""

STRUCTURE_ROLES: Final[frozenset[str]] = frozenset(
    {
        "heading",
        "navigation",
        "main",
        "banner",
        "complementary",
        "contentinfo",
        "form",
        "search",
        "region",
        "dialog",
        "alertdialog",
        "alert",
        "status",
        "list",
        "listitem",
        "table",
        "row",
        "cell",
        "columnheader",
        "rowheader",
        "grid",
        "gridcell",
        "tree",
        "treegrid",
        "menu",
        "menubar",
        "tablist",
        "tabpanel",
        "toolbar",
        "article",
        "figure",
        "group",
        "progressbar",
        "meter",
        "tooltip",
        "separator",
    }
)
"""Roles printed when named or with printed content ("Structure and landmarks").

``img`` is in the spec's list too but is printed only when named, so it has
the ``NAMED`` kind.
"""

INLINE_ROLES: Final[frozenset[str]] = frozenset(
    {
        "abbr",
        "code",
        "deletion",
        "emphasis",
        "insertion",
        "mark",
        "strong",
        "subscript",
        "superscript",
        "time",
    }
)
"""Text-level roles that do not end a run of text (see ``_tree``).

Chrome keeps ``<em>``, ``<strong>``, ``<code>``, ``<mark>``, ``<time>``,
``<sub>``, ``<sup>``, ``<del>``, ``<ins>`` (and ``<s>``) and ``<abbr>`` in its
tree for their meaning, not as boxes or for behaviour; ending a run at each
would cut every sentence with a word in bold into three lines. Unnamed and
neither clickable nor focusable, they are lifted like ignored nodes.
"""

FIELD_ROLES: Final[frozenset[str]] = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
"""Roles whose text content is not printed when they carry ``editable``."""

# Chrome-internal (and legacy) role names -> printed role, or "" for never printed.
_INTERNAL: Final[dict[str, str]] = {
    "StaticText": "text",
    "Iframe": "iframe",
    "IframePresentational": "iframe",
    "LabelText": "label",
    "DescriptionList": "list",
    "DescriptionListTerm": "term",
    "DescriptionListDetail": "definition",
    "DisclosureTriangle": "button",
    "ToggleButton": "button",
    "MenuButton": "button",
    "ColorWell": "button",
    "PopUpButton": "combobox",
    "ComboBoxSelect": "combobox",
    "ComboBoxMenuButton": "combobox",
    "ComboBoxGrouping": "combobox",
    "TextFieldWithComboBox": "combobox",
    "ListBoxOption": "option",
    "MenuListOption": "option",
    "RadioButton": "radio",
    "Date": "textbox",
    "DateTime": "textbox",
    "InputTime": "textbox",
    "image": "img",
    "Image": "img",
    "Figcaption": "caption",
    "ProgressIndicator": "progressbar",
    "Splitter": "separator",
    "EmbeddedObject": "embed",
    "PluginObject": "embed",
    "GenericContainer": "generic",
    # Never printed; children move up.
    "RootWebArea": "",
    "WebArea": "",
    "MenuListPopup": "",
    "none": "",
    "presentation": "",
    "Ignored": "",
    "Unknown": "",
    "Pre": "",
    "LayoutTable": "",
    "LayoutTableRow": "",
    "LayoutTableCell": "",
    "LayoutTableColumn": "",
    "SectionWithoutName": "",
    "HeaderAsNonLandmark": "",
    "FooterAsNonLandmark": "",
    "Div": "",
    "Span": "",
}

_KIND_BY_RAW: Final[dict[str, int]] = {
    "StaticText": TEXT,
    "LineBreak": BREAK,
    "InlineTextBox": SKIP,
    "ListMarker": SKIP,
}

ROLE_CACHE: dict[str, tuple[str, int]] = {}
ROLE_CACHE_MAX: Final = 4096


def _letters(raw: str) -> str:
    return "".join(c for c in raw.lower() if "a" <= c <= "z")


def _compute(raw: str) -> tuple[str, int]:
    kind = _KIND_BY_RAW.get(raw)
    if kind is not None:
        return ("text" if kind == TEXT else "", kind)
    role = _INTERNAL[raw] if raw in _INTERNAL else _letters(raw)
    if not role:
        return ("", TRANSPARENT)
    if role == "iframe":
        return (role, IFRAME)
    if role in INTERACTIVE_ROLES:
        return (role, INTERACTIVE)
    if role in STRUCTURE_ROLES:
        return (role, STRUCTURE)
    return (role, NAMED)


def role_info(raw: str) -> tuple[str, int]:
    """Map a raw Chrome role to ``(printed role, kind)``.

    Args:
        raw: The ``role.value`` Chrome reported (``""`` when it had none).

    Returns:
        The printed role (lower-case ASCII letters, ``""`` when never printed)
        and its kind (``SKIP`` ... ``IFRAME``, see the module docstring).
    """
    info = ROLE_CACHE.get(raw)
    if info is None:
        info = _compute(raw)
        if len(ROLE_CACHE) < ROLE_CACHE_MAX:
            ROLE_CACHE[raw] = info
    return info


def walks_below(raw: str) -> bool:
    """Whether the walk (``_tree``) reads the children of a shown node of raw role ``raw``.

    The one statement of that rule for everything that follows a tree the
    way the walk does (the AX mirror asks for and holds only those
    children): it never reads below a text piece, a line break, an inline
    text box or a list marker (the kinds below ``TRANSPARENT``). An ignored
    node's children are always read, whatever its role; an ``iframe``'s AX
    children never are (its content is the child frame's tree), but they
    count as read here: following more than the walk reads is safe.
    """
    return role_info(raw)[1] >= TRANSPARENT
