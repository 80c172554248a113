"""ClassicFilter: batchbloom's double hashing and Apache Spark's BloomFilter (versions 1 and 2)
from Python. Spark's JVM BloomFilter reads to_spark_bytes() and batchbloom reads what Spark
writes, with the same answers (the JVM tests need PySpark and Java, else they are skipped)."""
import math
import struct

import numpy as np
import pytest

import batchbloom
from batchbloom import ClassicFilter, ClassicParams


def spark_sizing(n, fpp):
    """Spark's BloomFilter.optimalNumOfBits / optimalNumOfHashFunctions, in Java's arithmetic."""
    bits = int(-n * math.log(fpp) / (math.log(2) * math.log(2)))
    k = max(1, math.floor(bits / n * math.log(2) + 0.5))
    return (bits + 63) // 64 * 64, k


@pytest.mark.parametrize("n, fpp", [(1000, 0.03), (123_457, 0.01), (10, 0.5), (5_000_000, 0.001)])
def test_spark_sizing(n, fpp):
    bits, k = spark_sizing(n, fpp)
    assert ClassicParams.spark(n, fpp) == ClassicParams(bits, k)
    f = ClassicFilter.spark(n, fpp)
    assert (f.bits, f.k, f.scheme, f.seed) == (bits, k, "spark_v2", 0)
    assert ClassicFilter(n, fpp, scheme="spark_v1").params == f.params  # (n, fpr) with a Spark scheme: Spark's sizing
    assert f.nbytes == bits // 8


def test_double_hashing_sizing_and_measured_fpr(keys, rng):
    f = ClassicFilter(keys.size, 0.01, hash="murmur3", seed=5)
    assert f.params == ClassicParams.for_fpr(keys.size, 0.01) and f.predicted_fpr(keys.size) <= 0.01
    f.insert(keys)
    absent = np.setdiff1d(rng.integers(0, 2**64, size=200_000, dtype=np.uint64), keys)
    assert abs(f.count(absent) / absent.size - 0.01) < 0.002
    g = ClassicFilter(keys.size, bits_per_key=10, scheme="spark_v2")
    assert g.bits % 64 == 0 and g.bits >= keys.size * 10
    assert 0 < f.fill_ratio() < 1


def test_union_and_intersection_are_bitwise():
    a, b = ClassicFilter.spark(1000, 0.03), ClassicFilter.spark(1000, 0.03)
    a.insert(np.arange(0, 500, dtype=np.uint64))
    b.insert(np.arange(500, 1000, dtype=np.uint64))
    both = ClassicFilter.spark(1000, 0.03)
    both.insert(np.arange(1000, dtype=np.uint64))
    assert a | b == both and a.compatible(b)
    c = a.copy()
    c |= b
    assert c == both
    c &= a
    assert c == a & both
    with pytest.raises(batchbloom.Error):
        a |= ClassicFilter.spark(1000, 0.03, seed=1)
    assert not a.compatible(ClassicFilter.spark(1000, 0.03, scheme="spark_v1"))


