import os
import shutil
import sys

import numpy as np
import pytest

import batchbloom


@pytest.fixture(autouse=True)
def environment_read_again():
    """The library reads BATCHBLOOM_* variables once: a test that changes them (monkeypatch)
    calls batchbloom.reload_environment(), and this reads them again after each test, once
    monkeypatch has put them back, so that the next test sees them as they were."""
    yield
    batchbloom.reload_environment()


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def keys(rng):
    """20,000 distinct random uint64 keys."""
    return np.unique(rng.integers(0, 2**64, size=20_000, dtype=np.uint64, endpoint=False))


@pytest.fixture(params=batchbloom.available_backends())
def backend(request):
    """Every engine this machine runs."""
    return request.param


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every Spark test (a JVM start costs ~10 s); skips without
    pyspark or a Java runtime."""
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install pyspark)")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime (java not on PATH, JAVA_HOME unset)")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # executors import this batchbloom
    session = (
        SparkSession.builder.master("local[2]")
        .appName("batchbloom-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def sketch(spark):
    """Spark's org.apache.spark.util.sketch in the session's JVM (sketch.BloomFilter is Spark's
    own filter)."""
    return spark.sparkContext._jvm.org.apache.spark.util.sketch


@pytest.fixture(scope="session")
def spark_bytes(spark):
    """spark_bytes(jfilter): what a JVM BloomFilter's writeTo writes, Spark's serialized form."""

    def serialize(jfilter):
        out = spark.sparkContext._jvm.java.io.ByteArrayOutputStream()
        jfilter.writeTo(out)
        return bytes(out.toByteArray())

    return serialize
