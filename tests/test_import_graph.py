"""The Python package's import graph has no cycle (#34 item 2): every import of a
tcplab module, read with ast — at module level and inside functions (deferred so that
`tcplab validate` and error paths start fast), but not under `if TYPE_CHECKING:` —
forms a directed acyclic graph. Importing `a.b.c` imports the packages `a.b` and `a`
first, so it is an edge to each of them too; an edge to the importer's own ancestor
package is none, since that package is already being imported."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "tcplab"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(module: str, path: Path, modules: set[str]) -> set[str]:
    """The tcplab modules ``module``'s top-level statements import."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                name = f"{target}.{alias.name}"
                found.add(name if name in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    with_packages = {".".join(m.split(".")[:k]) for m in found for k in range(1, m.count(".") + 2)}
    return {m for m in with_packages if m in modules and m != module and not module.startswith(m + ".")}


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                stack.extend(child.orelse)
                continue
            stack.append(child)


def graph() -> dict[str, set[str]]:
    """Module → the tcplab modules it imports at its top level."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {m: _imports(m, p, set(paths)) for m, p in paths.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``edges`` as a list of modules, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (found := visit(n)) is not None:
                return found
        state[m] = 2
        path.pop()
        return None

    for m in sorted(edges):
        if m not in state and (found := visit(m)) is not None:
            return found
    return None


def test_the_checker_finds_a_cycle_by_hand():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_the_package_imports_form_no_cycle():
    edges = graph()
    assert "tcplab.cli.run_cmd" in edges and "tcplab.cli.app" in edges["tcplab.cli.run_cmd"]
    assert cycle(edges) is None, " -> ".join(cycle(edges) or [])


def test_no_module_imports_another_modules_private_names():
    """A name with a leading underscore is its module's own (#34 item 2): no tcplab
    module imports one from another (the compiled engine `_core` and `__version__`
    are the package's public parts despite their names)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in _runtime_nodes(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("tcplab")):
                found += [f"{path.relative_to(PACKAGE)}: {alias.name}" for alias in node.names
                          if alias.name.startswith("_") and alias.name not in ("_core", "__version__")]
    assert not found, found
