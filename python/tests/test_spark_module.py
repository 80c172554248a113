"""batchbloom.spark on PySpark in local mode with several partitions: filters built on the
driver from collected keys, and filters built with mapInArrow and OR-ed in a tree, equal one
filter of all the keys; the probe side filtered with
mapInArrow keeps exactly the rows the filter answers yes for (so a join after it is the plain
join); Spark-format filters equal what Spark's DataFrame.stat.bloomFilter builds, and Spark's
JVM BloomFilter reads them. Needs PySpark and Java (skipped otherwise, by the spark fixture)."""
import numpy as np
import pytest

import batchbloom

bbs = pytest.importorskip("batchbloom.spark", reason="pyspark is not installed")


@pytest.fixture(scope="module")
def sides(spark):
    # Build: multiples of 7 in [-35000, 70000) over 5 partitions, with null keys and two empty
    # partitions; probe: 60,000 rows over 6 partitions, some null keys, long and string keys.
    build = spark.range(-35_000, 70_000, 7, numPartitions=5).selectExpr(
        "IF(id % 1001 = 0, NULL, id) AS k", "CAST(id AS STRING) AS s", "CAST(id AS INT) AS i")
    build = build.union(build.where("k > 10000000"))
    probe = spark.range(-20_000, 40_000, 1, numPartitions=6).selectExpr(
        "IF(id % 5003 = 0, NULL, id) AS k", "CAST(id AS STRING) AS s", "CAST(id AS INT) AS i", "id * 2 AS payload")
    return build.cache(), probe.cache(), probe.collect()


@pytest.fixture(params=["driver", "partitions"])
def way(request, monkeypatch):
    """Each way a filter gets its keys: collected to the driver (small key sets; the partition
    way then fails the test), or a filter per partition (forced by a collect limit of 0)."""
    if request.param == "partitions":
        monkeypatch.setattr(bbs, "_COLLECT_BYTES", 0)
    else:
        def fail(*args, **kwargs):
            raise AssertionError("small key sets are collected to the driver")

        monkeypatch.setattr(bbs, "_union_of_partitions", fail)
    return request.param


def build_keys(build, column):
    return [r[0] for r in build.select(column).collect() if r[0] is not None]


@pytest.mark.parametrize("column", ["k", "s", "i"])
def test_build_and_filter(sides, column, way):
    build, probe, every = sides
    keys = build_keys(build, column)
    f = bbs.build(build, column, fpr=0.01)
    assert f.params == batchbloom.Params.for_fpr(len(keys), 0.01)  # n: rows with a key
    whole = batchbloom.Filter(len(keys), 0.01)
    whole.insert(keys)
    assert f == whole  # the tree of partition filters is the filter of all keys

    rows = bbs.filter(probe, column, f).collect()
    expected = [r for r in every if r[column] is not None and r[column] in whole]
    by_payload = lambda r: r["payload"]  # noqa: E731 - unique per probe row
    assert sorted(rows, key=by_payload) == sorted(expected, key=by_payload)
    matches = {v for v in keys}
    assert sum(r[column] in matches for r in rows) == sum(r[column] in matches for r in every)
    assert len(rows) < sum(r[column] in matches for r in every) + 0.02 * len(every)


def test_may_contain_column(sides):
    pytest.importorskip("pyspark.sql.functions", reason="pyspark")
    from pyspark.sql import functions

    if not hasattr(functions, "arrow_udf"):
        pytest.skip("may_contain needs PySpark 4.1 (arrow_udf)")
    build, probe, every = sides
    f = bbs.build(build, "s")
    rows = probe.where(bbs.may_contain("s", f)).collect()
    assert sorted(r["payload"] for r in rows) == sorted(r["payload"] for r in every if r["s"] in f)
    flags = probe.select("payload", bbs.may_contain(probe.k, f).alias("hit")).collect()
    assert {r["payload"] for r in flags if r["hit"]} == {r["payload"] for r in every if r["k"] is not None and r["k"] in f}


