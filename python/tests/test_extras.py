"""Importing a module whose extra is not installed says which extra to install."""
import importlib
import sys

import pytest


@pytest.mark.parametrize(
    "module, missing, extra",
    [
        ("batchbloom.arrow", "pyarrow", "arrow"),
        ("batchbloom.duckdb", "pyarrow", "duckdb"),
        ("batchbloom.spark", "pyspark", "spark"),
        ("batchbloom.spark", "pyarrow", "spark"),
    ],
)
def test_missing_extra_is_named(monkeypatch, module, missing, extra):
    monkeypatch.setitem(sys.modules, missing, None)  # import of it raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, module, raising=False)  # put back after the test
    with pytest.raises(ImportError, match=rf"{module} needs {missing}.*pip install 'batchbloom\[{extra}\]'"):
        importlib.import_module(module)


def test_a_broken_dependency_keeps_its_own_error(monkeypatch, tmp_path):
    # Installed, but something it imports is missing: that module's error, not "install the extra".
    (tmp_path / "installed_but_broken.py").write_text("import batchbloom_no_such_module\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from batchbloom._extra import require

    with pytest.raises(ModuleNotFoundError, match="batchbloom_no_such_module"):
        require("batchbloom.test", "test", "installed_but_broken")
