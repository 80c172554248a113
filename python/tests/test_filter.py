"""The core Filter API: sizing, bulk and single-key calls, engines, threads, estimates."""
import numpy as np
import pytest

import batchbloom


def test_sizing_matches_params():
    f = batchbloom.Filter(n=100_000, fpr=0.01)
    assert f.params == batchbloom.Params.for_fpr(100_000, 0.01)
    assert (f.shape, f.blocks, f.k) == (f.params.shape, f.params.blocks, f.params.k)
    assert f.bits == f.params.bits == 8 * f.nbytes
    assert f.params.predicted_fpr(100_000) <= 0.01
    g = batchbloom.Filter(1000, bits_per_key=12, shape="split256", hash="murmur3", seed=9)
    assert g.params == batchbloom.Params.for_bits_per_key(1000, 12, "split256")
    assert (g.shape, g.hash_kind, g.seed, g.params.block_bytes) == ("split256", "murmur3", 9, 32)


def test_from_params_and_params_object():
    p = batchbloom.Params("line512", 64, 7)
    assert (p.shape, p.blocks, p.k, p.nbytes) == ("line512", 64, 7, 64 * 64)
    f = batchbloom.Filter.from_params(p, hash="xxh3", seed=3, backend="scalar", threads=1)
    assert f.params == p and f.backend == "scalar" and f.threads == 1 and f.seed == 3
    assert "line512" in repr(f) and repr(p) == "batchbloom.Params(shape='line512', blocks=64, k=7)"
    assert hash(p) == hash(batchbloom.Params("line512", 64, 7))


def test_no_false_negatives_and_fpr_near_prediction(keys, rng):
    n = keys.size
    f = batchbloom.Filter(n=n, fpr=0.01)
    f.insert(keys)
    hits = f.contains(keys)
    assert hits.dtype == np.bool_ and hits.shape == (n,) and hits.all()
    assert f.count(keys) == n
    absent = np.setdiff1d(rng.integers(0, 2**64, size=200_000, dtype=np.uint64), keys)
    fpr = f.count(absent) / absent.size
    assert 0.005 < fpr < 0.02, fpr
    assert f.contains(absent).sum() == f.count(absent)


def test_single_keys_agree_with_batches(keys):
    f = batchbloom.Filter(n=1000, fpr=0.01)
    f.insert(keys[:500])
    probe = keys[:1000]
    batch = f.contains(probe)
    assert [int(k) in f for k in probe] == batch.tolist()
    f.add(b"alice")
    f.add("bob")
    f.add(-5)
    assert b"alice" in f and "bob" in f and -5 in f and 2**64 - 5 in f
    assert f.contains(["alice", b"bob"]).all()


def test_every_backend_and_thread_count_builds_the_same_bits(keys, backend):
    reference = batchbloom.Filter(n=keys.size, fpr=0.01, backend="scalar", threads=1)
    reference.insert(keys)
    f = batchbloom.Filter(n=keys.size, fpr=0.01, backend=backend)
    for threads in (1, 2, 0):
        f.clear()
        f.threads = threads
        f.insert(keys)
        assert f == reference and f.to_bytes() == reference.to_bytes()
        assert np.array_equal(f.contains(keys[::-1].copy()), reference.contains(keys[::-1].copy()))
    assert batchbloom.resolve_backend(backend) == backend


def test_backend_property_and_errors():
    f = batchbloom.Filter(n=10, fpr=0.1)
    assert f.backend == "auto"
    assert batchbloom.resolve_backend() in batchbloom.available_backends()
    f.backend = "scalar"
    assert f.backend == "scalar"
    with pytest.raises(ValueError, match="unknown|backend"):
        f.backend = "gpu9000"
    assert "scalar" in batchbloom.available_backends()


def test_estimates_and_clear(keys):
    f = batchbloom.Filter(n=keys.size, fpr=0.01)
    assert f.fill_ratio() == 0 and f.estimated_cardinality() == 0 and f.current_fpr() == 0
    f.insert(keys)
    assert 0.3 < f.fill_ratio() < 0.7
    assert abs(f.estimated_cardinality() - keys.size) / keys.size < 0.05
    assert abs(f.current_fpr() - f.params.predicted_fpr(keys.size)) < 0.005
    f.clear()
    assert f.fill_ratio() == 0 and not f.contains(keys).any()


def test_empty_batches():
    f = batchbloom.Filter(n=10, fpr=0.1)
    f.insert(np.array([], dtype=np.uint64))
    f.insert([])
    assert f.contains([]).shape == (0,) and f.count([]) == 0
    assert f.fill_ratio() == 0


def test_copy_is_independent(keys):
    import copy

    f = batchbloom.Filter(n=keys.size, fpr=0.01)
    f.insert(keys[:100])
    for g in (f.copy(), copy.copy(f), copy.deepcopy(f)):
        assert g == f and g is not f
        g.insert(keys[100:])
        assert g != f


def test_partitioned_scratch_is_kept_bounded_and_given_back(rng, monkeypatch):
    # A filter beyond L2 probed on the partitioned path keeps its buckets between calls.
    f = batchbloom.Filter(n=2_000_000, fpr=0.01)
    keys = rng.integers(0, 2**64, size=400_000, dtype=np.uint64)
    f.insert(keys)
    f.release_scratch()  # whatever the insert's measured path kept
    assert f.scratch_bytes == 0 and f.scratch_limit >= 256 << 20
    monkeypatch.setenv("BATCHBLOOM_BATCH_PATH", "partitioned")
    batchbloom.reload_environment()
    assert f.contains(keys).all()
    held = f.scratch_bytes
    assert 0 < held <= f.scratch_limit
    assert f.contains(keys).all() and f.scratch_bytes == held  # reused, not grown again
    f.scratch_limit = held // 4  # lowered below what is held: given back, answers the same
    assert f.scratch_limit == held // 4 and f.scratch_bytes == 0
    assert f.contains(keys).all() and f.scratch_bytes <= held // 4
    f.release_scratch()
    assert f.scratch_bytes == 0
    with pytest.raises(batchbloom.Error):
        f.scratch_limit = -1


def test_no_len_no_hash():
    f = batchbloom.Filter(n=10, fpr=0.1)
    with pytest.raises(TypeError):
        len(f)
    with pytest.raises(TypeError):
        hash(f)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(n=10), TypeError, "fpr"),
        (dict(fpr=0.1), TypeError, "fpr"),
        (dict(n=10, fpr=0.1, bits_per_key=10), TypeError, "fpr"),
        (dict(n=0, fpr=0.1), ValueError, "n"),
        (dict(n=10, fpr=1.5), ValueError, "FPR"),
        (dict(n=10, fpr=0.1, shape="hexagon"), ValueError, "hexagon"),
        (dict(n=10, fpr=0.1, hash="md5"), ValueError, "md5"),
        (dict(n=10, fpr=0.1, hash="murmur3", seed=2**32), ValueError, "seed"),
        (dict(n=10, fpr=0.1, backend="nope"), ValueError, "nope"),
    ],
)
def test_constructor_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        batchbloom.Filter(**kwargs)


def test_library_errors_are_batchbloom_errors():
    with pytest.raises(batchbloom.Error, match="k"):
        batchbloom.Params("word512", 10, 0)
    assert issubclass(batchbloom.Error, ValueError)
    assert issubclass(batchbloom.FormatError, batchbloom.Error)
