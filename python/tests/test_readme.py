"""Every ```python block of README.md and docs/guide.md runs (in a temporary directory): the examples stay true.
A block that uses PySpark runs after the session-wide local Spark session exists, so its
SparkSession.builder.getOrCreate() is that session (skipped without PySpark and Java)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = [code for doc in (ROOT / "README.md", ROOT / "docs" / "guide.md")
          for code in re.findall(r"^```python\n(.*?)^```", doc.read_text(encoding="utf-8"), flags=re.S | re.M)]


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_readme_python_block(code, request, tmp_path, monkeypatch):
    if "pyspark" in code:
        request.getfixturevalue("spark")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "documented python block", "exec"), {"__name__": "readme"})
