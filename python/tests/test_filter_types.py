"""What every filter type shares with Filter: the same key types (read in place), bulk calls
that agree with single keys and release the GIL, a lock for threads, and value semantics
(equality, copies, bytes, files, pickling)."""
import copy
import pickle
import numpy as np
import pyarrow as pa
import pytest

import batchbloom
from test_threads import assert_releases_the_gil, run_threads
from test_zero_copy import peak_allocation

N = 20_000

FILTER_TYPES = {
    "Filter": lambda n: batchbloom.Filter(n, 0.01),
    "CountingFilter": lambda n: batchbloom.CountingFilter(n, 0.01),
    "DeletableFilter": lambda n: batchbloom.DeletableFilter(n, 0.01),
    "ScalableFilter": lambda n: batchbloom.ScalableFilter(max(n // 4, 1), fpr=0.01),
    "ClassicFilter": lambda n: batchbloom.ClassicFilter(n, 0.01),
    "ClassicFilter-spark_v2": lambda n: batchbloom.ClassicFilter.spark(n, 0.01, seed=-7),
    "ClassicFilter-spark_v1": lambda n: batchbloom.ClassicFilter.spark(n, 0.01, scheme="spark_v1"),
}


@pytest.fixture(params=sorted(FILTER_TYPES))
def make(request):
    return FILTER_TYPES[request.param]


def test_every_key_form_is_the_same_key(make, keys):
    f = make(N)
    f.insert(keys)
    signed = keys.view(np.int64)
    assert f.contains(keys).all() and f.contains(signed).all()
    assert f.contains(pa.array(keys)).all() and f.contains(pa.array(signed)).all()
    assert f.contains([int(k) for k in keys[:100]]).all()
    assert f.count(pa.chunked_array([pa.array(keys[:7]), pa.array(keys[7:100])])) == 100

    narrow = np.array([-5, 0, 7, 2**31 - 1], dtype=np.int32)
    f.insert(narrow)
    for k in narrow.tolist():
        assert k in f and np.int64(k) in f
    assert f.contains(narrow.astype(np.int64)).all()
    small = np.array([1, 2**32 - 1], dtype=np.uint32)
    f.insert(small)
    assert f.contains(small.astype(np.uint64)).all() and (2**32 - 1) in f

    words = [f"w{i}-é" for i in range(300)]
    f.insert(pa.array(words, pa.large_string()))
    assert f.contains(words).all() and f.contains([w.encode() for w in words]).all()
    assert f.contains(pa.array(words)).all() and f.contains(pa.array([w.encode() for w in words], pa.binary())).all()


def test_bulk_answers_equal_single_keys(make, keys, rng):
    f = make(N)
    f.insert(keys[: N // 2])
    probes = np.concatenate([keys, rng.integers(0, 2**64, size=2000, dtype=np.uint64)])
    bulk = f.contains(probes)
    assert bulk.tolist() == [int(k) in f for k in probes]
    assert f.count(probes) == int(bulk.sum())
    assert bulk[: N // 2].all()  # no false negatives
    assert f.count(np.zeros(0, dtype=np.uint64)) == 0 and f.contains([]).size == 0


def test_value_semantics(make, keys, tmp_path):
    f = make(N)
    f.insert(keys[:5000])
    f.add("one more")
    cls = type(f)
    for g in (pickle.loads(pickle.dumps(f)), copy.copy(f), copy.deepcopy(f), f.copy(),
              cls.from_bytes(f.to_bytes()), cls.from_bytes(bytearray(f.to_bytes()))):
        assert type(g) is cls and g == f and not (g != f)
    f.save(tmp_path / "f.bbf")
    assert cls.load(tmp_path / "f.bbf") == f
    g = f.copy()
    g.insert(keys[5000:6000])
    assert g != f and not f.contains(keys[5000:6000]).all()  # copies are independent
    with pytest.raises(batchbloom.FormatError):
        cls.from_bytes(f.to_bytes()[:-1])
    with pytest.raises(TypeError):
        hash(f)
    other = batchbloom.Filter(10, 0.1) if cls is not batchbloom.Filter else batchbloom.CountingFilter(10, 0.1)
    with pytest.raises(batchbloom.FormatError):
        cls.from_bytes(other.to_bytes())


def test_arrays_are_read_in_place(make):
    keys = np.arange(400_000, dtype=np.uint64)
    f = make(keys.size)
    assert peak_allocation(lambda: f.insert(keys)) < keys.nbytes // 8
    assert peak_allocation(lambda: f.count(keys)) < keys.nbytes // 8
    words = pa.array([f"k{i}" for i in range(200_000)])
    before = pa.total_allocated_bytes()
    assert peak_allocation(lambda: f.insert(words)) < words.nbytes // 8
    assert pa.total_allocated_bytes() == before and f.count(words) == len(words)


def test_concurrent_writers_lose_nothing(make, keys):
    shared, reference = make(N), make(N)
    parts = np.array_split(keys, 6)
    for p in parts:
        reference.insert(p)
    run_threads([lambda p=p: shared.insert(p) for p in parts] + [lambda: shared.count(keys)] * 2)
    assert shared.contains(keys).all()
    if not isinstance(shared, batchbloom.ScalableFilter):  # stages depend on the insertion order
        assert shared == reference


def test_bulk_calls_release_the_gil(make):
    keys = np.arange(4_000_000, dtype=np.uint64)
    f = make(1_000_000)
    f.insert(keys[:1_000_000])
    assert_releases_the_gil(lambda: f.contains(keys))
