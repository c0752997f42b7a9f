"""The Python package's import graph has no cycle (#34 item 2): every import of a
tcplab module, read with ast — at module level and inside functions (deferred so that
`tcplab validate` and error paths start fast), but not under `if TYPE_CHECKING:` —
forms a directed acyclic graph. Importing `a.b.c` imports the packages `a.b` and `a`
first, so it is an edge to each of them too; an edge to the importer's own ancestor
package is none, since that package is already being imported."""

from __future__ import annotations

import ast
import re
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


# The engine crate (#34 item 2): every `crate::`, `super::` and `self::` path in a
# source file, `use` trees expanded, is an edge from the file's module to the longest
# module that path names. Test code is left out (`#[cfg(test)]` modules, inline or in
# files of their own), and so is an edge to the module's own ancestor, which declares
# it. Granularity is the file: `transport::tcp::rack` and `transport::tcp::scoreboard`
# are two modules.
ENGINE = Path(__file__).resolve().parent.parent / "crates" / "engine" / "src"
_TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])")
_USE = re.compile(r"\buse\s+((?:crate|super|self)\b[^;]*);")
_PATH = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")


def _without_tests(source: str) -> tuple[str, set[str]]:
    """``source`` without its `#[cfg(test)]` modules, and the names of those declared
    in files of their own."""
    in_files = set()
    while (m := _TEST_MODULE.search(source)) is not None:
        end = m.end()
        if m.group(2) == ";":
            in_files.add(m.group(1))
        else:
            depth = 1
            while depth:
                if (literal := _LITERAL.match(source, end)) is not None:
                    end = literal.end()  # a brace in a string or a char is not one
                    continue
                depth += {"{": 1, "}": -1}.get(source[end], 0)
                end += 1
        source = source[: m.start()] + source[end:]
    return source, in_files


#: A Rust string, raw string or char literal, whose braces do not open or close blocks.
_LITERAL = re.compile(r"""r(#*)".*?"\1|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])'""", re.S)


def _use_paths(tree: str) -> list[str]:
    """The paths a `use` tree names: ``a::{b, c::{d, e}}`` → a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))
    if "{" not in tree:
        return [tree]
    head, body = tree.split("{", 1)
    body = body[: body.rindex("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body + ","):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    return [p for part in parts if part for p in _use_paths(head + part)]


def engine_graph() -> dict[str, set[str]]:
    """Engine module (`a::b`) → the engine modules its non-test code names."""
    files = {}
    for path in ENGINE.rglob("*.rs"):
        parts = list(path.relative_to(ENGINE).with_suffix("").parts)
        files["::".join(parts[:-1] if parts[-1] in ("mod", "lib") else parts)] = path
    sources, test_only = {}, set()
    for module, path in files.items():
        sources[module], declared = _without_tests(re.sub(r"//[^\n]*", "", path.read_text()))
        test_only |= {f"{module}::{name}" if module else name for name in declared}
    modules = {m for m in files if m not in test_only and not any(m.startswith(t + "::") for t in test_only)}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module in modules:
        source = sources[module]
        named = [p for use in _USE.findall(source) for p in _use_paths(use)] + _PATH.findall(_USE.sub("", source))
        for path in named:
            segments = path.split("::")
            here = module.split("::") if module else []
            while segments[0] in ("super", "self"):
                here = here[:-1] if segments.pop(0) == "super" else here
            names = (here if path.startswith(("super", "self")) else []) + [s for s in segments if s != "crate"]
            while names and "::".join(names) not in modules:
                names.pop()
            target = "::".join(names)
            if target and target != module and not module.startswith(target + "::"):
                edges[module].add(target)
    return edges


def test_the_engine_checker_reads_use_trees_and_leaves_tests_out():
    assert _use_paths("crate::a::{b, c::{d, e as f}}") == ["crate::a::b", "crate::a::c::d", "crate::a::c::e"]
    # Braces inside string, raw string and char literals neither open nor close a block.
    tests = """mod tests { fn b() { s.find('}'); "}\\"}"; r#"}"#; crate::x::y(); } }"""
    source, in_files = _without_tests(f"fn a() {{}}\n#[cfg(test)]\n{tests}\n#[cfg(test)]\nmod harness;\nfn c() {{}}")
    assert "crate::x" not in source and "fn c" in source and in_files == {"harness"}


def test_the_engine_modules_form_no_cycle():
    edges = engine_graph()
    assert "cc" in edges["transport::tcp::sender"] and "wire" in edges["net::packet"]
    assert "transport::tcp::harness" not in edges  # test code
    assert cycle(edges) is None, " -> ".join(cycle(edges) or [])
