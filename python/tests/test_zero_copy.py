"""Key arrays are read in place: no NumPy or Arrow copy of a batch is made.

tracemalloc sees every NumPy data allocation and pyarrow reports its pool, so a conversion
(astype, ascontiguousarray, to_numpy, combine_chunks, cast) of a batch would show up here as
an allocation of the batch's size."""
import tracemalloc

import numpy as np
import pyarrow as pa
import pytest

import batchbloom

N = 500_000


def peak_allocation(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.uint32, np.int32])
def test_numpy_batches_are_not_copied(dtype):
    keys = np.arange(N, dtype=dtype)
    f = batchbloom.Filter(n=N, fpr=0.01)
    assert peak_allocation(lambda: f.insert(keys)) < keys.nbytes // 8
    assert peak_allocation(lambda: f.count(keys)) < keys.nbytes // 8
    assert f.count(keys) == N


def test_read_only_and_memory_mapped_arrays(tmp_path):
    keys = np.arange(10_000, dtype=np.uint64)
    keys.setflags(write=False)
    f = batchbloom.Filter(n=keys.size, fpr=0.01)
    f.insert(keys)
    path = tmp_path / "keys.u64"
    keys.tofile(path)
    mapped = np.memmap(path, dtype=np.uint64, mode="r")
    assert f.contains(mapped).all()


@pytest.mark.parametrize(
    "make",
    [
        lambda: pa.array(np.arange(N, dtype=np.uint64)),
        lambda: pa.array(np.arange(N, dtype=np.int32)),
        lambda: pa.array([f"k{i}" for i in range(N)]),
        lambda: pa.array([f"k{i}".encode() for i in range(N)], pa.large_binary()),
        lambda: pa.chunked_array([pa.array(np.arange(N // 2)), pa.array(np.arange(N // 2, N))]),
    ],
)
def test_arrow_batches_are_not_copied(make):
    arr = make()
    f = batchbloom.Filter(n=N, fpr=0.01)
    before = pa.total_allocated_bytes()
    size = arr.nbytes
    assert peak_allocation(lambda: f.insert(arr)) < size // 8
    assert pa.total_allocated_bytes() == before
    assert f.count(arr) == N
    assert pa.total_allocated_bytes() == before


def test_contains_result_is_a_fresh_owned_array():
    keys = np.arange(1000, dtype=np.uint64)
    f = batchbloom.Filter(n=1000, fpr=0.01)
    f.insert(keys)
    hits = f.contains(keys)
    assert hits.flags.c_contiguous and hits.flags.writeable
    hits[:] = False  # the caller owns it; the filter is unaffected
    assert f.contains(keys).all()
    del f
    assert not hits.any()
