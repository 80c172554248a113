"""The batchbloom command-line program the tests compare against: BATCHBLOOM_CLI (./dev test
sets it to the Release build's build/tools/batchbloom), else the one the installed package
carries (batchbloom/bin/batchbloom)."""
import os
from pathlib import Path

import pytest

import batchbloom

CLI = os.environ.get("BATCHBLOOM_CLI") or str(Path(batchbloom.__file__).with_name("bin") / "batchbloom")
requires_cli = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason=f"no batchbloom program at {CLI}")
