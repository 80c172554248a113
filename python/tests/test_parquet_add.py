"""`batchbloom parquet add`: Bloom filters for a Parquet file that has none, checked by real readers.

* Decoding, against PyArrow's own filters: PyArrow writes files with Bloom filters on every
  column (every codec, data page v1 and v2, dictionary / plain / delta / byte-stream-split
  encodings, nulls, nested lists, several pages per chunk); `parquet add --replace` must
  rebuild every filter bit for bit. A filter equal to the writer's is the writer's set of
  values, hashed the writer's way. PyArrow sizes some filters below the NDV it was given (for
  dictionary-encoded chunks), so ours, sized for that NDV, is folded to the writer's size first
  (parquet_files.fold: exactly the filter built at that size).
* A file PyArrow wrote without filters goes through `parquet add`; PyArrow and DuckDB read the
  same rows from the copy; DuckDB's parquet_bloom_probe agrees with batchbloom; a DuckDB point
  lookup of an absent value reads no row group (DuckDB's profiler), while present values return
  the same rows as before.
* What cannot be done is an error, and leaves no output: BOOLEAN / INT96 columns, encrypted
  files, unknown columns.
"""
import decimal
import random

import pytest

from parquet_files import chunk_bitsets, duckdb, fold, pa, pq, profiled, requires_cli, run_cli as cli

pytestmark = requires_cli

ROWS = 12_000
GROUP = 3_000  # four row groups
FPP = 0.05


def value_table():
    """Every physical type a Bloom filter is defined for, with repeats, nulls and nesting."""
    rnd = random.Random(17)
    i64 = [rnd.randrange(-2**62, 2**62) if i % 3 else (i % 97) for i in range(ROWS)]  # repeats too
    return pa.table({
        "i64": pa.array(i64, pa.int64()),
        "i32": pa.array([(7 * i) % 5003 - 2500 for i in range(ROWS)], pa.int32()),
        "f64": pa.array([i / 8 for i in range(ROWS)], pa.float64()),
        "f32": pa.array([float(i % 1000) / 4 for i in range(ROWS)], pa.float32()),
        "s": pa.array([f"key-{(i * 7919) % 9000:05d}" for i in range(ROWS)], pa.string()),
        "fb": pa.array([f"{i % 4001:012d}".encode() for i in range(ROWS)], pa.binary(12)),
        "opt": pa.array([None if i % 5 == 0 else i * 11 for i in range(ROWS)], pa.int64()),
        "lst": pa.array([None if i % 7 == 0 else [i, i + 1, i % 13] for i in range(ROWS)], pa.list_(pa.int64())),
        "day": pa.array([i % 3650 for i in range(ROWS)], pa.date32()),
        "dec": pa.array([decimal.Decimal((i % 2000) * 3) / 100 for i in range(ROWS)], pa.decimal128(20, 2)),
    })


LEAVES = ["i64", "i32", "f64", "f32", "s", "fb", "opt", "lst.list.element", "day", "dec"]


ENCODINGS = {
    "dictionary": dict(use_dictionary=True, dictionary_pagesize_limit=8192),  # falls back to PLAIN mid-chunk
    "plain": dict(use_dictionary=False),
    "delta": dict(use_dictionary=False, column_encoding={
        "i64": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY",
        "fb": "DELTA_BYTE_ARRAY", "opt": "DELTA_BINARY_PACKED", "day": "DELTA_BINARY_PACKED",
        "lst.list.element": "DELTA_BINARY_PACKED", "f64": "BYTE_STREAM_SPLIT", "f32": "BYTE_STREAM_SPLIT",
        "dec": "DELTA_BYTE_ARRAY"}),
    "delta_length": dict(use_dictionary=False, column_encoding={
        "s": "DELTA_LENGTH_BYTE_ARRAY", "i64": "BYTE_STREAM_SPLIT", "i32": "BYTE_STREAM_SPLIT",
        "fb": "BYTE_STREAM_SPLIT", "dec": "BYTE_STREAM_SPLIT"}),
}

CASES = ([(codec, version, "dictionary") for codec in ["none", "snappy", "gzip", "brotli", "zstd", "lz4"]
          for version in ["1.0", "2.0"]]
         + [("snappy", version, enc) for enc in ["plain", "delta", "delta_length"] for version in ["1.0", "2.0"]])


