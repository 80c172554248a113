"""The `batchbloom` console command: replaces this process with the command-line program the
wheel carries (batchbloom/bin/batchbloom), so its exit status, signals and streams are its own."""

import os
import sys
from pathlib import Path


def main() -> None:
    exe = Path(__file__).resolve().parent / "bin" / "batchbloom"
    if not os.access(exe, os.X_OK):
        sys.exit(f"batchbloom: the command-line program is missing from the installed package ({exe})")
    os.execv(exe, [str(exe), *sys.argv[1:]])
