"""The Python package and the C++ command-line program build the same filter bytes.

./dev test sets BATCHBLOOM_CLI to the Release build's build/tools/batchbloom."""
import os
import subprocess

import numpy as np
import pytest

import batchbloom

CLI = os.environ.get("BATCHBLOOM_CLI")
pytestmark = pytest.mark.skipif(
    not CLI or not os.access(CLI, os.X_OK), reason="BATCHBLOOM_CLI does not name the batchbloom program"
)


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
    # The CLI reads a line that is a decimal integer as an integer key (negative: two's
    # complement) and any other line as a byte string; the Python keys say which is which.
    words = [f"user-{i}@example.org" for i in rng.integers(0, 10**12, size=3000)]
    numbers = rng.integers(-(2**63), 2**63 - 1, size=3000, dtype=np.int64)
    (tmp_path / "keys.txt").write_text("\n".join(words + [str(n) for n in numbers]) + "\n")
    cli("build", "--bits-per-key", "12", "--out", tmp_path / "cli.bbf", tmp_path / "keys.txt")
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