@pytest.mark.parametrize("column", ["k", "s"])
def test_semi_join_equals_the_plain_join(sides, column):
    build, probe, _ = sides
    plain = probe.join(build.select(column), on=column, how="left_semi")
    by_payload = lambda r: r["payload"]  # noqa: E731
    assert sorted(bbs.semi_join(probe, build, column).collect(), key=by_payload) == sorted(
        plain.collect(), key=by_payload)


def test_no_keys_and_broadcasts(spark, sides, way):
    _, probe, _ = sides
    empty = spark.range(0, 100, numPartitions=3).selectExpr("CAST(NULL AS BIGINT) AS k")
    f = bbs.build(empty, "k")
    assert f == batchbloom.Filter(1, 0.01)
    assert bbs.filter(probe, "k", f).count() == 0
    g = batchbloom.Filter(100, 0.01)
    g.insert(np.arange(1, 101))
    shared = spark.sparkContext.broadcast(g)
    assert bbs.filter(probe, "k", shared).where("k >= 1 AND k <= 100").count() == 100
    with pytest.raises(ValueError, match="no column"):
        bbs.filter(probe, "nope", g)


def java_bytes(jfilter, spark):
    out = spark.sparkContext._jvm.java.io.ByteArrayOutputStream()
    jfilter.writeTo(out)
    return bytes(out.toByteArray())


@pytest.mark.parametrize("column", ["k", "s"])
def test_spark_format_equals_what_spark_builds(spark, sides, column, way):
    build, probe, _ = sides
    n = len(build_keys(build, column))
    ours = bbs.build_spark(build, column, fpp=0.02, n=n)
    assert isinstance(ours, batchbloom.ClassicFilter) and ours.scheme == "spark_v2"
    theirs = build._jdf.stat().bloomFilter(column, n, 0.02)  # Spark's own, over the same rows
    assert java_bytes(theirs, spark) == ours.to_spark_bytes()
    sketch = spark.sparkContext._jvm.org.apache.spark.util.sketch
    jf = sketch.BloomFilter.readFrom(bytearray(ours.to_spark_bytes()))
    assert jf.equals(theirs)
    probes = [r[0] for r in probe.select(column).limit(400).collect() if r[0] is not None]
    might = jf.mightContainLong if column == "k" else jf.mightContainString
    assert [bool(might(p)) for p in probes] == ours.contains(probes).tolist()


def test_spark_format_version_1(spark, sides):
    build, _, _ = sides
    keys = build_keys(build, "k")
    ours = bbs.build_spark(build, "k", version=1)  # n: the rows with a key, fpp: Spark's 0.03
    sketch = spark.sparkContext._jvm.org.apache.spark.util.sketch
    own = sketch.BloomFilter.create(getattr(sketch, "BloomFilter$Version").V1, len(keys),
                                    sketch.BloomFilter.optimalNumOfBits(len(keys), 0.03), 0)
    for k in keys:
        own.putLong(k)
    assert java_bytes(own, spark) == ours.to_spark_bytes() and ours.scheme == "spark_v1"
    with pytest.raises(ValueError, match="versions"):
        bbs.build_spark(build, "k", version=3)


# ---- the JVM-native path: build_native() filters, probed by Spark's might_contain ----------

def plan_of(df):
    return df._jdf.queryExecution().executedPlan().toString()


