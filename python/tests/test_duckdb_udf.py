"""batchbloom.duckdb: a filter as a vectorized (Arrow) DuckDB SQL function, usable in WHERE;
its answers equal the filter's own, for integer and string keys, with NULLs never matching."""
import numpy as np
import pyarrow as pa
import pytest

import batchbloom
import batchbloom.duckdb as bbd

duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed (pip install duckdb)")


def rows(con, sql):
    return con.execute(sql).fetchall()  # fetched to the end: the connection is free again


@pytest.fixture
def con():
    c = duckdb.connect()
    yield c
    c.close()


def test_where_bloom_may_contain(con, rng):
    build = rng.choice(10**9, size=3000, replace=False)
    f = batchbloom.Filter(build.size, 0.01)
    f.insert(build)
    probe = np.concatenate([build, rng.integers(10**9, 2 * 10**9, size=20_000)])
    con.register("probe_arrow", pa.table({"id": pa.array(probe, mask=np.arange(probe.size) % 97 == 0), "v": np.arange(probe.size)}))
    rows(con, "CREATE TABLE probe AS SELECT * FROM probe_arrow")
    assert bbd.register(con, f) is f
    got = {r[0] for r in rows(con, "SELECT v FROM probe WHERE bloom_may_contain(id)")}
    expected = {i for i, k in enumerate(probe) if i % 97 != 0 and int(k) in f}
    assert got == expected
    assert {i for i in range(build.size) if i % 97 != 0} <= got  # every build key found
    # A NULL key never matches (the function gives NULL, or False: WHERE drops both).
    assert rows(con, "SELECT count(*) FROM probe WHERE id IS NULL AND bloom_may_contain(id)")[0][0] == 0
    # The same as a semi join pre-filter: the join result does not change.
    con.register("build_arrow", pa.table({"id": build}))
    plain = rows(con, "SELECT count(*) FROM probe p JOIN build_arrow b ON p.id = b.id")[0]
    pre = rows(con, "SELECT count(*) FROM probe p JOIN build_arrow b ON p.id = b.id WHERE bloom_may_contain(p.id)")[0]
    assert plain == pre == (sum(1 for i in range(build.size) if i % 97 != 0),)


def test_saved_filters(con, tmp_path):
    f = batchbloom.ClassicFilter.spark(100, 0.01)
    f.insert(np.arange(100))
    (tmp_path / "spark.bin").write_bytes(f.to_spark_bytes())
    g = batchbloom.Filter(100, 0.01)
    g.insert(np.arange(50))
    g.save(tmp_path / "g.bbf")
    assert bbd.register(con, tmp_path / "spark.bin") == f
    assert bbd.register(con, str(tmp_path / "g.bbf"), name="in_g") == g
    assert rows(con, "SELECT count(*) FROM range(100) r(i) WHERE bloom_may_contain(i) AND in_g(i)")[0][0] >= 50


def test_string_keys_and_other_filter_types(con):
    words = [f"w{i}" for i in range(500)]
    spark = batchbloom.ClassicFilter.spark(500, 0.03)
    spark.insert(words)
    bbd.register(con, spark, name="in_words", key_type="VARCHAR")
    rows(con, "CREATE TABLE t AS SELECT 'w' || range::VARCHAR AS s FROM range(1000)")
    n = rows(con, "SELECT count(*) FROM t WHERE in_words(s)")[0][0]
    assert n == spark.count([f"w{i}" for i in range(1000)]) and 500 <= n < 560
    grown = batchbloom.ScalableFilter(100, fpr=0.01)
    grown.insert(np.arange(0, 5000, 5))
    bbd.register(con, grown, name="mult5", key_type="INTEGER")
    hits = rows(con, "SELECT count(*) FROM range(5000) r(i) WHERE mult5(i::INTEGER)")[0][0]
    assert hits == grown.count(np.arange(5000, dtype=np.int32))


@pytest.mark.parametrize(
    "bloom, kwargs, message",
    [
        (None, {}, r"^bloom must be a batchbloom filter, a path to a saved one or its bytes, not NoneType$"),
        (42, {}, r"^bloom must be a batchbloom filter, a path to a saved one or its bytes, not int$"),
        ([1, 2], {}, r"^bloom must be a batchbloom filter, a path to a saved one or its bytes, not list$"),
        (batchbloom.Filter(10, 0.1), {"name": None}, r"^name must be a str, not NoneType$"),
        (batchbloom.Filter(10, 0.1), {"key_type": 5}, r"^key_type must be a str, not int$"),
    ],
)
def test_register_rejects_what_is_no_filter_at_once(con, bloom, kwargs, message):
    with pytest.raises(TypeError, match=message):
        bbd.register(con, bloom, **kwargs)
    # Nothing was registered: the function does not exist.
    with pytest.raises(duckdb.Error):
        rows(con, "SELECT bloom_may_contain(1::BIGINT)")
