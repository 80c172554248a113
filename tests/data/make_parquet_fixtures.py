#!/usr/bin/env python3
"""Writes the Parquet fixtures of tests/test_parquet.cpp and the answers a real reader gives.

    python3 tests/data/make_parquet_fixtures.py        (needs pyarrow and duckdb from PyPI)

Two small files with split-block Bloom filters on five columns (INT64, INT32, BYTE_ARRAY,
DOUBLE, FLOAT) in two row groups, one written by PyArrow and one by DuckDB, plus
tiny_pyarrow.parquet and tiny_duckdb.parquet (8 distinct values, under a kilobyte) seed
the fuzz target tests/fuzz/fuzz_parquet.cpp. empty_pyarrow.parquet, empty_duckdb.parquet and
empty_spark.parquet hold no rows, each as its writer makes such a file (the Spark one only
where pyspark and a Java runtime are installed).

parquet_expected.txt: for every file, column and row group, DuckDB's parquet_bloom_probe answer
(DuckDB's own reader; PyArrow exposes no Bloom filter reader to Python) for each probe value.
The values are formulas of the row number, repeated in the C++ test:

    row i:    i64 = 7i + 3   i32 = 5i - 100000   s = "key-<11i>"   f64 = i / 2   f32 = i / 4
    absent i: i64 = 7i + 4   i32 = 5i - 99998    s = "nokey-<i>"   f64 = i / 2 + 1/8   f32 = i / 4 + 1/16

Probes are the ROWS present values (half in each row group) then ROWS absent ones. An answer
line is "FILE COLUMN ROW_GROUP HEX": bit j of the hex string (nibble j // 4, most significant
bit first) is 1 when the reader says probe j may be in the row group.
"""
import pathlib

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 4096
GROUP = 2048
HERE = pathlib.Path(__file__).resolve().parent
COLUMNS = ["i64", "i32", "s", "f64", "f32"]


def present(i):
    return {"i64": 7 * i + 3, "i32": 5 * i - 100000, "s": f"key-{11 * i}", "f64": i / 2, "f32": i / 4}


def absent(i):
    return {"i64": 7 * i + 4, "i32": 5 * i - 99998, "s": f"nokey-{i}", "f64": i / 2 + 0.125, "f32": i / 4 + 0.0625}


def table():
    rows = [present(i) for i in range(ROWS)]
    return pa.table({
        "i64": pa.array([r["i64"] for r in rows], pa.int64()),
        "i32": pa.array([r["i32"] for r in rows], pa.int32()),
        "s": pa.array([r["s"] for r in rows], pa.string()),
        "f64": pa.array([r["f64"] for r in rows], pa.float64()),
        "f32": pa.array([r["f32"] for r in rows], pa.float32()),
        "plain": pa.array(range(ROWS), pa.int64()),  # no Bloom filter
    })


def write_files():
    t = table()
    bloom = {c: {"ndv": GROUP, "fpp": 0.05} for c in COLUMNS}
    pq.write_table(t, HERE / "pyarrow_bloom.parquet", row_group_size=GROUP, compression="zstd",
                   bloom_filter_options=bloom)
    con = duckdb.connect()
    con.register("t", t.select(COLUMNS))
    # DuckDB writes Bloom filters only for dictionary-encoded columns; the large dictionary
    # limit keeps every column dictionary-encoded (a far larger one makes DuckDB very slow).
    con.sql(f"COPY t TO '{HERE / 'duckdb_bloom.parquet'}' (FORMAT parquet, ROW_GROUP_SIZE {GROUP}, "
            "COMPRESSION zstd, DICTIONARY_SIZE_LIMIT 100000, BLOOM_FILTER_FALSE_POSITIVE_RATIO 0.05)")


def write_tiny_files():
    t = pa.table({"i64": pa.array(range(8), pa.int64()), "s": pa.array([f"v{i}" for i in range(8)], pa.string())})
    pq.write_table(t, HERE / "tiny_pyarrow.parquet", compression="none",
                   bloom_filter_options={"i64": {"ndv": 8, "fpp": 0.1}, "s": {"ndv": 8, "fpp": 0.1}})
    # DuckDB dictionary-encodes (and so writes a filter for) only columns with repeated values.
    duckdb.sql(f"COPY (SELECT (i % 8)::BIGINT AS i64, 'v' || (i % 8) AS s FROM range(64) t(i)) "
               f"TO '{HERE / 'tiny_duckdb.parquet'}' (FORMAT parquet, COMPRESSION uncompressed)")


def write_empty_files():
    """Columns x (INT64) and s (BYTE_ARRAY), no rows. PyArrow writes one row group whose chunks
    have no data page: x only its dictionary page, with data_page_offset 0; s (no dictionary)
    no page at all. DuckDB and Spark write no row group."""
    t = pa.table({"x": pa.array([], pa.int64()), "s": pa.array([], pa.string())})
    pq.write_table(t, HERE / "empty_pyarrow.parquet", use_dictionary=["x"])
    duckdb.sql(f"COPY (SELECT 1::BIGINT AS x, 'a' AS s WHERE false) TO '{HERE / 'empty_duckdb.parquet'}' "
               "(FORMAT parquet)")
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return
    import shutil
    import tempfile
    spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    with tempfile.TemporaryDirectory() as tmp:
        spark.createDataFrame([], "x BIGINT, s STRING").coalesce(1).write.parquet(f"{tmp}/out")
        part, = pathlib.Path(tmp, "out").glob("part-*.parquet")
        shutil.copyfile(part, HERE / "empty_spark.parquet")
    spark.stop()


def hex_bits(bits):
    bits = bits + [0] * (-len(bits) % 4)
    return "".join(f"{8 * a + 4 * b + 2 * c + d:x}" for a, b, c, d in zip(*[iter(bits)] * 4))


def expected_lines():
    con = duckdb.connect()
    lines = []
    for name in ["pyarrow_bloom.parquet", "duckdb_bloom.parquet"]:
        groups = pq.ParquetFile(HERE / name).metadata.num_row_groups
        assert groups == ROWS // GROUP, (name, groups)
        for col in COLUMNS:
            probes = [present(i)[col] for i in range(ROWS)] + [absent(i)[col] for i in range(ROWS)]
            maybe = [[0] * len(probes) for _ in range(groups)]
            for j, v in enumerate(probes):
                rows = con.execute("SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)",
                                   [str(HERE / name), col, v]).fetchall()
                assert len(rows) == groups, rows
                for rg, excludes in rows:
                    maybe[rg][j] = 0 if excludes else 1
            for rg in range(groups):
                lines.append(f"{name} {col} {rg} {hex_bits(maybe[rg])}")
    return lines


def main():
    write_files()
    write_tiny_files()
    write_empty_files()
    lines = expected_lines()
    (HERE / "parquet_expected.txt").write_text(
        "# written by make_parquet_fixtures.py: FILE COLUMN ROW_GROUP HEX (DuckDB parquet_bloom_probe)\n"
        + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