@pytest.mark.parametrize("column", ["k", "s", "i"])
def test_native_filter_is_probed_in_the_jvm(spark, sides, column):
    build, probe, every = sides
    keys = set(build_keys(build, column))
    f = bbs.build_native(build, column, fpr=0.01)
    assert isinstance(f, batchbloom.ClassicFilter) and f.scheme.startswith("spark") and f.key_kinds == {"integers"}
    kept = bbs.filter(probe, column, f)
    plan = plan_of(kept)
    assert "might_contain" in plan and "MapInArrow" not in plan and "ArrowEvalPython" not in plan
    assert "CASE WHEN" not in plan  # the form of Spark's runtime filter: a CASE around the hash is slower
    assert len(plan) < f.nbytes  # the filter is a subquery, not a literal written out in the plan
    rows = kept.collect()
    # Every matching row is kept (no false negatives), nulls never; about 1% of the others.
    assert {r["payload"] for r in every if r[column] in keys} <= {r["payload"] for r in rows}
    assert all(r[column] is not None for r in rows)
    others = sum(1 for r in every if r[column] is not None and r[column] not in keys)
    false_positives = sum(1 for r in rows if r[column] not in keys)
    assert false_positives <= 0.02 * others + 10
    if column != "s":  # integers go in as longs (Spark's putLong): the Python probe agrees row by row
        assert sorted(r["payload"] for r in rows) == sorted(
            r["payload"] for r in every if r[column] is not None and int(r[column]) in f)
    # may_contain: the same rows, from a Column that knows nothing of the DataFrame
    assert sorted(r["payload"] for r in probe.where(bbs.may_contain(column, f)).collect()) == sorted(
        r["payload"] for r in rows)
    flags = probe.select(column, bbs.may_contain(column, f).alias("hit")).collect()
    assert all(r["hit"] is False for r in flags if r[column] is None)  # False, not null, for a null key


def test_native_filter_equals_sparks_runtime_hashing(spark, sides, way):
    # Strings go in as Spark's xxhash64 (seed 42), as Spark's runtime join filter takes them: a
    # JVM BloomFilter read from the bytes finds every build key's xxhash64.
    build, _, _ = sides
    f = bbs.build_native(build, "s")
    assert f == bbs.build_native(build.repartition(1), "s")  # whatever the partitions
    jf = spark.sparkContext._jvm.org.apache.spark.util.sketch.BloomFilter.readFrom(bytearray(f.to_spark_bytes()))
    hashes = [r[0] for r in build.where("s IS NOT NULL").selectExpr("xxhash64(s)").collect()]
    assert all(jf.mightContainLong(h) for h in hashes)
    assert f.contains(hashes).all()


def test_native_filter_takes_at_least_the_runtime_filters_bits(spark, sides):
    # Grown to Spark's runtime filter size, or 64 bits per key where that is fewer, with the k
    # of the FPR asked: a lower FPR for free, and no megabyte filter for a few keys.
    build, probe, _ = sides
    n = len(build_keys(build, "k"))
    f = bbs.build_native(build, "k", fpr=0.01)
    exact = batchbloom.ClassicFilter.spark(n, 0.01, scheme=f.scheme)
    runtime_bits = int(spark.conf.get("spark.sql.optimizer.runtime.bloomFilter.numBits"))
    assert 64 * n < runtime_bits and exact.bits < f.bits == 64 * n
    assert f.k == exact.k and f.predicted_fpr(n) < 0.01 / 100
    few = bbs.build_native(spark.range(4), "id")
    assert few.bits == 4 * 64 and few.predicted_fpr(4) < 0.01 / 100
    assert bbs.build_native(build, "k", fpr=0.01, min_bits=0).bits == exact.bits
    assert bbs.build_native(build, "k", fpr=0.01, min_bits=exact.bits + 1).bits == exact.bits + 64  # whole words
    with pytest.raises(ValueError, match="min_bits"):
        bbs.build_native(build, "k", min_bits=-1)
    old = spark.conf.get("spark.sql.optimizer.runtime.bloomFilter.numBits")
    try:
        spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.numBits", str(1 << 19))
        grown = bbs.build_native(build, "k", fpr=0.01)
    finally:
        spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.numBits", old)
    assert exact.bits < grown.bits == 1 << 19 < 64 * n and grown.k == exact.k
    keys = set(build_keys(build, "k"))
    assert {r["k"] for r in bbs.filter(probe, "k", grown).collect() if r["k"] in keys} == keys & {
        r["k"] for r in probe.select("k").collect()}


