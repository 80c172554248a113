"""The optional dependencies of batchbloom's modules, checked on import: a missing one is named
with the extra that installs it."""

from __future__ import annotations

import importlib


def require(module: str, extra: str, *packages: str) -> None:
    """Imports each of `packages` for `module`; ImportError naming the extra if one is missing."""
    for package in packages:
        try:
            importlib.import_module(package)
        except ModuleNotFoundError as e:
            if (e.name or "").partition(".")[0] != package.partition(".")[0]:
                raise  # installed, but something it imports is not: its own error says what
            raise ImportError(
                f"{module} needs {package}, which is not installed: pip install 'batchbloom[{extra}]'"
            ) from e