@pytest.mark.parametrize("codec,page_version,encoding", CASES)
def test_rebuilds_pyarrows_filters_byte_for_byte(tmp_path, codec, page_version, encoding):
    src = tmp_path / "pyarrow.parquet"
    pq.write_table(value_table(), src, row_group_size=GROUP, compression=codec, data_page_version=page_version,
                   data_page_size=4096, bloom_filter_options={c: {"ndv": GROUP, "fpp": FPP} for c in LEAVES},
                   **ENCODINGS[encoding])
    theirs = chunk_bitsets(src)
    assert {c for _, c in theirs} == set(LEAVES), "PyArrow wrote no filter for some column"
    out = tmp_path / "ours.parquet"
    cli("parquet", "add", src, *[a for c in LEAVES for a in ("--column", c)], "--replace", "--ndv", GROUP,
        "--fpr", FPP, "--out", out)
    ours = chunk_bitsets(out)
    assert ours.keys() == theirs.keys()
    different = [k for k in theirs if fold(ours[k], len(theirs[k])) != theirs[k]]
    assert different == [], f"filters differ from PyArrow's for {different}"
    assert pq.read_table(out).equals(pq.read_table(src))


def interleaved_table(rows, groups):
    """int64 and string columns whose every row group spans the whole value range (so min/max
    statistics cannot skip a row group for an absent value: only a Bloom filter can)."""
    ids = [(i * 2654435761) % (4 * rows) * 2 for i in range(rows)]  # even numbers, spread over all groups
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([f"user-{v:09d}" for v in ids], pa.string()),
        "n": pa.array(range(rows), pa.int64()),
    })


def scan(con, tmp_path, path, col, value):
    """(rows, row groups DuckDB read, row groups in the file) for `col = value` (DuckDB's profiler)."""
    return profiled(con, tmp_path / "profile.json", f"SELECT * FROM '{path}' WHERE {col} = ? ORDER BY n", [value])


