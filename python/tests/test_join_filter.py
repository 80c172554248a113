"""JoinFilter: the Bloom join's pre-filter from Python. select/bitmap/count agree with a plain
filter of the build keys, over NumPy and Arrow columns (chunked too); every match is kept."""
import pickle

import numpy as np
import pyarrow as pa
import pytest

import batchbloom
from batchbloom import JoinFilter


def test_select_bitmap_count_agree(keys, rng):
    build = keys[:5000]
    probe = np.concatenate([keys, rng.integers(0, 2**64, size=30_000, dtype=np.uint64)])
    rng.shuffle(probe)
    jf = JoinFilter(build, fpr=0.01, chunk_rows=1000)
    plain = batchbloom.Filter(5000, 0.01)
    plain.insert(build)
    assert jf.to_filter() == plain and jf.sized_for == 5000 and jf.predicted_fpr() <= 0.01
    hits = plain.contains(probe)
    assert jf.contains(probe).tolist() == hits.tolist()
    rows = jf.select(probe)
    assert rows.dtype == np.uint64 and rows.tolist() == np.flatnonzero(hits).tolist()
    assert jf.count(probe) == hits.sum()
    assert np.isin(build, probe[rows]).all()  # every match survives
    words = jf.bitmap(probe)
    assert words.size == (probe.size + 63) // 64
    mask = pa.BooleanArray.from_buffers(pa.bool_(), probe.size, [None, pa.py_buffer(words)])
    assert mask.to_numpy(zero_copy_only=False).tolist() == hits.tolist()


def test_arrow_streams_and_key_types():
    build = pa.chunked_array([pa.array(np.arange(0, 300, 3)), pa.array(np.arange(300, 600, 3))])
    jf = JoinFilter(build, bits_per_key=16)
    probe = pa.chunked_array([pa.array(np.arange(0, 70)), pa.array(np.arange(70, 600))])
    flat = np.arange(600)
    assert jf.select(probe).tolist() == jf.select(flat).tolist()
    assert jf.bitmap(probe).tolist() == jf.bitmap(flat).tolist()
    assert set(range(0, 600, 3)) <= set(jf.select(probe).tolist())
    narrow = JoinFilter(np.arange(0, 600, 3, dtype=np.int32), bits_per_key=16)
    assert narrow.to_filter() == jf.to_filter()
    names = JoinFilter(pa.array(["x", "y", "z"] * 3), fpr=0.001)
    assert names.sized_for == 3 and names.select(["a", "y", "x"]).tolist()[-2:] == [1, 2]
    assert JoinFilter(np.arange(10), expected_keys=1000).sized_for == 1000


def test_empty_sides_and_errors():
    empty = JoinFilter(np.zeros(0, np.uint64))
    assert empty.count(np.arange(1000, dtype=np.uint64)) == 0 and empty.sized_for == 1
    assert JoinFilter([1, 2]).select([]).size == 0 and JoinFilter([1, 2]).bitmap([]).size == 0
    for bad in (dict(fpr=1.5), dict(bits_per_key=-1), dict(chunk_rows=0), dict(threads=-1)):
        with pytest.raises(batchbloom.Error):
            JoinFilter([1, 2, 3], **bad)
    with pytest.raises(TypeError, match="shape must be a str"):
        JoinFilter([1, 2], shape=1)
    with pytest.raises(TypeError):
        JoinFilter(None)


def test_iterables_in_batches(keys):
    # Iterables arrive in batches of 2**18 keys: the build gathers them (strings copied), the
    # probes offset each batch's positions.
    many = [f"key-{i}" for i in range(300_000)]
    jf = JoinFilter(iter(many[::3]), fpr=0.01)
    assert jf.sized_for == 100_000
    rows = jf.select(iter(many))
    assert set(range(0, 300_000, 3)) <= set(rows.tolist())
    assert jf.count(many) == rows.size == int(jf.contains(many).sum())
    bits = np.unpackbits(jf.bitmap(iter(many)).view(np.uint8), bitorder="little")[:300_000]
    assert np.flatnonzero(bits).tolist() == rows.tolist()
    ints = JoinFilter(range(0, 600_000, 2))
    assert ints.to_filter() == JoinFilter(np.arange(0, 600_000, 2, dtype=np.uint64)).to_filter()


def test_from_filter_and_value_semantics(keys):
    jf = JoinFilter(keys[:1000], shape="split256", hash="murmur3", seed=4, threads=1)
    again = JoinFilter.from_filter(jf.to_filter(), jf.sized_for, threads=1)
    assert again == jf and again.params.shape == "split256" and again.hash_kind == "murmur3"
    assert again.select(keys).tolist() == jf.select(keys).tolist()
    for g in (pickle.loads(pickle.dumps(jf)), jf.copy()):
        assert g == jf and g.threads == 1 and g.chunk_rows == jf.chunk_rows
    assert jf != JoinFilter.from_filter(jf.to_filter(), 999)
    assert int(keys[0]) in jf and jf.to_filter().threads == 1
