"""The package's shape: no import cycle, and the facade is for faces and users only.

The layer contract itself is ``[tool.importlinter]`` in pyproject.toml, run by
``scripts/test.sh`` (``lint-imports``). These tests read the same import graph
(grimp, import-linter's own reader), with every import counted: at module
level, inside functions, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import grimp

FACES = (
    "kobrowser.cli",
    "kobrowser.mcp",
    "kobrowser.agent",
    "kobrowser.scrape",
    "kobrowser.scrapy",
)


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("kobrowser", cache_dir=None)


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        # Iterative, so that a long chain cannot exhaust Python's recursion limit.
        work = [(module, iter(sorted(graph.find_modules_directly_imported_by(module))))]
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "b", "c", "d"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="b")
    graph.add_import(importer="b", imported="c")
    graph.add_import(importer="c", imported="a")
    graph.add_import(importer="c", imported="d")
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycle_between_modules() -> None:
    graph = _graph()
    assert len(graph.modules) > 50  # the whole package was read
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_only_faces_import_the_facade() -> None:
    graph = _graph()
    importers = graph.find_modules_that_directly_import("kobrowser")
    assert importers  # the faces do: the check reads real imports
    below = sorted(m for m in importers if not m.startswith(FACES))
    assert not below, f"library modules import the facade `kobrowser`: {below}"


def test_the_root_holds_only_the_base_and_the_layers() -> None:
    graph = _graph()
    root = {m for m in graph.modules if m.count(".") == 1}
    packages = {m for m in root if graph.find_children(m)}
    assert root - packages == {
        "kobrowser._concurrency",
        "kobrowser._deadline",
        "kobrowser._exceptions",
    }
    assert packages == {
        "kobrowser._browser",
        "kobrowser._tab",
        "kobrowser._validate",  # the fourth base module, with its value checks and key tables
        "kobrowser.actions",
        "kobrowser.agent",
        "kobrowser.cdp",
        "kobrowser.cli",
        "kobrowser.mcp",
        "kobrowser.scrape",
        "kobrowser.scrapy",
        "kobrowser.snapshot",
        "kobrowser.view",  # the live view, below the faces that start it (cli, mcp)
    }