def test_without_might_contain_text_keys_never_silently_miss(spark, sides, monkeypatch):
    # A session without might_contain (Spark Connect, Spark before 4.0) probes in Python: integer
    # keys still match (longs, as Spark's putLong), text keys hashed by build_native() cannot be
    # probed there and raise, and semi_join falls back to a filter of the text itself.
    build, probe, every = sides
    ints, text = bbs.build_native(build, "k"), bbs.build_native(build, "s")
    monkeypatch.setattr(bbs, "_native_contains", lambda *args, **kwargs: None)
    keys = set(build_keys(build, "k"))
    assert {r["k"] for r in bbs.filter(probe, "k", ints).collect()} >= {r["k"] for r in every if r["k"] in keys}
    with pytest.raises(ValueError, match="xxhash64"):
        bbs.filter(probe, "s", text)
    with pytest.raises(Exception, match="xxhash64"):  # in the Arrow UDF, on an executor
        probe.where(bbs.may_contain("s", text)).count()
    plain = sorted(r["payload"] for r in probe.join(build.select("s"), on="s", how="left_semi").collect())
    old = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    try:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
        assert sorted(r["payload"] for r in bbs.semi_join(probe, build, "s").collect()) == plain
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", old)


def test_putstring_filters_stay_in_python(spark, sides):
    # build_spark() puts strings as Spark's putString, which might_contain cannot probe: such a
    # filter goes through Python, and still answers exactly.
    build, probe, every = sides
    f = bbs.build_spark(build, "s", fpp=0.01)
    kept = bbs.filter(probe, "s", f)
    assert "might_contain" not in plan_of(kept)
    assert sorted(r["payload"] for r in kept.collect()) == sorted(
        r["payload"] for r in every if r["s"] is not None and r["s"] in f)


def test_semi_join_probes_in_the_jvm_unless_the_build_side_broadcasts(spark, sides, monkeypatch):
    build, probe, _ = sides
    plain = sorted(r["payload"] for r in probe.join(build.select("k"), on="k", how="left_semi").collect())
    old = spark.conf.get("spark.sql.autoBroadcastJoinThreshold")
    try:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")  # no broadcast: the filter pays
        joined = bbs.semi_join(probe, build, "k")
        assert "might_contain" in plan_of(joined)
        assert sorted(r["payload"] for r in joined.collect()) == plain
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", str(1 << 30))  # Spark broadcasts it
        joined = bbs.semi_join(probe, build, "k")
        assert "might_contain" not in plan_of(joined)
        assert sorted(r["payload"] for r in joined.collect()) == plain
        # Keys that fit the threshold though Spark's estimate of the side does not: a broadcast
        # semi join of the keys, no filter.
        keys = build.where("k IS NOT NULL").count()
        estimate = int(str(build.select("k")._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))
        if 8 * keys < estimate:
            spark.conf.set("spark.sql.autoBroadcastJoinThreshold", str(8 * keys))
            joined = bbs.semi_join(probe, build, "k")
            assert "might_contain" not in plan_of(joined) and "Broadcast" in plan_of(joined)
            assert sorted(r["payload"] for r in joined.collect()) == plain
        # Text keys that fit it (Spark's estimate of the side made too large to): filtered first,
        # then a broadcast semi join of the keys.
        text = sorted(r["payload"] for r in probe.join(build.select("s"), on="s", how="left_semi").collect())
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", str(32 * build.where("s IS NOT NULL").count()))
        monkeypatch.setattr(bbs, "_estimated_bytes", lambda df: 1 << 40)
        joined = bbs.semi_join(probe, build, "s")
        assert "might_contain" in plan_of(joined) and "Broadcast" in plan_of(joined)
        assert sorted(r["payload"] for r in joined.collect()) == text
    finally:
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", old)


def test_native_filter_saved_and_reused(spark, sides, tmp_path):
    build, probe, _ = sides
    f = bbs.build_native(build, "k")
    f.save(str(tmp_path / "keys.bbf"))
    again = batchbloom.ClassicFilter.load(str(tmp_path / "keys.bbf"))
    assert again == f and again.key_kinds == {"integers"}
    assert bbs.filter(probe, "k", again).count() == bbs.filter(probe, "k", f).count()


