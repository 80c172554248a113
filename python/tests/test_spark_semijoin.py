"""The distributed Bloom semi-join of examples/spark/bloom_semijoin.py on PySpark in local mode
(several partitions): per-partition batchbloom filters OR-ed by treeReduce, broadcast, and used
to pre-filter the probe side in mapPartitions; the result equals Spark's plain join.

Needs PySpark (pip) and a Java runtime; skipped with the reason otherwise."""
import importlib.util
import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset)", allow_module_level=True)

import batchbloom  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "spark" / "bloom_semijoin.py"


@pytest.fixture(scope="module")
def semijoin():
    spec = importlib.util.spec_from_file_location("bloom_semijoin", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_semijoin_equals_plain_join(spark, semijoin):
    # Build keys: multiples of 7, including negatives, over 5 partitions; probe: 60,000 rows in 6.
    build = spark.range(-35_000, 70_000, 7, numPartitions=5).withColumnRenamed("id", "k")
    probe = spark.range(-20_000, 40_000, 1, numPartitions=6).withColumnRenamed("id", "k").selectExpr(
        "k", "concat('row-', k) AS payload"
    )
    result, bloom, survivors = semijoin.bloom_semijoin(spark, probe, build, "k", fpr=0.01)

    plain = probe.join(build, on="k", how="left_semi")
    expected = sorted(plain.collect())
    assert sorted(result.collect()) == expected
    matches = len(expected)
    assert matches == 60_000 // 7 + 1  # k % 7 == 0 in [-20000, 40000)

    # The filter did its job: the survivors are the matches plus about 1% of the rest.
    non_matches = 60_000 - matches
    assert matches <= survivors <= matches + 0.02 * non_matches
    # The reduced filter holds every build key: it equals one filter built from all of them.
    whole = batchbloom.Filter(15_000, 0.01)
    whole.insert(list(range(-35_000, 70_000, 7)))
    assert bloom == whole


def test_empty_partitions_and_no_matches(spark, semijoin):
    build = spark.range(10**9, 10**9 + 50, 1, numPartitions=4).withColumnRenamed("id", "k")
    probe = spark.range(0, 5_000, 1, numPartitions=3).withColumnRenamed("id", "k")
    build = build.where("k < 0").union(build)  # four empty partitions among the build side's eight
    result, _, survivors = semijoin.bloom_semijoin(spark, probe, build, "k")
    assert result.count() == 0
    assert survivors <= 0.02 * 5_000
