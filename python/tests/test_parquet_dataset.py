"""`batchbloom parquet add DIR`: Bloom filters for a whole (hive-partitioned) dataset, in place.

Every data file of the dataset gets filters, marker files (_SUCCESS) and hidden files are left
alone, the files stay readable by PyArrow, DuckDB and Spark with the same rows, DuckDB reads no
row group of any file for an absent key, a second run skips the files already done (so an
interrupted run resumes), and a file that fails is reported without stopping the others.
"""
import numpy as np
import pytest

from parquet_files import chunk_bitsets, duckdb, pa, pq, profiled, requires_cli, run_cli as cli

pytestmark = requires_cli

ROWS = 60_000


def make_dataset(root):
    ids = np.arange(ROWS, dtype=np.int64) * 3
    table = pa.table({"id": ids, "name": [f"k{i:07d}" for i in ids], "year": (np.arange(ROWS) % 3) + 2020})
    pq.write_to_dataset(table, str(root), partition_cols=["year"], row_group_size=5_000)
    (root / "_SUCCESS").write_text("")
    (root / ".hidden.parquet").write_bytes(b"not parquet at all")
    return table


def data_files(root):
    return sorted(p for p in root.rglob("*.parquet") if not p.name.startswith("."))


def read_all(root):
    return pq.read_table(str(root), partitioning="hive").sort_by("id")


def rows_scanned(con, tmp_path, root, where):
    rows, scanned, total = profiled(con, tmp_path / "profile.json", "SELECT count(*) FROM read_parquet("
                                    f"'{root}/**/*.parquet', hive_partitioning = true) WHERE {where}")
    return rows[0][0], scanned, total


def test_dataset_gets_filters_in_place_and_reads_the_same(tmp_path):
    root = tmp_path / "ds"
    make_dataset(root)
    before = read_all(root)
    files = data_files(root)
    assert len(files) == 3 and all(chunk_bitsets(f) == {} for f in files)

    r = cli("parquet", "add", root, "--column", "id", "--column", "name", "--fpr", 0.01)
    lines = [line.split("\t") for line in r.stdout.splitlines()[1:]]
    assert {line[0] for line in lines} == {str(f) for f in files}
    assert "3 file(s) given filters, 0 skipped" in r.stderr
    for f in files:
        groups = pq.ParquetFile(f).metadata.num_row_groups
        assert set(chunk_bitsets(f)) == {(g, c) for g in range(groups) for c in ("id", "name")}
    assert (root / "_SUCCESS").read_text() == "" and (root / ".hidden.parquet").read_bytes() == b"not parquet at all"
    (root / ".hidden.parquet").unlink()  # DuckDB's glob would take it

    # PyArrow and DuckDB read the same rows as before.
    assert read_all(root).equals(before)
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*), sum(id) FROM read_parquet('{root}/**/*.parquet', hive_partitioning = true)"
                       ).fetchone() == (ROWS, int(before.column("id").to_numpy().sum()))
    # A point lookup of an absent key reads no row group of any file; a present one finds its row.
    rows, scanned, total = rows_scanned(con, tmp_path, root, "id = 1")  # ids are multiples of 3
    assert rows == 0 and scanned == 0 and total > 0
    rows, scanned, total = rows_scanned(con, tmp_path, root, "name = 'k0000001'")
    assert rows == 0 and scanned == 0
    rows, scanned, _ = rows_scanned(con, tmp_path, root, "id = 300")
    assert rows == 1 and scanned >= 1


def test_second_run_skips_what_is_done_and_replace_redoes_it(tmp_path):
    root = tmp_path / "ds"
    make_dataset(root)
    files = data_files(root)
    cli("parquet", "add", files[0], files[1], "--column", "id")  # an earlier run that did two files
    done = {f: f.read_bytes() for f in files[:2]}
    r = cli("parquet", "add", root, "--column", "id")
    assert "1 file(s) given filters, 2 skipped" in r.stderr
    assert all(f.read_bytes() == data for f, data in done.items())  # untouched
    assert all(chunk_bitsets(f) for f in files)
    r = cli("parquet", "add", root, "--column", "id", "--replace")
    assert "3 file(s) given filters, 0 skipped" in r.stderr


def test_a_failing_file_is_reported_and_the_others_are_done(tmp_path):
    root = tmp_path / "ds"
    make_dataset(root)
    broken = root / "year=2021" / "broken.parquet"
    broken.write_bytes(b"PAR1 but nothing else")
    r = cli("parquet", "add", root, "--column", "id", check=False)
    assert r.returncode == 1
    assert "broken.parquet" in r.stderr and "3 file(s) given filters" in r.stderr
    assert broken.read_bytes() == b"PAR1 but nothing else"
    assert all(chunk_bitsets(f) for f in data_files(root) if f != broken)


def test_usage_errors(tmp_path):
    root = tmp_path / "ds"
    make_dataset(root)
    r = cli("parquet", "add", root, "--column", "id", "--out", tmp_path / "x.parquet", check=False)
    assert r.returncode == 2 and "in place" in r.stderr
    r = cli("parquet", "add", root, tmp_path / "missing", "--column", "id", check=False)
    assert r.returncode == 1 and "no file or directory" in r.stderr
    (tmp_path / "empty").mkdir()
    r = cli("parquet", "add", tmp_path / "empty", "--column", "id", check=False)
    assert r.returncode == 1 and "no Parquet files" in r.stderr


def test_spark_reads_the_dataset(tmp_path, spark):
    root = tmp_path / "ds"
    make_dataset(root)
    cli("parquet", "add", root, "--column", "id", "--column", "name")
    df = spark.read.parquet(str(root))
    assert df.count() == ROWS
    assert df.where("id = 300").select("name", "year").collect()[0].asDict() == {"name": "k0000300", "year": 2021}
    assert df.where("id = 1").count() == 0
