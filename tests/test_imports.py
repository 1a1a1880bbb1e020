"""Imports point one way: no cycle among pokerduel's modules, selectors import no bandits, bandits no poker code.

The graph holds module-level imports only (imports inside functions run late and cannot deadlock an
import), relative imports resolved. Importing ``a.b.c`` first imports the packages ``a`` and ``a.b``, so
those are edges too, except packages that contain the importing module (already being imported).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import pokerduel

ROOT = Path(pokerduel.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("pokerduel",) + path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _top_level_imports(tree: ast.Module):
    """Import statements run when the module is imported: not inside functions or classes' methods."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        else:
            stack.extend(ast.iter_child_nodes(node))


def _targets(name: str, node) -> set[str]:
    """The pokerduel modules ``node`` (in module ``name``) imports."""
    if isinstance(node, ast.Import):
        bases = [alias.name for alias in node.names]
    else:
        if node.level:
            package = name if _is_package(name) else name.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{node.module}" if node.module else package
        else:
            base = node.module
        named = [f"{base}.{alias.name}" for alias in node.names]
        # ``from P import m`` of a submodule needs only ``m``; a name defined in ``P`` needs ``P`` itself
        needs_base = any(n not in MODULES for n in named)
        bases = ([base] if needs_base else []) + [n for n in named if n in MODULES]
    explicit = {b for b in bases if b in MODULES}
    implicit = set()
    for target in explicit:              # importing a.b.c first imports the packages a and a.b
        parts = target.split(".")
        implicit.update(".".join(parts[:n]) for n in range(1, len(parts)))
    # packages that hold the importer are already being imported: implicit edges to them are no cycle
    implicit = {t for t in implicit if not name.startswith(t + ".")}
    return (explicit | implicit) - {name}


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[name] = set().union(*(_targets(name, node) for node in _top_level_imports(tree)))
    return graph


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}      # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_graph_sees_imports():
    graph = import_graph()
    assert "pokerduel.players.base" in graph["pokerduel.play.populations"]
    assert "pokerduel.selectors.base" in graph["pokerduel.bandits.savage_topk"]
    assert "pokerduel.selectors" in graph["pokerduel.bandits.savage_topk"]   # the package, imported first
    assert "pokerduel.bandits.base" in graph["pokerduel.bandits.savage"]


def test_find_cycle_finds_one():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    cycle = _find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def _all_imports(prefix: str) -> dict[str, set[str]]:
    """Every pokerduel module each module under ``prefix`` imports, inside functions too."""
    found = {}
    for name, path in MODULES.items():
        if name == prefix or name.startswith(prefix + "."):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found[name] = set().union(set(), *(_targets(name, node) for node in ast.walk(tree)
                                               if isinstance(node, (ast.Import, ast.ImportFrom))))
    return found


def _outside(imports: dict[str, set[str]], allowed: tuple[str, ...]) -> dict[str, list[str]]:
    """The imports of each module that are neither the root package nor under ``allowed`` (nor a package
    holding an allowed module, imported first: ``pokerduel.infra`` for ``pokerduel.infra.jit``)."""
    def ok(target: str) -> bool:
        return target == "pokerduel" or any(target == a or target.startswith(a + ".") or a.startswith(target + ".")
                                            for a in allowed)

    bad = {name: sorted(t for t in targets if not ok(t)) for name, targets in imports.items()}
    return {name: targets for name, targets in bad.items() if targets}


def test_bandits_import_no_poker_code():
    poker = ("pokerduel.players", "pokerduel.engine", "pokerduel.play")
    bad = {name: sorted(t for t in targets if t.startswith(poker))
           for name, targets in _all_imports("pokerduel.bandits").items()}
    assert not any(bad.values()), f"bandits import poker code: { {n: t for n, t in bad.items() if t} }"


def test_lower_layers_never_reach_up():
    """Not even at call time: the engine and the players see only themselves, the selectors no bandits,
    and SAVAGE builds on ``bandits.base``, not on the module that registers it."""
    base = ("pokerduel.infra.jit", "pokerduel.infra.exp", "pokerduel.infra.log", "pokerduel.infra.storage")
    assert not _outside(_all_imports("pokerduel.engine"), ("pokerduel.engine",) + base)
    assert not _outside(_all_imports("pokerduel.players"), ("pokerduel.engine", "pokerduel.players") + base)
    assert not _outside(_all_imports("pokerduel.selectors"), ("pokerduel.selectors", "pokerduel.infra.parallel") + base)
    for module in ("pokerduel.bandits.base", "pokerduel.bandits.savage", "pokerduel.bandits._savage"):
        assert "pokerduel.bandits.algorithms" not in _all_imports(module)[module]


def test_selectors_import_no_bandits():
    code = ("import pokerduel.selectors, sys; "
            "assert not any(m.startswith('pokerduel.bandits') for m in sys.modules), "
            "sorted(m for m in sys.modules if m.startswith('pokerduel.bandits'))")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_registered_plugins_resolve_in_any_import_order():
    code = ("import numpy as np, sys; from pokerduel.selectors import SELECTORS, make_selector, thurstone; "
            "o = thurstone(6, np.random.default_rng(1), np.random.default_rng(2)); "
            "sel = make_selector('savage', o, k=2, budget=300, rng=np.random.default_rng(3)); "
            "from pokerduel.bandits.savage_topk import SavageTopK; "
            "assert type(sel) is SavageTopK and SELECTORS['savage'] is SavageTopK; "
            "from pokerduel.selectors import SavageTopK as S; assert S is SavageTopK; "
            "assert 'pokerduel.play.populations' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_population_specs_resolve_with_only_players_imported(tmp_path):
    from pokerduel.play.populations import new_population, save_population

    path = tmp_path / "pop.h5"
    pop = new_population(4, seed=2)
    save_population(pop, path)
    code = ("import sys, numpy as np; from pokerduel.players.base import make_player; "
            "assert 'pokerduel.play.populations' not in sys.modules; "
            f"p = make_player({str(path) + ':3'!r}); "
            f"assert p.name == {str(path) + ':3'!r}, p.name; "
            "assert 'pokerduel.play.populations' in sys.modules; "
            "from pokerduel.play.populations import load_population; "
            f"g = load_population({str(path)!r}).genomes[3].astype(np.float64); "
            "assert np.array_equal(p.params[-g.size:], g)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_play_reexports_lazily():
    code = ("import sys, pokerduel.play as play; "
            "assert not any(m.startswith('pokerduel.play.') for m in sys.modules), sorted(sys.modules); "
            "from pokerduel.play import LiveOracle, ReplayOracle, load_ground_truth, new_population, play_duplicate; "
            "from pokerduel.play.matches import play_duplicate as p; assert p is play_duplicate; "
            "from pokerduel.play.oracles import LiveOracle as L; assert L is LiveOracle; "
            "assert set(play.__all__) <= set(dir(play)); "
            "assert all(getattr(play, n) is not None for n in play.__all__)")
    subprocess.run([sys.executable, "-c", code], check=True)
    import pokerduel.play

    with pytest.raises(AttributeError):
        pokerduel.play.no_such_name
