"""load_any: whatever filter a file or its bytes hold, as its own type (Spark's form too)."""
import os

import numpy as np
import pytest

import batchbloom

KINDS = [
    lambda: batchbloom.Filter(1000, 0.01, shape="split256", seed=3),
    lambda: batchbloom.CountingFilter(1000, 0.01),
    lambda: batchbloom.DeletableFilter(1000, 0.01, region_bits=4),
    lambda: batchbloom.ScalableFilter(100, fpr=0.01),
    lambda: batchbloom.ClassicFilter(1000, 0.01, hash="murmur3"),
    lambda: batchbloom.ClassicFilter.spark(1000, 0.03, scheme="spark_v1"),
]


@pytest.mark.parametrize("make", KINDS)
def test_every_kind_from_files_and_bytes(make, tmp_path):
    f = make()
    f.insert(np.arange(700, dtype=np.uint64))
    f.save(tmp_path / "f.bbf")
    for source in (tmp_path / "f.bbf", str(tmp_path / "f.bbf"), f.to_bytes(), bytearray(f.to_bytes()),
                   memoryview(f.to_bytes())):
        g = batchbloom.load_any(source)
        assert type(g) is type(f) and g == f


def test_spark_serialized_filters(tmp_path):
    f = batchbloom.ClassicFilter.spark(500, 0.02, seed=-5)
    f.insert(["a", "b"])
    (tmp_path / "spark.bin").write_bytes(f.to_spark_bytes())
    assert batchbloom.load_any(tmp_path / "spark.bin") == f
    assert batchbloom.load_any(f.to_spark_bytes()) == f


def test_errors(tmp_path):
    (tmp_path / "junk").write_bytes(b"not a filter at all")
    with pytest.raises(batchbloom.FormatError):
        batchbloom.load_any(tmp_path / "junk")
    with pytest.raises(batchbloom.FormatError, match="any kind") as e:
        batchbloom.load_any(b"not a filter at all")
    assert str(e.value).count("bad magic") == 1
    assert "Spark" in str(e.value)
    cut = batchbloom.CountingFilter(100, 0.01).to_bytes()[:-1]
    with pytest.raises(batchbloom.FormatError, match="counting filter"):
        batchbloom.load_any(cut)
    with pytest.raises(OSError):
        batchbloom.load_any(tmp_path / "missing.bbf")
    with pytest.raises(TypeError, match="path"):
        batchbloom.load_any(42)
    assert not os.path.exists(tmp_path / "missing.bbf")


@pytest.mark.parametrize("make", KINDS)
@pytest.mark.parametrize("junk", [b"JUNK", b"\0", b"x" * 200_000])
def test_from_bytes_rejects_trailing_bytes_as_load_any_does(make, junk):
    f = make()
    f.insert(np.arange(700, dtype=np.uint64))
    bad = f.to_bytes() + junk
    with pytest.raises(batchbloom.FormatError, match=rf"trailing data: {len(junk)} bytes after the filter"):
        type(f).from_bytes(bad)
    with pytest.raises(batchbloom.FormatError, match=rf"trailing data: {len(junk)} bytes after the filter"):
        batchbloom.load_any(bad)
