"""The package's floors hold: python/symhlo's imports point one way, with no cycle and no private
name imported across modules.

Floors (README "Layout"): 0 errors, stages; 1 contract/; 2 frontend/; 3 backend/; 4 tools/. A
module imports from its own floor or below; tools may also import the package root (the public
API, as a user does). Every import counts, at the top of a file or inside a function; at most
five function-local imports of the package remain, each deferring a heavy dependency. The
imports are read with `ast` (nothing is imported), so a checkout without torch can run this too.
The checker is tested on small made-up packages first, so that it is known to fail when it should.

lib/ (the compiler, symhlo.passes) below them: it imports MLIR only, builds at most five ops
bypassing OpBuilder, and is the one owner of the contract's attribute names and of "unbounded"
(lib/contract_attrs.py): no other file spells them; lib/size_exprs.py is the one parser of the
contract's size text. (Module names equal to pass names: test_registry.py.)
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "symhlo"
FLOORS = {"errors": 0, "stages": 0, "contract": 1, "frontend": 2, "backend": 3, "tools": 4}
MAX_LOCAL_IMPORTS = 5


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name (relative to the package; "" for its __init__) -> file."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(root: Path) -> list[tuple[str, str, str | None, bool]]:
    """(importer, imported module, imported name or None, inside a function) for each import of
    the package by one of its own modules."""
    mods = modules(root)
    pkg = root.name
    out = []
    for cur, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        functions = [f for f in ast.walk(tree)
                     if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        local = {id(n) for f in functions for n in ast.walk(f)
                 if isinstance(n, (ast.Import, ast.ImportFrom))}
        package = cur.split(".") if path.name == "__init__.py" and cur else cur.split(".")[:-1]
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                    mod = ".".join([p for p in base if p] + ([node.module] if node.module else []))
                elif node.module == pkg or (node.module or "").startswith(pkg + "."):
                    mod = node.module[len(pkg) + 1:]
                else:
                    continue
                for alias in node.names:
                    full = f"{mod}.{alias.name}" if mod else alias.name
                    targets.append((full, None) if full in mods else (mod, alias.name))
            elif isinstance(node, ast.Import):
                targets = [(a.name[len(pkg) + 1:] if a.name != pkg else "", None)
                           for a in node.names if a.name == pkg or a.name.startswith(pkg + ".")]
            for mod, name in targets:
                if mod in mods and mod != cur:
                    out.append((cur, mod, name, id(node) in local))
    return out


def floor(module: str) -> int | None:
    """The floor of a module ("" is the package root: the public API, above every floor)."""
    return FLOORS.get(module.split(".")[0]) if module else 5


def problems(root: Path) -> list[str]:
    """Everything that breaks the floors, as readable lines (empty when they hold)."""
    edges = imports(root)
    found = []
    for cur, mod, name, _ in edges:
        if name and name.startswith("_") and not name.startswith("__"):
            found.append(f"private import: {cur} imports {mod}.{name}")
        lo, hi = floor(cur), floor(mod)
        if lo is None:
            found.append(f"no floor: {cur} (put it in one of {sorted(FLOORS)})")
        elif hi is not None and hi > lo and not (lo == 4 and mod == ""):
            found.append(f"upward import: {cur} (floor {lo}) imports {mod} (floor {hi})")
    graph: dict[str, set[str]] = {}
    for cur, mod, _, _ in edges:
        graph.setdefault(cur, set()).add(mod)
    for cycle in cycles(graph):
        found.append("import cycle: " + " -> ".join(cycle))
    local = Counter(f"{cur} -> {mod}" for cur, mod, _, inside in edges if inside)
    if sum(local.values()) > MAX_LOCAL_IMPORTS:
        listed = ", ".join(f"{e} ({n}x)" for e, n in sorted(local.items()))
        found.append(f"{sum(local.values())} function-local imports of the package (at most "
                     f"{MAX_LOCAL_IMPORTS}): {listed}")
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp) + [sorted(comp)[0]])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "symhlo"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_checker_finds_a_cycle_a_private_import_and_an_upward_import(tmp_path):
    root = _package(tmp_path, {
        "errors.py": "",
        "contract/__init__.py": "",
        "contract/dims.py": "from .signature import Signature\n",
        "contract/signature.py": "def f():\n    from .dims import _linear\n",
        "frontend/__init__.py": "",
        "frontend/export.py": "from ..backend.compiler import compile\n",
        "backend/__init__.py": "",
        "backend/compiler.py": "from symhlo.frontend import export\n",
    })
    assert sorted(problems(root)) == [
        "import cycle: backend.compiler -> frontend.export -> backend.compiler",
        "import cycle: contract.dims -> contract.signature -> contract.dims",
        "private import: contract.signature imports contract.dims._linear",
        "upward import: frontend.export (floor 2) imports backend.compiler (floor 3)",
    ]


def test_checker_counts_local_imports_and_wants_a_floor_for_every_module(tmp_path):
    local = "".join(f"def f{k}():\n    from .errors import E{k}\n" for k in range(6))
    root = _package(tmp_path, {"errors.py": "", "stages.py": local,
                               "misc.py": "from . import errors\n"})
    assert problems(root) == [
        "no floor: misc (put it in one of ['backend', 'contract', 'errors', 'frontend', 'stages', "
        "'tools'])",
        "6 function-local imports of the package (at most 5): stages -> errors (6x)",
    ]


def test_symhlo_package_keeps_its_floors():
    assert problems(PACKAGE) == []


def test_every_module_docstring_names_its_floor():
    missing = []
    for mod, path in modules(PACKAGE).items():
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        if mod and f"floor {floor(mod)}" not in doc.lower():
            missing.append(f"{mod}: {doc.splitlines()[0] if doc else '(no docstring)'}")
    assert missing == []


# -- lib/: ops through the builder, one owner per fact ---------------------------------------------

ROOT = PACKAGE.parents[1]
MAX_RAW_OPS = 5
BUILDER_FILES = ("builder.py", "ir_util.py")  # the builder and the one raw `create` it calls


def raw_op_constructions(files: list[Path]) -> Counter:
    """file -> how many ops it builds bypassing OpBuilder: a bare `create(...)` or
    `ir.Operation.create(...)` call (an OpBuilder's `b.create(...)` does not count)."""
    found = Counter()
    for path in files:
        if path.name in BUILDER_FILES:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "create") or (
                    isinstance(f, ast.Attribute) and f.attr == "create"
                    and isinstance(f.value, ast.Attribute) and f.value.attr == "Operation"):
                found[path.name] += 1
    return found