def test_duckdb_skips_every_row_group_for_absent_values(tmp_path):
    rows, group = 40_000, 5_000
    src = tmp_path / "plain.parquet"
    pq.write_table(interleaved_table(rows, rows // group), src, row_group_size=group)  # no filters
    assert chunk_bitsets(src) == {}
    out = tmp_path / "filtered.parquet"
    report = cli("parquet", "add", src, "--column", "id", "--column", "name", "--fpr", 0.01, "--out", out).stdout
    lines = [line.split("\t") for line in report.splitlines()[1:]]
    assert len(lines) == 2 * rows // group
    for rg, col, values, distinct, nbytes, fpr in lines:
        assert int(values) == group and int(distinct) == group  # each filter holds its own group's values
        assert int(nbytes) == 8192 and float(fpr) < 0.01

    # The same rows, read by both readers.
    assert pq.read_table(out).equals(pq.read_table(src))
    con = duckdb.connect()
    for a, b in [(src, out), (out, src)]:
        assert con.execute(f"SELECT count(*) FROM (SELECT * FROM '{a}' EXCEPT ALL SELECT * FROM '{b}')").fetchone()[0] == 0
    assert con.execute(f"SELECT count(*) FROM '{out}'").fetchone()[0] == rows

    # The listing shows each chunk's rows, distinct values, filter bytes and predicted FPR.
    listing = [line.split("\t") for line in cli("parquet", out).stdout.splitlines()]
    assert listing[0] == ["row_group", "column", "type", "rows", "distinct", "filter_bytes", "fpr"]
    assert ["0", "id", "INT64", str(group), str(group), "8192"] == listing[1][:6]
    assert listing[3][:6] == ["0", "n", "INT64", str(group), "-", "-"]

    ids = interleaved_table(rows, rows // group)["id"].to_pylist()
    rnd = random.Random(3)
    present = rnd.sample(ids, 20)
    absent = [v + 1 for v in rnd.sample(ids, 200)]  # odd: never in the data, inside every group's range

    # DuckDB's own filter reader agrees with batchbloom's, value by value and row group by row group.
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"{v}\n" for v in present + absent))
    ours = {}
    for line in cli("parquet", out, "--column", "id", "--query", keys).stdout.splitlines():
        rg, key = line.split("\t")
        ours.setdefault(int(key), set()).add(int(rg))
    for v in present + absent:
        theirs = {rg for _, rg, excluded in con.execute(
            "SELECT * FROM parquet_bloom_probe(?, 'id', ?)", [str(out), v]).fetchall() if not excluded}
        assert theirs == ours.get(v, set()), v
    for v in present:
        assert len(ours[v]) >= 1

    # Point lookups: absent values read no row group of the filtered copy (every one of the
    # original); present values return the same rows from both.
    skipped = 0
    for v in absent:
        rows_out, read_out, total = scan(con, tmp_path, out, "id", v)
        rows_src, read_src, _ = scan(con, tmp_path, src, "id", v)
        assert rows_out == rows_src == []
        assert read_src == total == rows // group
        if len(ours.get(v, ())) == 0:
            assert read_out == 0, v
            skipped += 1
    assert skipped >= 0.95 * len(absent)  # the rest are false positives, about 1% per row group
    for v in present:
        assert scan(con, tmp_path, out, "id", v)[0] == scan(con, tmp_path, src, "id", v)[0] != []
    name_absent = "user-000000001"
    assert scan(con, tmp_path, out, "name", name_absent)[:2] == ([], 0)
    name_present = f"user-{present[0]:09d}"
    assert scan(con, tmp_path, out, "name", name_present)[0] == scan(con, tmp_path, src, "name", name_present)[0] != []


def test_replace_rebuilds_in_place_and_reclaims_the_old_filters(tmp_path):
    src = tmp_path / "f.parquet"
    pq.write_table(interleaved_table(8_000, 4), src, row_group_size=2_000)
    cli("parquet", "add", src, "--column", "id", "--out", src)  # out may be in
    once = src.read_bytes()
    cli("parquet", "add", src, "--column", "id", "--replace", "--out", src)
    assert src.read_bytes() == once  # the same filters, where the old ones were
    cli("parquet", "add", src, "--column", "id", "--replace", "--fpr", 0.0001, "--out", src)
    assert len(src.read_bytes()) > len(once)
    assert {k for k in chunk_bitsets(src)} == {(g, "id") for g in range(4)}
    assert pq.read_table(src).equals(interleaved_table(8_000, 4))


def test_what_cannot_be_done_is_an_error_and_writes_nothing(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"b": [True, False], "i": [1, 2], "ts": pa.array([1, 2], pa.timestamp("ns"))}), path,
                   use_deprecated_int96_timestamps=True, bloom_filter_options={"i": {"ndv": 2, "fpp": 0.1}})
    out = tmp_path / "out.parquet"
    for args, message in [
        (["--column", "b"], "BOOLEAN, for which Parquet defines no Bloom filter"),
        (["--column", "ts"], "INT96, for which Parquet defines no Bloom filter"),
        (["--column", "nope"], "no column 'nope'"),
        (["--column", "i", "--column", "i", "--replace"], "named twice"),
        (["--column", "i", "--replace", "--fpr", "1.5"], "--fpr must be in (0, 1)"),
        (["--query", "x", "--column", "i"], "parquet add takes no --query"),
        ([], "needs --column"),
    ]:
        r = cli("parquet", "add", path, *args, "--out", out, check=False)
        assert r.returncode != 0 and message in r.stderr, (args, r.stderr)
        assert not out.exists()
    r = cli("parquet", "add", path, "--column", "i", "--out", out, "--replace")
    assert r.returncode == 0 and out.exists()

    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


