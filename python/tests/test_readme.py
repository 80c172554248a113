"""Every ```python block of README.md and docs/*.md runs (in a temporary directory): the
examples stay true.
A block that uses PySpark runs after the session-wide local Spark session exists, so its
SparkSession.builder.getOrCreate() is that session (skipped without PySpark and Java).
BATCHBLOOM_DOC_PAGES=README.md (names, comma-separated) runs those pages' blocks only: ./dev's
wheel stage runs README's in a venv holding what README's install line installs."""
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
if os.environ.get("BATCHBLOOM_DOC_PAGES"):
    PAGES = [page for page in PAGES if page.name in os.environ["BATCHBLOOM_DOC_PAGES"].split(",")]
BLOCKS = [
    (f"{page.name}:block{i + 1}", code)
    for page in PAGES
    for i, code in enumerate(re.findall(r"^```python\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M))
]


def test_readme_has_python_examples():
    assert sum(name.startswith("README.md") for name, _ in BLOCKS) >= 1


@pytest.mark.parametrize("name, code", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_readme_python_block(name, code, request, tmp_path, monkeypatch):
    if "pyspark" in code:
        request.getfixturevalue("spark")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, name, "exec"), {"__name__": "readme"})
