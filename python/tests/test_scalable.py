"""ScalableFilter: grows by stages, keeps every key, and its FPR stays under the bound."""
import pickle

import numpy as np
import pyarrow as pa
import pytest

import batchbloom


def test_grows_and_keeps_every_key(keys, rng):
    s = batchbloom.ScalableFilter(1000, initial_fpr=0.01, growth=2, tightening=0.5)
    for part in np.array_split(keys, 7):
        s.insert(part)
    assert s.contains(keys).all() and s.count(keys) == keys.size
    assert s.inserted == keys.size and sum(s.stage_sizes) == keys.size
    stages = s.stages()
    assert len(stages) == len(s.stage_sizes) > 3
    assert all(isinstance(f, batchbloom.Filter) for f in stages)
    assert s.nbytes == sum(f.nbytes for f in stages)
    assert s.fpr_bound() == pytest.approx(0.02)
    absent = np.setdiff1d(rng.integers(0, 2**64, size=100_000, dtype=np.uint64), keys)
    assert s.count(absent) / absent.size < s.fpr_bound()
    assert s.predicted_fpr() < s.fpr_bound()


def test_key_types_and_single_keys():
    s = batchbloom.ScalableFilter(10)
    s.insert(pa.array(["x", "y"], pa.large_string()))
    s.insert(np.array([3, -4], dtype=np.int32))
    s.add(b"z")
    assert s.contains(["x", "y", "z"]).all() and -4 in s and 3 in s and np.int64(-4) in s
    assert s.count(pa.array([b"x", b"q"])) in (1, 2)
    assert s.inserted == 5


def test_value_semantics(tmp_path, keys):
    s = batchbloom.ScalableFilter(500, 0.02, shape="split256", hash="murmur3", seed=3)
    s.insert(keys[:3000])
    assert pickle.loads(pickle.dumps(s)) == s
    assert batchbloom.ScalableFilter.from_bytes(s.to_bytes()) == s
    s.save(tmp_path / "s.bbf")
    assert batchbloom.ScalableFilter.load(tmp_path / "s.bbf") == s
    t = s.copy()
    t.insert(keys[3000:3100])
    assert t != s and s.inserted == 3000
    with pytest.raises(batchbloom.FormatError, match="scalable"):
        batchbloom.Filter.from_bytes(s.to_bytes())


def test_total_fpr_holds_for_the_whole_filter(rng):
    # fpr= is the whole filter's: the first stage gets fpr * (1 - tightening), and grown to
    # 128x its first stage the measured FPR of absent keys stays at or below it.
    s = batchbloom.ScalableFilter(fpr=0.01, initial_capacity=1000)
    assert s.initial_fpr == pytest.approx(0.0015) and s.fpr_bound() <= 0.01
    assert (s.initial_capacity, s.growth, s.tightening) == (1000, 2.0, 0.85)
    s.insert(np.arange(128_000, dtype=np.uint64) * 7919)
    assert len(s.stage_sizes) == 8
    absent = rng.integers(2**40, 2**64, size=400_000, dtype=np.uint64)
    measured = s.count(absent) / absent.size
    assert 0 < measured <= 0.01 + 5 * (0.01 * 0.99 / absent.size) ** 0.5
    assert s.predicted_fpr() <= 0.01
    assert batchbloom.ScalableFilter(1000).fpr_bound() == pytest.approx(0.01)  # the default fpr
    t = batchbloom.ScalableFilter(1000, initial_fpr=0.01, tightening=0.5)
    assert t.initial_fpr == 0.01 and t.fpr_bound() == pytest.approx(0.02) and "initial_fpr=0.01" in repr(t)
    with pytest.raises(TypeError, match="not both"):
        batchbloom.ScalableFilter(1000, fpr=0.01, initial_fpr=0.01)


@pytest.mark.parametrize(
    "kwargs", [dict(initial_capacity=0), dict(initial_capacity=10, fpr=1.5), dict(initial_capacity=10, tightening=1.0),
               dict(initial_capacity=10, growth=0.5), dict(initial_capacity=10, initial_fpr=0.0)]
)
def test_bad_params(kwargs):
    with pytest.raises(batchbloom.Error):
        batchbloom.ScalableFilter(**kwargs)


def test_scratch_is_bounded_settable_and_given_back(rng, monkeypatch):
    # Large probes go stage by stage; with every stage on the partitioned path they keep
    # scratch between calls: the probe's and the stages' shared one, under one limit.
    s = batchbloom.ScalableFilter(20_000)
    inserted = rng.integers(0, 2**64, size=1_000_000, dtype=np.uint64)
    s.insert(inserted)
    queries = np.concatenate([inserted[:150_000], rng.integers(0, 2**64, size=150_000, dtype=np.uint64)])
    want = s.contains(queries)
    s.release_scratch()  # whatever the calls' measured paths kept
    assert s.scratch_bytes == 0 and s.scratch_limit >= 2 * 256 << 20
    monkeypatch.setenv("BATCHBLOOM_BATCH_PATH", "partitioned")
    batchbloom.reload_environment()
    assert (s.contains(queries) == want).all()
    assert 13 * queries.size <= s.scratch_bytes <= s.scratch_limit
    s.scratch_limit = 8 << 20
    assert s.scratch_limit == 8 << 20 and s.scratch_bytes <= 8 << 20
    assert (s.contains(queries) == want).all() and 0 < s.scratch_bytes <= 8 << 20
    s.release_scratch()
    assert s.scratch_bytes == 0
    s.scratch_limit = 0
    assert (s.contains(queries) == want).all() and s.scratch_bytes == 0
    # Not part of the value: a pickled copy is equal and holds none.
    copy = pickle.loads(pickle.dumps(s))
    assert copy == s and copy.scratch_bytes == 0
    with pytest.raises(batchbloom.Error):
        s.scratch_limit = -1
    with pytest.raises((batchbloom.Error, TypeError)):
        s.scratch_limit = "1G"
