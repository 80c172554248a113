"""batchbloom.parquet.add as safe as the filters, and datasets from Python.

* Concurrent writers of one file (Python and the command-line program) take turns under the
  file's lock: each one's filters are there afterwards.
* Files the writers make are accepted: a GZIP (or any codec) dictionary page of an all-null
  chunk; a file of no row groups still has its column names checked.
* add() takes a dataset as the command-line program does (directories, hive partitions, in
  place, skip what is done, progress), with the same filters; a bad entry is reported in the
  result and the rest is done; a column added later gets only its own filters.
* probe() names a key that does not fit the column, and the column's type, in its error.
"""
import subprocess
import sys

import numpy as np
import pytest

import batchbloom
import batchbloom.parquet as bbp
from cli_program import CLI
from parquet_files import chunk_bitsets, duckdb, pa, pq, requires_cli, run_cli as cli


def big_table(rows=400_000):
    ids = np.arange(rows, dtype=np.int64)
    return pa.table({"a": ids * 3, "b": ids * 5 + 1, "c": ids % 1000})


ADD_IN_PYTHON = "import sys, batchbloom.parquet as p; p.add(sys.argv[1], sys.argv[1], [sys.argv[2]], threads=1)"


@requires_cli
def test_concurrent_writers_of_one_file_keep_each_others_filters(tmp_path):
    path = tmp_path / "shared.parquet"
    for trial in range(4):
        pq.write_table(big_table(), path, row_group_size=100_000)
        writers = [
            subprocess.Popen([sys.executable, "-c", ADD_IN_PYTHON, path, "a"]),
            subprocess.Popen([sys.executable, "-c", ADD_IN_PYTHON, path, "b"]),
            subprocess.Popen([CLI, "parquet", "add", path,
                              "--column", "c", "--out", path, "--threads", "1"], stdout=subprocess.DEVNULL),
        ]
        assert [w.wait() for w in writers] == [0, 0, 0]
        assert {c for _, c in chunk_bitsets(path)} == {"a", "b", "c"}, f"trial {trial}"
        assert pq.read_table(path).equals(big_table())


@pytest.mark.parametrize("codec", ["gzip", "snappy", "zstd", "brotli", "lz4", "none"])
def test_dictionary_page_of_an_all_null_chunk(tmp_path, codec):
    path = tmp_path / "nulls.parquet"
    table = pa.table({"id": pa.array(range(100), pa.int64()), "gone": pa.array([None] * 100, pa.string()),
                      "none": pa.array([None] * 100, pa.int64())})
    pq.write_table(table, path, compression=codec, use_dictionary=True)
    added = bbp.add(path, path, ["id", "gone", "none"])
    assert {(a["column"], a["values"]) for a in added} == {("id", 100), ("gone", 0), ("none", 0)}
    assert pq.read_table(path).equals(table)
    assert duckdb.connect().execute(f"SELECT count(*) FROM '{path}' WHERE gone IS NULL").fetchone() == (100,)
    assert not bbp.probe(path, "gone", ["x"])[0][0]


def test_a_file_of_no_row_groups_checks_its_column_names(tmp_path):
    path = tmp_path / "empty.parquet"
    duckdb.connect().execute(f"COPY (SELECT 1::BIGINT AS x, 'a' AS s WHERE false) TO '{path}' (FORMAT parquet)")
    assert pq.ParquetFile(path).metadata.num_row_groups == 0
    assert bbp.add(path, tmp_path / "out.parquet", ["x", "s"]) == []
    with pytest.raises(batchbloom.Error, match=r"no column 'nope' in .* \(columns: x, s\)"):
        bbp.add(path, tmp_path / "out2.parquet", ["nope"])
    assert not (tmp_path / "out2.parquet").exists()
    with pytest.raises(batchbloom.Error, match="no column 'nope'"):
        bbp.probe(path, "nope", [1])
    assert bbp.probe(path, "x", [1]) == {}


def make_dataset(root, rows=9_000):
    ids = np.arange(rows, dtype=np.int64) * 3
    table = pa.table({"id": ids, "name": [f"k{i:07d}" for i in ids], "year": (np.arange(rows) % 3) + 2020})
    pq.write_to_dataset(table, str(root), partition_cols=["year"], row_group_size=1_000,
                        basename_template="part-{i}.parquet")  # alike in every partition, as writers do
    (root / "_SUCCESS").write_text("")
    return sorted(p for p in root.rglob("*.parquet"))


