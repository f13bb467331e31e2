"""The package's structure: layers that import only downward, no import cycle, and no
package import hidden inside a function (where it would dodge a cycle)."""
from __future__ import annotations

import ast
from pathlib import Path

import arenaplan

PACKAGE = Path(arenaplan.__file__).resolve().parent

#: Layers, lowest first; a module may import from its own layer and those before it.
LAYERS = ["base", "model", "ops", "planning", "runtime", "latency", "export", "tflm", "api", "sweep", "cli",
          "package"]
BASE = {"errors", "units", "_version", "_core"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(module: str) -> str:
    if module == "":
        return "package"
    top = module.split(".")[0]
    if top in BASE:
        return "base"
    return top


def resolve(module: str, is_package: bool, node: ast.ImportFrom) -> list:
    """The package modules an ``from ... import ...`` names (absolute, dotted within the package)."""
    if node.level == 0:
        if not (node.module or "").startswith("arenaplan"):
            return []
        base = node.module.split(".")[1:]
    else:
        here = module.split(".") if module else []
        package = here if is_package else here[:-1]
        base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
    targets = []
    for alias in node.names:
        candidate = ".".join(base + [alias.name])
        targets.append(candidate if module_exists(candidate) else ".".join(base))
    return targets


def module_exists(dotted: str) -> bool:
    path = PACKAGE.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists() or dotted == "_core"


def import_graph():
    graph, local = {}, []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        tree = ast.parse(path.read_text())
        top_level = set(map(id, tree.body))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                found = resolve(module, path.name == "__init__.py", node)
            elif isinstance(node, ast.Import):
                found = [a.name.split(".", 1)[1] for a in node.names if a.name.startswith("arenaplan.")]
            else:
                continue
            if found and id(node) not in top_level:
                local.append(f"{module}:{node.lineno}")
            edges.update(t for t in found if t != module)
        graph[module] = edges
    return graph, local


def test_no_package_import_inside_a_function():
    _, local = import_graph()
    assert local == []


def test_every_import_goes_to_the_same_layer_or_below():
    graph, _ = import_graph()
    upward = [(m, t) for m, targets in graph.items() for t in targets
              if LAYERS.index(layer_of(t)) > LAYERS.index(layer_of(m))]
    assert upward == []


def test_the_import_graph_has_no_cycle():
    graph, _ = import_graph()
    # a package imports its submodules when it is imported: that is not a cycle back to it
    graph = {m: {t for t in ts if not m.startswith(t + ".") and t != ""} for m, ts in graph.items()}
    state, cycle = {}, []

    def visit(m, stack):
        state[m] = "open"
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                cycle.append(stack[stack.index(t):] + [t] if t in stack else [m, t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = "done"
    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycle == []


def test_the_graph_sees_the_known_edges():
    graph, _ = import_graph()
    # the checker reads real imports: the API wires latency sources into planning
    assert "latency.sources" in graph["api"] and "planning.context" in graph["api"]
    assert "planning.plan" in graph["runtime.interpreter"]


def test_public_names_of_the_design_still_work(tmp_path):
    import arenaplan as ap
    assert callable(ap.plan) and callable(ap.frontier) and isinstance(ap.Plan, type)
    m = ap.zoo.load("autoencoder")
    p = ap.plan(m)
    assert p.verify()
    again = ap.Plan.from_json(p.to_json(), m)
    assert again.verify() and again.buffers == p.buffers
    out = p.export_c(tmp_path)
    assert Path(out.source).exists()
    assert ap.targets.get("cortex-m7").name == "cortex-m7"
    assert ap.kernels.conv2d is not None and ap.lifetimes.tensor_lifetimes is not None


def _imported_tops(path: Path) -> set:
    """Top-level module names ``path`` imports, and the folders it puts on sys.path."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "insert" and "sys.path" in ast.unparse(node.func)):
            names.update(f"path:{c.value}" for c in ast.walk(node) if isinstance(c, ast.Constant)
                         and isinstance(c.value, str))
    return names


def test_benchmarks_and_tests_share_harness_and_import_neither_other():
    """What both need lives in harness/ (tests/conftest.py and the benchmarks put the
    checkout on sys.path): no benchmark imports test code, no test imports benchmark code."""
    root = Path(__file__).resolve().parents[1]
    tests = {p.stem for p in (root / "tests").rglob("*.py")} | {"reference", "firmware", "c"}
    benches = {p.stem for p in (root / "benchmarks").glob("*.py")}
    wrong = [(p.name, n) for p in (root / "benchmarks").glob("*.py") for n in _imported_tops(p)
             if n in tests or n == "path:tests"]
    wrong += [(str(p.relative_to(root)), n) for p in (root / "tests").rglob("*.py") for n in _imported_tops(p)
              if n in benches or n == "path:benchmarks"]
    assert wrong == []
    # and the harness itself imports neither
    assert [(p.name, n) for p in (root / "harness").rglob("*.py") for n in _imported_tops(p)
            if n in tests - {"reference", "firmware"} or n in benches or n in ("path:tests", "path:benchmarks")] == []
