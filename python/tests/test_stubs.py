"""The type stubs are what nanobind's stub generator makes of the bindings, checked in as they
come out of it (`./dev stubs` regenerates them), and every public name has a type in them."""
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import batchbloom

PACKAGE = Path(batchbloom.__file__).parent
STUBS = [("batchbloom._core", "_core.pyi"), ("batchbloom._core.parquet", "parquet.pyi")]


@pytest.mark.parametrize("module, stub", STUBS)
def test_generated_stubs_match_the_bindings(module, stub, tmp_path):
    out = tmp_path / stub
    subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", module, "-o", out], check=True)
    assert out.read_text() == (PACKAGE / stub).read_text(), f"python/batchbloom/{stub} is out of date: ./dev stubs"


def test_every_argument_has_a_type():
    """The bindings take most arguments as handles (args.hpp checks them); nb::typed and nb::sig
    give each the type it accepts, so no stub parameter is a bare `object`."""
    text = (PACKAGE / "_core.pyi").read_text()
    untyped = [line.strip() for line in text.splitlines() if "def " in line and ": object" in line]
    assert untyped == [line for line in untyped if "memo: object" in line]


def test_stubs_cover_the_public_api():
    text = (PACKAGE / "_core.pyi").read_text()
    python = (PACKAGE / "_update.py").read_text()  # typed Python of the package's own (lock, update)
    for name in batchbloom.__all__:
        if name != "__version__":
            assert f"class {name}" in text or f"def {name}(" in text or f"def {name}(" in python, name
    for name in ("insert", "update", "contains", "count", "union", "intersection", "issubset", "save", "load"):
        assert f"def {name}(" in text


def test_everything_public_has_a_docstring():
    for name in ("Filter", "Params", "available_backends", "resolve_backend", "estimated_jaccard", "load_any"):
        assert getattr(batchbloom, name).__doc__
    for name in ("insert", "contains", "count", "to_bytes", "from_bytes", "save", "load", "fold"):
        assert getattr(batchbloom.Filter, name).__doc__
    for cls in (batchbloom.CountingFilter, batchbloom.ScalableFilter, batchbloom.ClassicFilter,
                batchbloom.DeletableFilter, batchbloom.JoinFilter):
        assert cls.__doc__ and cls.contains.__doc__ and cls.count.__doc__
        assert cls is batchbloom.JoinFilter or cls.insert.__doc__
    assert "nulls" in inspect.getdoc(batchbloom.Filter.insert)
