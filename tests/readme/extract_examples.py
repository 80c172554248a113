#!/usr/bin/env python3
"""Writes every ```cpp block of the given Markdown files (README.md, docs/guide.md) to
OUT_DIR/readme_example_N.cpp (N from 1, in file order).

The build compiles and the tests run each one, so the documented examples cannot rot.

    extract_examples.py OUT_DIR FILE.md [FILE.md ...]"""
import pathlib
import re
import sys

out_dir, docs = pathlib.Path(sys.argv[1]), [pathlib.Path(p) for p in sys.argv[2:]]
out_dir.mkdir(parents=True, exist_ok=True)
blocks = [code for doc in docs for code in re.findall(r"^```cpp\n(.*?)^```", doc.read_text(), flags=re.S | re.M)]
for old in out_dir.glob("readme_example_*.cpp"):
    old.unlink()
for i, code in enumerate(blocks, 1):
    (out_dir / f"readme_example_{i}.cpp").write_text(code)
print(len(blocks))
