"""The public surface: kobrowser.__all__ and the exception hierarchy."""

from __future__ import annotations
import __future__

import inspect
import re
import types

import kobrowser
from kobrowser import _exceptions


def test_all_is_sorted_and_unique() -> None:
    names = list(kobrowser.__all__)
    assert names == sorted(names)
    assert len(names) == len(set(names))


def test_every_name_in_all_exists() -> None:
    missing = [name for name in kobrowser.__all__ if not hasattr(kobrowser, name)]
    assert missing == []


def test_nothing_public_is_missing_from_all() -> None:
    public = {
        name
        for name, value in vars(kobrowser).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType | __future__._Feature)
    }
    assert public - set(kobrowser.__all__) == set()


def _exception_classes() -> list[type[BaseException]]:
    return [
        value
        for value in vars(_exceptions).values()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == _exceptions.__name__
    ]


def test_exceptions_module_exports_every_exception() -> None:
    classes = _exception_classes()
    assert len(classes) > 1
    assert sorted(_exceptions.__all__) == sorted(cls.__name__ for cls in classes)


def test_every_exception_derives_from_the_base_and_is_reexported() -> None:
    for cls in _exception_classes():
        assert issubclass(cls, kobrowser.KoBrowserError), cls
        assert getattr(kobrowser, cls.__name__) is cls
        assert cls.__name__ in kobrowser.__all__
    for name in kobrowser.__all__:
        value = getattr(kobrowser, name)
        if inspect.isclass(value) and issubclass(value, BaseException):
            assert issubclass(value, kobrowser.KoBrowserError), name


def _drawn_hierarchy() -> dict[str, str | None]:
    """Class name -> drawn parent name, from the tree in the module docstring."""
    doc = _exceptions.__doc__ or ""
    assert "Hierarchy::" in doc
    drawing = doc.split("Hierarchy::", 1)[1]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []  # (column of the name, name)
    for line in drawing.splitlines():
        match = re.match(r"^([\s|]*)(?:\+-- )?([A-Z]\w*)\b", line)
        if match is None:
            continue
        column = match.start(2)
        name = match.group(2)
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[name] = stack[-1][1] if stack else None
        stack.append((column, name))
    return parents


def test_exceptions_docstring_draws_every_class_under_its_parent() -> None:
    drawn = _drawn_hierarchy()
    classes = _exception_classes()
    assert sorted(drawn) == sorted(cls.__name__ for cls in classes)
    for cls in classes:
        assert cls.__doc__, f"{cls.__name__} has no docstring"
        parent = drawn[cls.__name__]
        if parent is None:
            assert cls is kobrowser.KoBrowserError
        else:
            assert getattr(_exceptions, parent) in cls.__bases__, (cls.__name__, parent)


def test_javascript_and_download_errors_are_public_with_their_fields() -> None:
    error = kobrowser.JavaScriptError(
        "Error: boom", stack="Error: boom\n    at <anonymous>:1:7", context="JavaScript error"
    )
    assert str(error) == "JavaScript error: Error: boom"
    assert (error.message, error.stack) == ("Error: boom", "Error: boom\n    at <anonymous>:1:7")
    assert str(kobrowser.JavaScriptError("x")) == "x"
    assert kobrowser.JavaScriptError("x").stack == ""
    download = kobrowser.DownloadError("download of 'u' was canceled", url="u")
    assert (download.url, download.state) == ("u", "canceled")
    assert isinstance(download, kobrowser.KoBrowserError)
    assert not isinstance(download, ValueError | TimeoutError)


def test_element_session_is_typed() -> None:
    annotation = kobrowser.Element.__annotations__["session"]
    assert "Any" not in str(annotation) and "CDPSession" in str(annotation)
