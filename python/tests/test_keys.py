"""Key types: NumPy dtypes, Python sequences and Arrow arrays give the same keys; bad
batches raise clear errors."""
import numpy as np
import pyarrow as pa
import pytest

import batchbloom


def built(keys, **kw):
    f = batchbloom.Filter(n=5000, fpr=0.01, **kw)
    f.insert(keys)
    return f


def test_int64_is_the_uint64_bit_pattern(rng):
    signed = rng.integers(-(2**63), 2**63 - 1, size=3000, dtype=np.int64)
    unsigned = signed.view(np.uint64)
    assert built(signed) == built(unsigned)
    assert built(signed.tolist()) == built(unsigned)
    f = built(signed)
    assert f.contains(unsigned).all() and f.contains(signed).all()


def test_32_bit_keys_are_their_value(rng):
    small = rng.integers(0, 2**31, size=3000, dtype=np.int64)
    wide = small.astype(np.uint64)
    assert built(small.astype(np.uint32)) == built(wide) == built(small.astype(np.int32))
    negative = np.array([-1, -7, -(2**31)], dtype=np.int32)
    assert built(negative) == built(negative.astype(np.int64)) == built(negative.tolist())
    # uint32 2**32-1 is a different key from int32 -1 (= 2**64-1).
    assert built(np.array([2**32 - 1], dtype=np.uint32)) != built(np.array([-1], dtype=np.int32))


def test_str_keys_are_their_utf8_bytes():
    words = ["alice", "bob", "zoë", "", "日本"]
    assert built(words) == built([w.encode() for w in words])
    assert built(words).contains(words).all()


@pytest.mark.parametrize("murmur", [False, True])
def test_arrow_arrays_match_python_sequences(rng, murmur):
    kw = dict(hash="murmur3", seed=11) if murmur else {}
    words = [f"key-{i}".encode() for i in rng.integers(0, 10**9, size=4000)]
    reference = built(words, **kw)
    for arr in (pa.array(words, pa.binary()), pa.array(words, pa.large_binary()),
                pa.array([w.decode() for w in words], pa.string()),
                pa.array([w.decode() for w in words], pa.large_string())):
        assert built(arr, **kw) == reference, arr.type
        assert reference.contains(arr).all()
    ints = rng.integers(0, 2**63, size=4000, dtype=np.int64)
    ref_ints = built(ints, **kw)
    for arr in (pa.array(ints), pa.array(ints.view(np.uint64)), pa.chunked_array([ints[:1000], ints[1000:]])):
        assert built(arr, **kw) == ref_ints, arr.type
    assert built(pa.array(ints[:100].astype(np.int32)), **kw) == built(ints[:100].astype(np.int32), **kw)
    assert built(pa.array(ints[:100].astype(np.uint32)), **kw) == built(ints[:100].astype(np.uint32), **kw)


def test_arrow_slices_and_chunks_keep_order(rng):
    words = pa.array([f"w{i}" for i in range(3000)])
    f = built(words[1000:2000])
    hits = f.contains(words)
    assert hits[1000:2000].all() and hits.sum() < 1000 + 60
    chunked = pa.chunked_array([words[:1500], words[1500:2500], words[2500:]])
    assert np.array_equal(f.contains(chunked), hits)
    assert f.count(chunked) == hits.sum()
    ints = pa.array(np.arange(10_000, dtype=np.uint64))
    g = built(ints[5000:])
    assert np.array_equal(g.contains(ints), g.contains(np.arange(10_000, dtype=np.uint64)))
    assert g.contains(ints[5000:]).all()


class SeriesLike:
    """Like a pandas Series: a sequence with __array__, but no buffer protocol."""

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        self.converted = True
        return self.a

    def __len__(self):
        return len(self.a)

    def __getitem__(self, i):
        return self.a[i]


def test_pandas_like_array_objects():
    keys = SeriesLike(np.arange(100, dtype=np.uint64))
    assert built(keys) == built(keys.a) and keys.converted
    words = SeriesLike(np.array(["a", "b", None], dtype=object)[:2])  # object dtype: a sequence
    assert built(words) == built(["a", "b"])


def test_iterables_of_keys():
    assert built(iter([1, 2, 3])) == built(np.array([1, 2, 3], dtype=np.uint64))
    assert built((b"a", b"b")) == built([b"a", b"b"])


@pytest.mark.parametrize(
    "bad, error, message",
    [
        (np.arange(10, dtype=np.float64), TypeError, "dtype float64"),
        (np.arange(10, dtype=np.int16), TypeError, "dtype int16"),
        (np.array([True, False]), TypeError, "dtype bool"),
        (np.arange(20, dtype=np.uint64)[::2], TypeError, "not contiguous"),
        (np.zeros((2, 3), dtype=np.uint64), TypeError, "1-D"),
        (np.zeros((3, 2), dtype=np.uint64).T[0], TypeError, "not contiguous"),
        (5, TypeError, "single int"),
        (b"abc", TypeError, "single bytes"),
        ("abc", TypeError, "single str"),
        (3.5, TypeError, "float"),
        ([1, b"x"], TypeError, "key 1 is a bytes"),
        ([b"x", 2], TypeError, "key 1 is a int"),
        ([b"x", bytearray(b"y")], TypeError, "key 1 is a bytearray"),
        ([2**64], ValueError, "outside"),
        ([-(2**63) - 1], ValueError, "outside"),
        (["\ud800"], UnicodeEncodeError, "surrogate"),
        (pa.array([1, None, 3]), ValueError, "1 nulls"),
        (pa.array(["a", None]), ValueError, "nulls"),
        (pa.array([1.5]), TypeError, "format 'g'"),
        (pa.array([1], pa.int16()), TypeError, "format 's'"),
        (pa.array(["a"]).dictionary_encode(), TypeError, "Arrow"),
    ],
)
def test_bad_batches(bad, error, message):
    f = batchbloom.Filter(n=10, fpr=0.1)
    for call in (f.insert, f.contains, f.count):
        with pytest.raises(error, match=message):
            call(bad)
    assert f.fill_ratio() == 0


def test_bad_single_keys():
    f = batchbloom.Filter(n=10, fpr=0.1)
    with pytest.raises(TypeError, match="int, bytes or str"):
        f.add(1.5)
    with pytest.raises(TypeError, match="int, bytes or str"):
        [1] in f
    with pytest.raises(ValueError, match="outside"):
        2**64 in f
    f.add(np.int32(-3))  # NumPy integer scalars are ints (__index__)
    assert -3 in f and np.uint64(2**64 - 3) in f


def test_misaligned_array_is_rejected():
    raw = np.zeros(8 * 11, dtype=np.uint8)
    misaligned = raw[1:81].view(np.uint64)
    assert not misaligned.flags.aligned
    with pytest.raises(TypeError, match="aligned"):
        batchbloom.Filter(n=10, fpr=0.1).contains(misaligned)
