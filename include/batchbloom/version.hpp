#pragma once
// The version of batchbloom, written here and nowhere else: CMake's project() reads it (and
// checks that the string and the numbers agree), and so does the Python package's build
// (python/pyproject.toml), whose batchbloom.__version__ is BATCHBLOOM_VERSION_STRING.
#define BATCHBLOOM_VERSION_MAJOR 0
#define BATCHBLOOM_VERSION_MINOR 1
#define BATCHBLOOM_VERSION_PATCH 0
#define BATCHBLOOM_VERSION_STRING "0.1.0"
