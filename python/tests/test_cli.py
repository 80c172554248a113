"""The Python package and the C++ command-line program build the same filter bytes.

./dev test sets BATCHBLOOM_CLI to the Release build's build/tools/batchbloom."""
import os
import subprocess

import numpy as np
import pytest

import batchbloom

from cli_program import CLI, requires_cli

pytestmark = requires_cli


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize(
    "options, kw",
    [
        ([], {}),
        (["--shape", "split256", "--hash", "murmur3", "--seed", "42"], dict(shape="split256", hash="murmur3", seed=42)),
        (["--shape", "line512", "--seed", "7"], dict(shape="line512", seed=7)),
    ],
)
def test_u64_keys_same_bytes_as_cli(keys, tmp_path, options, kw):
    keys.astype("<u8").tofile(tmp_path / "keys.u64")
    cli("build", "--fpr", "0.01", "--u64", *options, "--out", tmp_path / "cli.bbf", tmp_path / "keys.u64")
    f = batchbloom.Filter(n=keys.size, fpr=0.01, **kw)
    f.insert(keys)
    assert (tmp_path / "cli.bbf").read_bytes() == f.to_bytes()
    assert batchbloom.Filter.load(tmp_path / "cli.bbf") == f


def test_text_keys_same_bytes_as_cli(tmp_path, rng):
    # With --key-type auto the CLI reads a decimal line as an integer key (negative: two's
    # complement) and any other line as a byte string; the Python keys say which is which.
    words = [f"user-{i}@example.org" for i in rng.integers(0, 10**12, size=3000)]
    numbers = rng.integers(-(2**63), 2**63 - 1, size=3000, dtype=np.int64)
    (tmp_path / "keys.txt").write_text("\n".join(words + [str(n) for n in numbers]) + "\n")
    cli("build", "--bits-per-key", "12", "--key-type", "auto", "--out", tmp_path / "cli.bbf", tmp_path / "keys.txt")
    f = batchbloom.Filter(n=len(set(words)) + len(set(numbers.tolist())), bits_per_key=12)
    f.insert(words)
    f.insert(numbers)
    assert (tmp_path / "cli.bbf").read_bytes() == f.to_bytes()


def test_cli_queries_a_python_filter(keys, tmp_path):
    f = batchbloom.Filter(n=keys.size, fpr=0.01)
    f.insert(keys[: keys.size // 2])
    f.save(tmp_path / "py.bbf")
    keys.astype("<u8").tofile(tmp_path / "probe.u64")
    assert int(cli("query", tmp_path / "py.bbf", tmp_path / "probe.u64", "--u64", "--count")) == f.count(keys)


# A text key is the same key from every front end: Python's and C++'s strings are byte
# strings, and the program's build reads a line as a byte string unless told otherwise
# (--key-type), recording the kinds in the file so that its queries read lines the same way.
# "007" and "02134" would be the integers 7 and 2134 under the per-line rule.
FRONT_END_KEYS = ["123", "007", "02134", "abc"]
CXX = os.path.join(os.path.dirname(CLI or ""), os.pardir, "tests", "cli", "front_end_keys")


def build_with(front_end, path):
    if front_end == "python":
        f = batchbloom.Filter(n=len(FRONT_END_KEYS), fpr=0.01)
        f.insert(FRONT_END_KEYS)
        f.save(path)
    elif front_end == "c++":
        subprocess.run([CXX, "build", path, *FRONT_END_KEYS], check=True)
    else:
        (path.parent / "keys.txt").write_text("\n".join(FRONT_END_KEYS) + "\n")
        cli("build", "--fpr", "0.01", "--out", path, path.parent / "keys.txt")


def count_with(front_end, path):
    if front_end == "python":
        return batchbloom.Filter.load(path).count(FRONT_END_KEYS)
    if front_end == "c++":
        return int(subprocess.run([CXX, "count", path, *FRONT_END_KEYS], check=True, capture_output=True).stdout)
    (path.parent / "probe.txt").write_text("\n".join(FRONT_END_KEYS) + "\n")
    done = subprocess.run([CLI, "query", "--count", path, path.parent / "probe.txt"], check=True, capture_output=True)
    assert done.stderr == b""  # no warning: the file says its keys are strings
    return int(done.stdout)


@pytest.mark.skipif(not os.access(CXX, os.X_OK), reason="the build tree has no tests/cli/front_end_keys")
@pytest.mark.parametrize("builder", ["python", "c++", "cli"])
@pytest.mark.parametrize("querier", ["python", "c++", "cli"])
def test_text_keys_are_found_from_every_front_end(tmp_path, builder, querier):
    build_with(builder, tmp_path / "f.bbf")
    assert count_with(querier, tmp_path / "f.bbf") == len(FRONT_END_KEYS)
