"""Frames inlined under their iframe line (docs/snapshot-format.md, "Frames")."""

from __future__ import annotations

from kobrowser.snapshot import FrameAX, build_tree, format_snapshot

from ._ax_builders import MISSING, el, frame, frame_spec, iframe, text
from ._helpers import lines, walk


def _three_deep() -> FrameAX:
    inner = frame_spec(el("button", "Pay", text("Pay")), title="Innermost", frame_id="F3")
    middle = frame_spec(
        el("textbox", "Card number", required=True),
        iframe("3-D Secure", inner),
        frame_id="F2",
    )
    return frame(
        el("button", "Before"),
        el(
            "main",
            None,
            iframe(
                "Payment",
                frame_spec(el("heading", "Pay here"), iframe("Wallet", middle), frame_id="F1"),
            ),
        ),
        el("button", "After"),
    )


def test_nested_frames_inline_three_deep_and_ids_run_across_frames() -> None:
    top = _three_deep()
    assert lines(top) == [
        '1: button "Before"',
        "2: main",
        '  3: iframe "Payment"',
        '    4: heading "Pay here"',
        '    5: iframe "Wallet"',
        '      6: textbox "Card number" required',
        '      7: iframe "3-D Secure"',
        '        8: button "Pay"',
        '9: button "After"',
    ]


def test_nodes_carry_their_own_frame_id() -> None:
    roots = build_tree(_three_deep())
    by_name = {node.name: node.frame_id for _, node in walk(roots)}
    assert by_name == {
        "Before": "MAIN",
        "": "MAIN",
        "Payment": "MAIN",
        "Pay here": "F1",
        "Wallet": "F1",
        "Card number": "F2",
        "3-D Secure": "F2",
        "Pay": "F3",
        "After": "MAIN",
    }


def test_unreadable_frame_leaves_empty_iframe_line() -> None:
    top = frame(iframe("Ad", None), el("button", "Next"))
    assert lines(top) == ['1: iframe "Ad"', '2: button "Next"']


def test_iframe_without_entry_is_empty_even_with_child_ids() -> None:
    spec = iframe("Orphan", MISSING)
    spec.children = [el("button", "ignored because frames come from FrameAX.children")]
    assert lines(frame(spec, el("button", "Next"))) == ['1: iframe "Orphan"', '2: button "Next"']


def test_unnamed_iframe_and_empty_child_frame() -> None:
    top = frame(iframe(None, frame_spec()), iframe(None, frame_spec(el("link", "x"))))
    assert lines(top) == ["1: iframe", "2: iframe", '  3: link "x"']


def test_child_frame_document_root_not_printed_and_its_title_unused() -> None:
    top = frame(iframe("Frame", frame_spec(text("Hello"), title="Child title")), title="Top")
    text_out, nodes = format_snapshot(build_tree(top), title="Top")
    assert text_out == 'Page: "Top"\n\n1: iframe "Frame"\n  2: text "Hello"\n'
    assert [n.frame_id for n in nodes] == ["MAIN", "CHILD"]


def test_iframe_name_does_not_carry_frame_text() -> None:
    top = frame(iframe("Payment", frame_spec(text("Payment"))))
    assert lines(top) == ['1: iframe "Payment"', '  2: text "Payment"']


def test_frame_cycle_is_cut() -> None:
    top = frame(iframe("Self", MISSING))
    backend = top.nodes[1].backendDOMNodeId
    assert backend is not None
    top.children[backend] = top  # a malformed registry: the frame embeds itself
    assert lines(top) == ['1: iframe "Self"']


def test_frame_content_inside_text_field_context_is_not_inherited_by_parent() -> None:
    # A frame's text sits under the iframe, not under anything around it.
    top = frame(el("link", "Frame text", iframe(None, frame_spec(text("Frame text")))))
    assert lines(top) == ['1: link "Frame text"', "  2: iframe", '    3: text "Frame text"']