@requires_cli
def test_a_dataset_from_python_as_from_the_cli(tmp_path):
    py, sh = tmp_path / "py", tmp_path / "sh"
    files = make_dataset(py)
    make_dataset(sh)
    seen = []
    result = bbp.add(py, py, ["id"], progress=lambda done, total, name: seen.append((done, total, name)))
    cli("parquet", "add", sh, "--column", "id")
    assert [(r["outcome"], r["error"]) for r in result] == [("added", None)] * 3
    names = [r["name"] for r in result]
    assert all(n.startswith("year=") and n.endswith(".parquet") for n in names) and len(set(names)) == 3
    assert [d for d, _, _ in seen] == [1, 2, 3] and {t for _, t, _ in seen} == {3}
    assert {n for *_, n in seen} == set(names)
    for f in files:
        assert chunk_bitsets(f) == chunk_bitsets(sh / f.relative_to(py))  # the CLI's filters, bit for bit
    # Done files are skipped; a column added later gets only its filters, the others are kept.
    before = {f: chunk_bitsets(f) for f in files}
    assert [r["outcome"] for r in bbp.add(py, None, ["id"])] == ["skipped"] * 3
    later = bbp.add([str(f) for f in files], None, ["id", "name"], progress=True, threads=2)
    assert [r["outcome"] for r in later] == ["added"] * 3
    assert all({a["column"] for a in r["filters"]} == {"name"} for r in later)
    for f in files:
        bits = chunk_bitsets(f)
        assert {k: v for k, v in bits.items() if k[1] == "id"} == before[f]
        assert {c for _, c in bits} == {"id", "name"}
    # The command-line program does the same (no --replace needed).
    r = cli("parquet", "add", sh, "--column", "id", "--column", "name")
    assert "3 file(s) given filters, 0 skipped" in r.stderr and "\tid\t" not in r.stdout


def test_a_bad_entry_is_reported_and_the_rest_done(tmp_path):
    root = tmp_path / "ds"
    files = make_dataset(root)
    (root / "loop.parquet").symlink_to("loop.parquet")
    (root / "dangling.parquet").symlink_to("nowhere.parquet")
    (root / "year=2021" / "notes.parquet").write_text("notes, not a Parquet file")
    result = {r["name"]: r for r in bbp.add(root, None, ["id"])}
    assert {n for n, r in result.items() if r["outcome"] == "added"} == {str(f.relative_to(root)) for f in files}
    assert result["dangling.parquet"]["error"] == "symbolic link to nothing"
    assert "symbolic links" in result["loop.parquet"]["error"]
    assert "not a Parquet file" in result["year=2021/notes.parquet"]["error"]
    assert all(chunk_bitsets(f) for f in files)


def test_dataset_arguments(tmp_path):
    root = tmp_path / "ds"
    files = make_dataset(root)
    with pytest.raises(batchbloom.Error, match="no file or directory"):
        bbp.add(tmp_path / "missing", None, ["id"])
    with pytest.raises(batchbloom.Error, match="output=None"):
        bbp.add(root, tmp_path / "elsewhere", ["id"])
    with pytest.raises(batchbloom.Error, match="output=None"):
        bbp.add(files, files[0], ["id"])
    with pytest.raises(TypeError, match="progress"):
        bbp.add(root, None, ["id"], progress="yes")
    with pytest.raises(ZeroDivisionError):  # the callback's error, once every file is done
        bbp.add(root, None, ["id"], progress=lambda *a: 1 / 0)
    assert all(chunk_bitsets(f) for f in files)


def test_probe_names_the_value_and_the_columns_type(tmp_path):
    path = tmp_path / "u.parquet"
    table = pa.table({"u": pa.array([1, 3_000_000_000], pa.uint32()), "i": pa.array([1, 2], pa.int32()),
                      "s": pa.array(["a", "b"])})
    pq.write_table(table, path, bloom_filter_options={"u": {"ndv": 2, "fpp": 0.01}})
    # PyArrow's own filter holds 3e9 as the INT32 bits it stores.
    assert bbp.probe(path, "u", [3_000_000_000, np.uint32(1)])[0].all()
    cases = [
        ("u", 2**32, r"value 4294967296 does not fit column 'u' \(INT32, UINT_32\)"),
        ("u", -1, r"value -1 does not fit column 'u' \(INT32, UINT_32\)"),
        ("i", 2**31, r"value 2147483648 does not fit column 'i' \(INT32\)"),
        ("i", 2**70, r"value 1180591620717411303424 does not fit column 'i' \(INT32\)"),
        ("i", 1.5, r"value 1.5 \(float\) cannot be a key of INT32 column 'i'"),
        ("i", "abc", r"value 'abc' \(str\) cannot be a key of INT32 column 'i'"),
        ("s", 1, r"value 1 \(int\) cannot be a key of BYTE_ARRAY, UTF8 column 's'"),
    ]
    for column, key, message in cases:
        with pytest.raises(batchbloom.Error, match=message) as e:
            bbp.probe(path, column, [key])
        assert "std::" not in str(e.value) and "bad_cast" not in str(e.value)
