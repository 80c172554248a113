"""The type stubs describe what the module really has."""
import ast
import inspect
import subprocess
import sys
from pathlib import Path

import batchbloom

STUB = Path(batchbloom.__file__).with_name("__init__.pyi")


def stub_names():
    """Top-level names, and each class's members with those it inherits from the stub's own
    classes (the shared API is written once, in protocols that exist only in the stub)."""
    tree = ast.parse(STUB.read_text())
    top, own, bases = set(), {}, {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            own[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
        if isinstance(node, ast.AnnAssign):
            top.add(node.target.id)

    def members(cls):
        inherited = set().union(*(members(b) for b in bases[cls] if b in own))
        return own[cls] | inherited

    return top, {cls: members(cls) for cls in own}


def test_stubs_cover_the_public_api():
    top, members = stub_names()
    assert set(batchbloom.__all__) <= top
    classes = [n for n in batchbloom.__all__ if inspect.isclass(getattr(batchbloom, n))]
    assert {"Filter", "CountingFilter", "DeletableFilter", "ScalableFilter", "ClassicFilter", "JoinFilter"} <= set(classes)
    for cls in classes:
        if issubclass(getattr(batchbloom, cls), Exception):
            continue
        public = {n for n, _ in inspect.getmembers(getattr(batchbloom, cls)) if not n.startswith("_")}
        assert public == {n for n in members[cls] if not n.startswith("_")}, cls


def test_everything_public_has_a_docstring():
    for name in ("Filter", "Params", "available_backends", "resolve_backend", "estimated_jaccard", "load_any"):
        assert getattr(batchbloom, name).__doc__
    for name in ("insert", "contains", "count", "to_bytes", "from_bytes", "save", "load", "fold"):
        assert getattr(batchbloom.Filter, name).__doc__
    for cls in (batchbloom.CountingFilter, batchbloom.ScalableFilter, batchbloom.ClassicFilter,
                batchbloom.DeletableFilter, batchbloom.JoinFilter):
        assert cls.__doc__ and cls.contains.__doc__ and cls.count.__doc__
        assert cls is batchbloom.JoinFilter or cls.insert.__doc__


def test_generated_stubs_match_the_bindings(tmp_path):
    """Stubs generated from the bindings (nanobind's stub generator) are checked in as they come
    out of it: a binding changed without regenerating them fails here."""
    for module, stub in [("batchbloom._core.parquet", "parquet.pyi")]:
        out = tmp_path / stub
        subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", module, "-o", out], check=True)
        assert out.read_text() == STUB.with_name(stub).read_text(), (
            f"python/batchbloom/{stub} is out of date: python -m nanobind.stubgen -q -m {module} "
            f"-o python/batchbloom/{stub}"
        )