def test_composite_keys_and_filters_made_outside_spark(spark, sides):
    from pyspark.sql import functions as F

    build, probe, every = sides
    # A composite key: Spark's xxhash64 of the columns, on both sides.
    pair = F.xxhash64("k", "s")
    f = bbs.build_native(build, pair)
    kept = probe.where(bbs.may_contain(F.xxhash64("k", "s"), f))
    assert "might_contain" in plan_of(kept)
    keys = {(r["k"], r["s"]) for r in build.collect() if r["k"] is not None}
    assert {r["payload"] for r in every if (r["k"], r["s"]) in keys} <= {r["payload"] for r in kept.collect()}
    # A filter made without Spark, from a NumPy column of the keys, probed in the JVM all the same.
    outside = batchbloom.ClassicFilter.spark(len(keys), 0.01, scheme=f.scheme)
    outside.insert(np.array(sorted(k for k, _ in keys), dtype=np.int64))
    kept = bbs.filter(probe, "k", outside)
    assert "might_contain" in plan_of(kept)
    assert sorted(r["payload"] for r in kept.collect()) == sorted(
        r["payload"] for r in every if r["k"] is not None and r["k"] in outside)


@pytest.mark.parametrize("column", ["k", "s", "i"])
def test_large_native_filters_are_built_in_the_jvm(spark, sides, monkeypatch, column):
    # Key sets beyond the collect limit: Spark's own aggregate fills the filter in the executors'
    # JVMs (no batchbloom in their Python), bit for bit the filter the driver would have built
    # from the same keys, and it probes in the JVM like any build_native filter.
    build, probe, _ = sides
    small = bbs.build_native(build, column, fpr=0.01)

    def no_python_on_executors(*args, **kwargs):
        raise AssertionError("a build_native filter beyond the collect limit is built in the JVM")

    monkeypatch.setattr(bbs, "_COLLECT_BYTES", 0)
    monkeypatch.setattr(bbs, "_union_of_partitions", no_python_on_executors)
    large = bbs.build_native(build, column, fpr=0.01)
    assert large == small and large.key_kinds == frozenset({"integers"})
    keys = set(build_keys(build, column))
    assert {r[column] for r in bbs.filter(probe, column, large).collect() if r[column] in keys} == keys & {
        r[column] for r in probe.select(column).collect()}
    assert bbs.semi_join(probe, build, column).count() == probe.join(build, column, "left_semi").count()


def test_jvm_builds_pass_sparks_runtime_filter_caps_and_restore_them(spark, sides, monkeypatch):
    # Spark 4 caps bloomFilter() at its runtime join filter's limits (64 Mbit and 4M items by
    # default: 40M keys at 1% need 383 Mbit). Caps set below this filter's bits and keys stand in
    # for them: the JVM still builds the exact filter, and the session's settings come back.
    build, _, _ = sides
    small = bbs.build_native(build, "k", fpr=0.01, min_bits=0)
    bits_cap, items_cap = bbs._RUNTIME_FILTER_CAPS
    spark.conf.set(bits_cap, "64")
    spark.conf.unset(items_cap)
    try:
        monkeypatch.setattr(bbs, "_COLLECT_BYTES", 0)
        monkeypatch.setattr(bbs, "_union_of_partitions", lambda *a, **k: pytest.fail("built outside the JVM"))
        large = bbs.build_native(build, "k", fpr=0.01, min_bits=0)
        assert large == small and large.bits > 64
        assert spark.conf.get(bits_cap) == "64"
        assert spark.conf.get(items_cap, None) is None
    finally:
        spark.conf.unset(bits_cap)


def test_spark_bytes_say_their_key_kinds_where_the_caller_knows():
    spark_form = batchbloom.ClassicFilter.spark(100, 0.01).to_spark_bytes()
    assert batchbloom.ClassicFilter.from_spark_bytes(spark_form).key_kinds is None
    f = batchbloom.ClassicFilter.from_spark_bytes(spark_form, key_kinds=["integers"])
    assert f.key_kinds == frozenset({"integers"})
    assert batchbloom.ClassicFilter.from_spark_bytes(spark_form, key_kinds=[]).key_kinds == frozenset()
    with pytest.raises(ValueError, match="key_kinds"):
        batchbloom.ClassicFilter.from_spark_bytes(spark_form, key_kinds=["strings"])
