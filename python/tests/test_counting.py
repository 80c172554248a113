"""CountingFilter: batches and single keys erase, and the counters agree with the plain filter."""
import pickle

import numpy as np
import pyarrow as pa
import pytest

import batchbloom


def test_erase_and_to_filter_match_a_plain_filter_of_the_rest(keys, backend):
    c = batchbloom.CountingFilter(n=keys.size, fpr=0.01, backend=backend)
    c.insert(keys)
    assert c.count(keys) == keys.size and c.contains(keys).all()
    assert c.erase(keys[:5000]) == 5000
    plain = batchbloom.Filter(n=keys.size, fpr=0.01)
    plain.insert(keys[5000:])
    assert c.to_filter() == plain
    assert c.contains(keys[5000:]).all()
    assert c.count(keys[:5000]) == plain.count(keys[:5000])


def test_single_keys_and_key_types():
    c = batchbloom.CountingFilter(n=1000, fpr=0.001)
    c.insert(pa.array(["alice", "bob"]))
    c.add(b"carol")
    c.insert(np.array([-1, 7], dtype=np.int32))
    assert "alice" in c and b"bob" in c and "carol" in c and -1 in c and 7 in c
    assert c.discard("alice") and "alice" not in c
    assert not c.discard("alice")  # its counters are zero now: certainly absent
    assert c.erase(["bob", "carol"]) == 2 and c.erase(np.array([-1], dtype=np.int64)) == 1
    assert c.to_filter() == _plain_with(c.params, np.array([7], dtype=np.uint64))


def _plain_with(params, keys):
    f = batchbloom.Filter.from_params(params)
    f.insert(keys)
    return f


def test_saturation_keeps_keys():
    c = batchbloom.CountingFilter.from_params(batchbloom.Params("word512", 1, 8))
    for _ in range(20):
        c.add(42)
    assert c.saturated_counters() == 8
    for _ in range(20):
        c.discard(42)
    assert 42 in c  # saturated counters never drop: a false positive, never a false negative


def test_value_semantics(tmp_path, keys):
    c = batchbloom.CountingFilter(n=keys.size, fpr=0.01, hash="murmur3", seed=5)
    c.insert(keys[:100])
    assert c.nbytes == 4 * c.params.nbytes and (c.hash_kind, c.seed) == ("murmur3", 5)
    assert pickle.loads(pickle.dumps(c)) == c
    assert batchbloom.CountingFilter.from_bytes(c.to_bytes()) == c
    c.save(tmp_path / "c.bbf")
    assert batchbloom.CountingFilter.load(tmp_path / "c.bbf") == c
    d = c.copy()
    d.clear()
    assert d != c and d.count(keys) == 0
    with pytest.raises(batchbloom.FormatError, match="counting"):
        batchbloom.Filter.from_bytes(c.to_bytes())
    with pytest.raises(batchbloom.FormatError):
        batchbloom.CountingFilter.from_bytes(batchbloom.Filter(n=10, fpr=0.1).to_bytes())
    with pytest.raises(TypeError):
        hash(c)