def test_spark_bytes_layout_and_round_trip():
    f = ClassicFilter.spark(100, 0.05, seed=-12345)
    f.insert(["a", "b"])
    f.add(7)
    data = f.to_spark_bytes()
    version, k, seed, words = struct.unpack(">iiii", data[:16])
    assert (version, k, seed, words) == (2, f.k, -12345, f.bits // 64) and len(data) == 16 + f.nbytes
    assert ClassicFilter.from_spark_bytes(data) == f
    v1 = ClassicFilter.spark(100, 0.05, scheme="spark_v1")
    v1.insert(["a", "b"])
    assert struct.unpack(">iii", v1.to_spark_bytes()[:12]) == (1, v1.k, v1.bits // 64)
    back = ClassicFilter.from_spark_bytes(memoryview(v1.to_spark_bytes()))
    assert back == v1 and back.contains(["a", "b"]).all()
    assert ClassicFilter.from_bytes(f.to_bytes()) == f  # and batchbloom's own format


@pytest.mark.parametrize(
    "mangle, message",
    [(lambda d: d[:-1], "truncated"), (lambda d: d + b"\0", "trailing"),
     (lambda d: struct.pack(">i", 3) + d[4:], "version"), (lambda d: b"", "truncated")],
)
def test_bad_spark_bytes(mangle, message):
    data = ClassicFilter.spark(100, 0.05).to_spark_bytes()
    with pytest.raises(batchbloom.FormatError, match=message):
        ClassicFilter.from_spark_bytes(mangle(data))


def test_argument_errors():
    with pytest.raises(batchbloom.Error, match="double_hashing"):
        ClassicFilter(100, 0.01).to_spark_bytes()
    with pytest.raises(batchbloom.Error, match="scheme"):
        ClassicFilter(100, 0.01, scheme="spark_v3")
    with pytest.raises(batchbloom.Error):
        ClassicFilter.spark(100, 0.01, scheme="double_hashing")
    with pytest.raises(TypeError, match="fpr"):
        ClassicFilter(100)
    with pytest.raises(batchbloom.Error):
        ClassicParams(0, 3)
    with pytest.raises(batchbloom.Error, match="seed"):
        ClassicFilter(100, 0.01, scheme="spark_v1", seed=3)
    with pytest.raises(ValueError, match=r"n must be an int in \[1"):
        ClassicFilter(-5, 0.01)
    with pytest.raises(ValueError, match=r"seed must be an int in \[-2\*\*31, 2\*\*31\)"):
        ClassicFilter.spark(100, 0.01, seed=2**31)
    with pytest.raises(TypeError, match="scheme must be a str"):
        ClassicFilter(100, 0.01, scheme=None)
    with pytest.raises(TypeError, match="ClassicParams"):
        ClassicFilter.from_params(batchbloom.Params.for_fpr(100, 0.01))
    with pytest.raises(ValueError, match="k must be an int"):
        ClassicParams(64, 0)


# ---- through Spark's JVM BloomFilter --------------------------------------------------------

N = 5000


def mixed_longs():
    return [(i * 0x9E3779B97F4A7C15) % 2**64 - 2**63 for i in range(1, N + 1)]


@pytest.mark.parametrize("version", [1, 2])
def test_spark_reads_to_spark_bytes(sketch, spark_bytes, version):
    keys = mixed_longs()
    scheme = "spark_v1" if version == 1 else "spark_v2"
    ours = ClassicFilter.spark(N, 0.03, scheme=scheme, seed=0)
    ours.insert(np.array(keys, dtype=np.int64))
    theirs = sketch.BloomFilter.readFrom(bytearray(ours.to_spark_bytes()))

    versions = getattr(sketch, "BloomFilter$Version")
    own = sketch.BloomFilter.create(versions.V1 if version == 1 else versions.V2, N,
                                    sketch.BloomFilter.optimalNumOfBits(N, 0.03), 0)
    for k in keys:
        own.putLong(k)
    assert theirs.equals(own) and spark_bytes(own) == ours.to_spark_bytes()
    probes = keys[:500] + [k ^ 1 for k in keys[:500]]
    assert [bool(theirs.mightContainLong(k)) for k in probes] == ours.contains(probes).tolist()


def test_batchbloom_reads_spark_written_filters(sketch, spark_bytes):
    words = [f"user-{i}-é{'x' * (i % 5)}" for i in range(N)]
    jf = sketch.BloomFilter.create(N, sketch.BloomFilter.optimalNumOfBits(N, 0.02), -99)
    for w in words:
        jf.putString(w)
    ours = ClassicFilter.from_spark_bytes(spark_bytes(jf))
    assert ours.scheme == "spark_v2" and ours.seed == 2**32 - 99
    mine = ClassicFilter.spark(N, 0.02, seed=-99)
    mine.insert(words)
    assert ours == mine
    probes = words[:300] + [f"absent-{i}" for i in range(300)]
    assert [bool(jf.mightContainString(p)) for p in probes] == ours.contains(probes).tolist()
    assert ours.contains(words).all()
