#!/usr/bin/env python3
"""Writes every ```cpp block of README.md to OUT_DIR/readme_example_N.cpp (N from 1).

The build compiles and the tests run each one, so the README's examples cannot rot."""
import pathlib
import re
import sys

readme, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
out_dir.mkdir(parents=True, exist_ok=True)
blocks = re.findall(r"^```cpp\n(.*?)^```", readme.read_text(), flags=re.S | re.M)
for old in out_dir.glob("readme_example_*.cpp"):
    old.unlink()
for i, code in enumerate(blocks, 1):
    (out_dir / f"readme_example_{i}.cpp").write_text(code)
print(len(blocks))