def contract_attr_names(path: Path) -> set[str]:
    """The attribute names lib/contract_attrs.py defines (read with ast)."""
    return {n.value.value for n in ast.parse(path.read_text()).body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str) and n.value.value.startswith("symhlo.")}


def second_owners(files: list[Path], names: set[str]) -> list[str]:
    """Where a file other than contract_attrs.py spells a contract attribute name as a string, or
    "unbounded" as 2**63 - 1 or 2**62."""
    def power(n, exp):
        return (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow)
                and getattr(n.left, "value", None) == 2 and getattr(n.right, "value", None) == exp)
    out = []
    for path in files:
        if path.name == "contract_attrs.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value in names:
                out.append(f"{path.name}:{node.lineno}: {node.value!r}")
            elif power(node, 62) or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub)
                                     and power(node.left, 63)
                                     and getattr(node.right, "value", None) == 1):
                out.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return sorted(out)


def _sources() -> list[Path]:
    return sorted([*(ROOT / "lib").glob("*.py"), *PACKAGE.rglob("*.py")])


def test_checkers_find_raw_ops_and_second_owners(tmp_path):
    f = tmp_path / "p.py"
    f.write_text("create('a', [], [], loc=l, ip=i)\nir.Operation.create('b')\nb.create('c', [], [])\n"
                 "x = {'symhlo.symbols': 1}\nhi = 2**63 - 1\nbig = h >= 2**62\nok = 2**31 - 1\n")
    assert raw_op_constructions([f]) == Counter({"p.py": 2})
    assert second_owners([f], {"symhlo.symbols"}) == [
        "p.py:4: 'symhlo.symbols'", "p.py:5: 2 ** 63 - 1", "p.py:6: 2 ** 62"]


def test_lib_builds_ops_through_the_builder():
    raw = raw_op_constructions(_sources())
    assert sum(raw.values()) <= MAX_RAW_OPS, dict(raw)


def test_contract_names_and_unbounded_have_one_owner():
    names = contract_attr_names(ROOT / "lib" / "contract_attrs.py")
    assert {"symhlo.symbols", "symhlo.arg_shapes", "symhlo.shape_assertions"} <= names
    assert second_owners(_sources(), names) == []


def test_size_text_has_one_parser():
    """The contract's size text (symhlo.arg_shapes, relations, torch's float guards) is parsed in
    one place, lib/size_exprs.py: no other module of lib/ or python/symhlo reads text with `ast`
    (symhlo-fold-size-ranges and symhlo-insert-call-checks-for-iree walk its trees,
    contract.dims builds them as sympy and evaluates them)."""
    readers = sorted({str(path.relative_to(ROOT)) for path in _sources()
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, (ast.Import, ast.ImportFrom))
               and ("ast" in [a.name for a in node.names] if isinstance(node, ast.Import)
                    else node.module == "ast")})
    assert readers == ["lib/size_exprs.py"]


def test_lib_imports_mlir_only():
    """lib/ (symhlo.passes) never imports the Python package or torch: the package's floors
    import it, not the other way round."""
    bad = []
    for path in sorted((ROOT / "lib").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                    else [])
            bad += [f"{path.name}: {m}" for m in mods if m.split(".")[0] in ("symhlo", "torch")]
    assert bad == []
