"""batchbloom and Apache Spark's BloomFilter (org.apache.spark.util.sketch) read each other's
filters and give the same mightContain answers: filters built in Spark (the sketch API and
DataFrame.stat.bloomFilter) are probed by `batchbloom query`, and filters written by
`batchbloom build --format spark|spark-v1` are read by Spark's BloomFilter.readFrom.

Needs PySpark (pip) and a Java runtime; skipped with the reason otherwise. ./dev test sets
BATCHBLOOM_CLI to the Release build's batchbloom program."""
import os
import shutil
import subprocess

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset)", allow_module_level=True)

from cli_program import CLI, requires_cli  # noqa: E402 - after the skip above

pytestmark = requires_cli

N = 20_000  # keys inserted
PROBES = 10_000  # keys probed in both programs: half inserted, half not


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], check=True, capture_output=True, text=True).stdout


def long_keys():
    # Negative, small and large values: Spark hashes the two's-complement long.
    return [(i * 0x9E3779B97F4A7C15) % 2**64 - 2**63 for i in range(1, N + 1)]


def probe_longs(keys):
    inserted = set(keys)
    absent = [k ^ 1 for k in keys[: PROBES // 2] if k ^ 1 not in inserted]
    return keys[: PROBES // 2] + absent


def write_lines(path, keys):
    path.write_text("".join(f"{k}\n" for k in keys))


def batchbloom_hits(filter_path, keys, tmp_path):
    probe = tmp_path / "probe.txt"
    write_lines(probe, keys)
    # Spark's form does not record how keys went in: a decimal line is a Long, as Spark's
    # column was (query refuses decimal lines without --key-type there).
    return set(cli("query", "--key-type", "auto", filter_path, probe).split("\n")) - {""}


def spark_hits(jfilter, keys, kind):
    call = jfilter.mightContainLong if kind == "long" else jfilter.mightContainString
    return {str(k) for k in keys if call(k)}


def test_batchbloom_probes_a_filter_spark_built(spark, sketch, tmp_path, spark_bytes):
    keys = long_keys()
    df = spark.createDataFrame([(k,) for k in keys], "id long")
    jf = df._jdf.stat().bloomFilter("id", N, 0.01)  # what DataFrame.stat builds (version 2 in Spark 4.x)
    data = spark_bytes(jf)
    assert data[:4] == b"\x00\x00\x00\x02"
    (tmp_path / "spark.bin").write_bytes(data)
    info = cli("info", tmp_path / "spark.bin")
    assert "spark_v2" in info and f"bits:                   {jf.bitSize()}" in info

    probes = probe_longs(keys)
    hits = batchbloom_hits(tmp_path / "spark.bin", probes, tmp_path)
    assert hits == spark_hits(jf, probes, "long")
    # No false negatives; false positives near the 1% Spark sized the filter for.
    assert cli("query", "--count", "--key-type", "int", tmp_path / "spark.bin", _lines(tmp_path, keys)).strip() == str(N)
    absent = probes[PROBES // 2 :]
    assert sum(str(k) in hits for k in absent) < 0.02 * len(absent)


def _lines(tmp_path, keys, name="keys.txt"):
    write_lines(tmp_path / name, keys)
    return tmp_path / name


@pytest.mark.parametrize("fmt, version", [("spark", 2), ("spark-v1", 1)])
def test_spark_reads_a_filter_batchbloom_built(sketch, tmp_path, fmt, version, spark_bytes):
    keys = long_keys()
    cli("build", "--fpr", "0.01", "--format", fmt, "--out", tmp_path / "bb.bin", _lines(tmp_path, keys))
    data = (tmp_path / "bb.bin").read_bytes()
    jf = sketch.BloomFilter.readFrom(bytearray(data))

    # Bit for bit what Spark builds from the same keys with the same sizing.
    versions = getattr(sketch, "BloomFilter$Version")
    own = sketch.BloomFilter.create(versions.V1 if version == 1 else versions.V2, N,
                                    sketch.BloomFilter.optimalNumOfBits(N, 0.01), 0)
    for k in keys:
        own.putLong(k)
    assert spark_bytes(own) == data
    assert jf.equals(own)

    probes = probe_longs(keys)
    assert spark_hits(jf, probes, "long") == batchbloom_hits(tmp_path / "bb.bin", probes, tmp_path)


def test_string_keys_both_ways(spark, sketch, tmp_path, spark_bytes):
    words = [f"user-{i}-é{'x' * (i % 5)}" for i in range(N)]
    df = spark.createDataFrame([(w,) for w in words], "s string")
    jf = df._jdf.stat().bloomFilter("s", N, 0.02)
    (tmp_path / "spark.bin").write_bytes(spark_bytes(jf))
    probes = words[: PROBES // 2] + [f"absent-{i}" for i in range(PROBES // 2)]
    assert batchbloom_hits(tmp_path / "spark.bin", probes, tmp_path) == spark_hits(jf, probes, "string")

    cli("build", "--fpr", "0.02", "--format", "spark", "--out", tmp_path / "bb.bin", _lines(tmp_path, words))
    back = sketch.BloomFilter.readFrom(bytearray((tmp_path / "bb.bin").read_bytes()))
    assert back.equals(jf)  # same sizing, same hashing: the same filter
    assert spark_hits(back, probes, "string") == batchbloom_hits(tmp_path / "bb.bin", probes, tmp_path)


def test_seeded_v2_filter(sketch, tmp_path, spark_bytes):
    keys = long_keys()[:2000]
    jf = sketch.BloomFilter.create(2000, sketch.BloomFilter.optimalNumOfBits(2000, 0.05), -12345)
    for k in keys:
        jf.putLong(k)
    (tmp_path / "seeded.bin").write_bytes(spark_bytes(jf))
    probes = keys[:1000] + [k + 2 for k in keys[:1000]]
    assert batchbloom_hits(tmp_path / "seeded.bin", probes, tmp_path) == spark_hits(jf, probes, "long")


def test_corrupt_spark_bytes_are_rejected(sketch, tmp_path, spark_bytes):
    jf = sketch.BloomFilter.create(100, 0.01)
    data = spark_bytes(jf)
    (tmp_path / "cut.bin").write_bytes(data[:-3])
    result = subprocess.run([CLI, "query", "--count", tmp_path / "cut.bin", _lines(tmp_path, [1, 2])],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "truncated" in result.stderr
