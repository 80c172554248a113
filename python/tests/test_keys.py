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
        ([b"x", bytearray(b"y")], TypeError, r"^keys must be int, str or bytes; got bytearray at index 1$"),
        ([1.5], TypeError, r"^keys must be int, str or bytes; got float at index 0$"),
        ([1, 2, 2.5], TypeError, r"^keys must be int, str or bytes; got float at index 2$"),
        (["a", None], ValueError, r"^key 1 is None; a None is no key: pass nulls=\"skip\""),
        ((None, 7, None), ValueError, r"^key 0 is None"),
        ([2**64], ValueError, "outside"),
        ([-(2**63) - 1], ValueError, "outside"),
        (["\ud800"], UnicodeEncodeError, "surrogate"),
        (pa.array([1, None, 3]), ValueError, "1 nulls.*nulls=\"skip\""),
        (pa.array(["a", None]), ValueError, "nulls"),
        (pa.array([1.5]), TypeError, "format 'g'"),
        (pa.array([[1]]), TypeError, r"format '\+l'"),
        (pa.table({"a": [1], "b": [2]}), TypeError, "table of 2 columns"),
        (pa.DictionaryArray.from_arrays(pa.array([0, 5], pa.int32()), pa.array(["a"]), safe=False), ValueError,
         "dictionary index out of range at entry 1"),
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


@pytest.mark.parametrize("dtype", [">u8", ">i8", ">u4", ">i4", "<u8", "<i4"])
def test_either_byte_order_gives_the_same_keys(rng, dtype):
    native = np.dtype(dtype).newbyteorder("=")
    info = np.iinfo(native)
    values = rng.integers(info.min, info.max, size=70_000, dtype=native, endpoint=True)  # > one 32K stage
    swapped = values.astype(dtype)
    assert swapped.dtype == np.dtype(dtype)
    expected = built(values)
    assert built(swapped) == expected
    probe = np.concatenate([swapped, (values[:1000] ^ 1).astype(dtype)])
    assert np.array_equal(expected.contains(probe), expected.contains(probe.astype(native)))
    assert expected.count(probe) == expected.count(probe.astype(native))
    if not swapped.dtype.isnative:  # converted with unaligned loads (native arrays must be aligned)
        unaligned = np.frombuffer(b"\0" + swapped.tobytes(), dtype=dtype, offset=1)
        assert built(unaligned) == expected
    counting = batchbloom.CountingFilter(n=5000, fpr=0.01)
    counting.insert(swapped)
    assert counting.erase(swapped) == values.size


def test_other_byte_order_errors():
    f = batchbloom.Filter(n=10, fpr=0.1)
    with pytest.raises(TypeError, match="not contiguous"):
        f.insert(np.arange(20, dtype=">u8")[::2])
    for dtype in (">i2", ">f8", "<i2"):
        with pytest.raises(TypeError, match="dtype .*; batchbloom takes uint64, int64, uint32 or int32 keys, in either"):
            f.insert(np.arange(4, dtype=dtype))
    with pytest.raises(TypeError, match="1-D"):
        f.insert(np.zeros((2, 2), dtype=">u8"))
    assert f.fill_ratio() == 0


def _peak_rss_growth(setup, call):
    """Peak RSS growth in MiB of `call` after `setup`, in a fresh interpreter."""
    import subprocess
    import sys

    code = (
        "import resource, numpy as np, batchbloom\n"
        f"{setup}\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"{call}\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return float(out)


def test_big_endian_arrays_are_converted_in_bounded_memory():
    # 10M keys are 76 MiB; a per-key path or a converted copy would add at least that much.
    grown = _peak_rss_growth(
        "keys = np.arange(10**7, dtype='>u8'); f = batchbloom.Filter(n=10**7, fpr=0.01); f.insert(keys[:1])",
        "f.insert(keys); assert f.count(keys) == 10**7",
    )
    assert grown < 24, f"peak RSS grew by {grown:.1f} MiB"


def test_iterables_are_converted_in_bounded_chunks():
    # 3M Python ints held at once would take > 100 MiB (objects, a tuple and the converted keys).
    grown = _peak_rss_growth(
        "f = batchbloom.Filter(n=3 * 10**6, fpr=0.01); f.insert([1])",
        "f.insert(range(3 * 10**6)); assert f.count(iter(range(3 * 10**6))) == 3 * 10**6",
    )
    assert grown < 24, f"peak RSS grew by {grown:.1f} MiB"


def test_long_iterables_match_arrays():
    n = 700_000  # several chunks
    expected = built(np.arange(n, dtype=np.uint64))
    assert built(i for i in range(n)) == expected
    assert built(list(range(n))) == expected
    assert np.array_equal(expected.contains(iter(range(n + 10))), expected.contains(np.arange(n + 10, dtype=np.uint64)))
    words = [b"w%d" % i for i in range(n)]
    assert built(iter(words)) == built(pa.array(words, pa.binary()))


def test_a_bad_key_late_in_an_iterable():
    chunk = 2**18
    f = batchbloom.Filter(n=10**6, fpr=0.01)
    with pytest.raises(TypeError, match="key 5 is a bytes"):
        f.insert([1, 2, 3, 4, 5, b"x"])
    assert f.fill_ratio() == 0  # the first chunk is checked whole before anything is inserted
    keys = list(range(chunk + 10)) + [b"late"]
    with pytest.raises(TypeError, match=f"key {chunk + 10} is a bytes"):
        f.insert(keys)
    assert f.count(np.arange(chunk, dtype=np.uint64)) == chunk  # the chunks before it went in


def test_an_iterable_that_raises():
    def keys():
        yield 1
        raise RuntimeError("source failed")

    with pytest.raises(RuntimeError, match="source failed"):
        batchbloom.Filter(n=10, fpr=0.1).insert(keys())
