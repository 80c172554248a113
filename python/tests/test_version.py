"""One version: the C++ header include/batchbloom/version.hpp is its only source."""
import importlib.metadata
import re
from pathlib import Path

import batchbloom

HEADER = Path(__file__).resolve().parents[2] / "include" / "batchbloom" / "version.hpp"


def test_module_package_and_header_agree():
    declared = re.search(r'#define BATCHBLOOM_VERSION_STRING "([0-9.]+)"', HEADER.read_text()).group(1)
    assert batchbloom.__version__ == declared
    assert importlib.metadata.version("batchbloom") == declared
