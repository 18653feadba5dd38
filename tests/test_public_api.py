"""The public surface: kobrowser.__all__, the public subpackages' __all__ and the
exception hierarchy."""

from __future__ import annotations
import __future__

import ast
import importlib
import inspect
import pkgutil
import re
import types
import typing
from collections.abc import Set
from pathlib import Path

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


# -- the public subpackages ---------------------------------------------------------

#: Public names a subpackage defines on purpose without listing them in __all__.
DELIBERATELY_UNLISTED: dict[str, dict[str, str]] = {
    "kobrowser.scrape": {
        "Scrape": "the async context manager scrape() returns: used by `async with`, "
        "never built by hand",
    },
}


def _public_subpackages() -> list[types.ModuleType]:
    """Every ``kobrowser.<name>`` package whose name has no leading underscore."""
    found = [
        importlib.import_module(f"kobrowser.{info.name}")
        for info in pkgutil.iter_modules(kobrowser.__path__)
        if info.ispkg and not info.name.startswith("_")
    ]
    return sorted(found, key=lambda module: module.__name__)


def _isort_key(name: str) -> tuple[int, list[int | str]]:
    """ruff's isort-style order of __all__ (RUF022): CONSTANTS, then Classes, then the
    rest; naturally ordered within each (numbers by value)."""
    if len(name) > 1 and name.isupper():
        kind = 0
    elif name[:1].isupper():
        kind = 1
    else:
        kind = 2
    parts = [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]
    return kind, parts


def _outside_imports(module: types.ModuleType) -> set[str]:
    """Names the package's __init__ binds by importing from outside kobrowser
    (``Any``, ``Iterable``, ``sys``...): not part of its API."""
    tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
    found: set[str] = set()
    statements = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.If | ast.Try):
            statements += [*node.body, *node.orelse]
        elif isinstance(node, ast.Import):
            found |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] != "kobrowser"
        ):
            found |= {alias.asname or alias.name for alias in node.names}
    return found


def all_problems(
    module: types.ModuleType,
    unlisted: dict[str, str] | None = None,
    outside: Set[str] = frozenset(),
) -> list[str]:
    """What is wrong with ``module.__all__`` (empty when nothing).

    ``unlisted``: public names left out on purpose (name -> why); ``outside``:
    names imported from outside kobrowser (see :func:`_outside_imports`).
    """
    name = module.__name__
    listed = getattr(module, "__all__", None)
    if not isinstance(listed, list | tuple) or not all(isinstance(n, str) for n in listed):
        return [f"{name}: no explicit __all__ of names"]
    problems: list[str] = []
    names = list(listed)
    if names != sorted(names, key=_isort_key):
        problems.append(f"{name}.__all__ is not sorted: {names}")
    if len(names) != len(set(names)):
        problems.append(f"{name}.__all__ lists a name twice")
    problems += [
        f"{name}.__all__ names {n!r}, which it lacks" for n in names if not hasattr(module, n)
    ]
    unlisted = unlisted or {}
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and attr != "TYPE_CHECKING"
        and not isinstance(value, types.ModuleType | __future__._Feature)
        and attr not in outside
    }
    problems += [
        f"{name}.{attr} is public but not in __all__ (list it, or name it in "
        "DELIBERATELY_UNLISTED with the reason)"
        for attr in sorted(public - set(names) - set(unlisted))
    ]
    problems += [
        f"{name}: {attr} is both listed and unlisted" for attr in set(unlisted) & set(names)
    ]
    problems += [
        f"{name}: unlisted {attr!r} does not exist"
        for attr in unlisted
        if not hasattr(module, attr)
    ]
    return problems


def test_the_public_subpackages_are_found() -> None:
    names = {module.__name__ for module in _public_subpackages()}
    documented = {"kobrowser.actions", "kobrowser.agent", "kobrowser.cdp", "kobrowser.mcp"}
    documented |= {"kobrowser.scrape", "kobrowser.snapshot", "kobrowser.cli"}
    assert documented <= names
    assert set(DELIBERATELY_UNLISTED) <= names


def test_every_public_subpackage_has_a_sorted_complete_all() -> None:
    problems = [
        problem
        for module in _public_subpackages()
        for problem in all_problems(
            module, DELIBERATELY_UNLISTED.get(module.__name__), _outside_imports(module)
        )
    ]
    assert problems == []


def test_the_all_check_finds_each_kind_of_problem() -> None:
    """The check above is only as good as all_problems: show it fails on each fault."""

    def module(names: object, **attrs: object) -> types.ModuleType:
        made = types.ModuleType("kobrowser.fake")
        made.__dict__.update(attrs)
        if names is not None:
            made.__all__ = names  # type: ignore[attr-defined]
        return made

    class Thing:
        pass

    Thing.__module__ = "kobrowser.fake"

    def helper() -> None: ...

    helper.__module__ = "kobrowser.fake"
    alias = typing.Callable[[int], typing.Any]  # a type alias: its __module__ is typing's
    good = module(
        ["LIMIT", "Alias", "Thing", "helper"],
        LIMIT=3,
        Alias=alias,
        Thing=Thing,
        helper=helper,
        Any=typing.Any,
    )
    assert all_problems(good, outside={"Any"}) == []
    assert all_problems(good) == [
        "kobrowser.fake.Any is public but not in __all__ (list it, "
        "or name it in DELIBERATELY_UNLISTED with the reason)"
    ]
    assert all_problems(module(None, Thing=Thing)) == [
        "kobrowser.fake: no explicit __all__ of names"
    ]
    unsorted = module(["helper", "Thing"], Thing=Thing, helper=helper)
    assert [p for p in all_problems(unsorted) if "not sorted" in p]
    assert [p for p in all_problems(module(["Thing", "Thing"], Thing=Thing)) if "twice" in p]
    assert [p for p in all_problems(module(["Thing", "gone"], Thing=Thing)) if "lacks" in p]
    missing = module(["Thing"], Thing=Thing, helper=helper, LIMIT=3, Alias=alias)
    assert sorted(p.split(" ")[0] for p in all_problems(missing)) == [
        "kobrowser.fake.Alias",
        "kobrowser.fake.LIMIT",
        "kobrowser.fake.helper",
    ]
    assert all_problems(missing, {"helper": "why", "LIMIT": "why", "Alias": "why"}) == []
    assert [p for p in all_problems(good, {"nothing": "why"}) if "does not exist" in p]