def test_encrypted_files_are_refused(tmp_path):
    """PyArrow's Parquet modular encryption, with an encrypted footer and with a signed plaintext
    one (whose footer could be read, but not rewritten without the key)."""
    enc = pytest.importorskip("pyarrow.parquet.encryption", reason="PyArrow without Parquet encryption")
    import base64

    class Kms(enc.KmsClient):  # keys "wrapped" in the clear: enough to write a test file
        def __init__(self, config):
            super().__init__()

        def wrap_key(self, key_bytes, master_key_identifier):
            return base64.b64encode(key_bytes)

        def unwrap_key(self, wrapped_key, master_key_identifier):
            return base64.b64decode(wrapped_key)

    factory = enc.CryptoFactory(lambda config: Kms(config))
    table = pa.table({"i": [1, 2, 3], "j": [4, 5, 6]})
    for plaintext_footer, message in [(False, "encrypted footer"), (True, "is encrypted")]:
        config = enc.EncryptionConfiguration(footer_key="f", column_keys={"k": ["i"]}, double_wrapping=False,
                                             plaintext_footer=plaintext_footer)
        path = tmp_path / f"encrypted-{plaintext_footer}.parquet"
        with pq.ParquetWriter(path, table.schema,
                              encryption_properties=factory.file_encryption_properties(enc.KmsConnectionConfig(),
                                                                                       config)) as w:
            w.write_table(table)
        out = tmp_path / "never.parquet"
        r = cli("parquet", "add", path, "--column", "j", "--out", out, check=False)
        assert r.returncode != 0 and message in r.stderr, r.stderr
        assert not out.exists()


EMPTY = pa.table({
    "i64": pa.array([], pa.int64()), "i32": pa.array([], pa.int32()), "f64": pa.array([], pa.float64()),
    "f32": pa.array([], pa.float32()), "s": pa.array([], pa.string()), "fb": pa.array([], pa.binary(12)),
    "lst": pa.array([], pa.list_(pa.int64())),
})
EMPTY_LEAVES = ["i64", "i32", "f64", "f32", "s", "fb", "lst.list.element"]


def write_empty_duckdb(path):
    con = duckdb.connect()
    con.register("t", EMPTY)
    con.execute(f"COPY (SELECT * FROM t) TO '{path}' (FORMAT parquet)")
    con.close()


EMPTY_WRITERS = {
    # PyArrow writes a row group of chunks without data pages: a dictionary page only (with
    # data_page_offset 0), or no page at all.
    "pyarrow": lambda p: pq.write_table(EMPTY, p),
    "pyarrow-plain": lambda p: pq.write_table(EMPTY, p, use_dictionary=False, compression="none"),
    "pyarrow-v2-zstd": lambda p: pq.write_table(EMPTY, p, data_page_version="2.0", compression="zstd"),
    "pyarrow-delta": lambda p: pq.write_table(EMPTY, p, use_dictionary=False, column_encoding={
        "i64": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY", "f64": "BYTE_STREAM_SPLIT"}),
    "duckdb": write_empty_duckdb,  # no row group
}


@pytest.mark.parametrize("writer", EMPTY_WRITERS)
def test_empty_files_of_every_writer_get_filters_and_still_read(tmp_path, writer):
    src = tmp_path / "empty.parquet"
    EMPTY_WRITERS[writer](src)
    groups = pq.ParquetFile(src).metadata.num_row_groups
    out = tmp_path / "out.parquet"
    r = cli("parquet", "add", src, *[a for c in EMPTY_LEAVES for a in ("--column", c)], "--out", out)
    lines = r.stdout.splitlines()[1:]
    assert len(lines) == groups * len(EMPTY_LEAVES), r.stdout
    assert all(line.split("\t")[2:4] == ["0", "0"] for line in lines), r.stdout  # values, distinct
    back = pq.read_table(out)
    assert back.num_rows == 0 and back.schema.equals(pq.read_table(src).schema)
    assert set(chunk_bitsets(out)) == {(g, c) for g in range(groups) for c in EMPTY_LEAVES}
    assert all(b == bytes(32) for b in chunk_bitsets(out).values())  # the smallest filter, nothing set
    assert duckdb.execute(f"SELECT count(*) FROM '{out}'").fetchall() == [(0,)]


def test_empty_spark_file_gets_no_filter_and_still_reads(tmp_path, spark):
    """Spark writes a DataFrame of no rows as a file of no row group."""
    spark.createDataFrame([], "x BIGINT, s STRING").coalesce(1).write.parquet(str(tmp_path / "spark"))
    src, = (tmp_path / "spark").glob("part-*.parquet")
    out = tmp_path / "out.parquet"
    r = cli("parquet", "add", src, "--column", "x", "--column", "s", "--out", out)
    assert r.stdout.splitlines()[1:] == []
    assert out.read_bytes() == src.read_bytes()
    assert pq.read_table(out).schema.names == ["x", "s"] and pq.read_table(out).num_rows == 0
