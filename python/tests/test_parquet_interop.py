"""Parquet split-block Bloom filters: batchbloom against real writers and a real reader.

Files are written at test time by PyArrow (bloom_filter_options) and DuckDB (which writes Bloom
filters for dictionary-encoded columns), with 10^5 distinct INT64, INT32 and string values.
The `batchbloom parquet` program (BATCHBLOOM_CLI) must

* read each column chunk's filter and answer every present value "may contain";
* rebuild (parquet add --replace, reading the column's values from the file's own pages, sized
  for the writer's NDV and FPP) a filter identical to the writer's, which proves that it hashes
  and places every one of those values exactly as the writer did;
* agree with DuckDB's parquet_bloom_probe (DuckDB's reader; PyArrow has no Python API to probe
  a filter) on every absent value it calls a false positive and on samples of the others
  (one DuckDB probe costs about 0.5 ms, so not on all 2 x 10^5).
test_parquet_add.py checks that DuckDB reads and uses the filters `parquet add` writes.
"""
import functools
import random

import pytest

from parquet_files import chunk_bitsets, duckdb, fold, pa, pq, requires_cli, run_cli

pytestmark = requires_cli

N = 100_000
FPP = 0.01
COLUMNS = ["i64", "i32", "s"]


@functools.cache  # (callers never modify the lists)
def present(col):
    if col == "i64":
        return [7 * i + 3 - 2**40 for i in range(N)]
    if col == "i32":
        return [5 * i - 2**30 for i in range(N)]
    return [f"key-{11 * i}" for i in range(N)]


@functools.cache
def absent(col):
    if col == "i64":
        return [7 * i + 4 - 2**40 for i in range(N)]
    if col == "i32":
        return [5 * i + 2 - 2**30 for i in range(N)]
    return [f"nokey-{i}" for i in range(N)]


def write_keys(path, values):
    path.write_text("".join(f"{v}\n" for v in values))
    return path


def cli(*args):
    return run_cli(*args).stdout


def cli_maybe(path, col, keys_file):
    """{row group: set of keys (as text) that batchbloom says may be in it}."""
    out = {}
    for line in cli("parquet", path, "--column", col, "--query", keys_file).splitlines():
        rg, key = line.split("\t", 1)
        out.setdefault(int(rg), set()).add(key)
    return out


def duckdb_maybe(con, path, col, value):
    """{row group: may contain} from DuckDB's own Bloom filter reader."""
    rows = con.execute("SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)",
                       [str(path), col, value]).fetchall()
    return {rg: not excludes for rg, excludes in rows}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("parquet")
    table = pa.table({
        "i64": pa.array(present("i64"), pa.int64()),
        "i32": pa.array(present("i32"), pa.int32()),
        "s": pa.array(present("s"), pa.string()),
    })
    paths = {"pyarrow": d / "pyarrow.parquet", "duckdb": d / "duckdb.parquet"}
    pq.write_table(table, paths["pyarrow"], row_group_size=N,
                   bloom_filter_options={c: {"ndv": N, "fpp": FPP} for c in COLUMNS})
    con = duckdb.connect()
    con.register("t", table)
    con.execute(f"COPY t TO '{paths['duckdb']}' (FORMAT parquet, ROW_GROUP_SIZE {N}, "
                f"DICTIONARY_SIZE_LIMIT 200000, BLOOM_FILTER_FALSE_POSITIVE_RATIO {FPP})")
    keys = {}
    for col in COLUMNS:
        keys[col] = (write_keys(d / f"{col}.present", present(col)), write_keys(d / f"{col}.absent", absent(col)))
    return d, paths, keys


@pytest.mark.parametrize("writer", ["pyarrow", "duckdb"])
@pytest.mark.parametrize("col", COLUMNS)
def test_reads_the_writers_filter_exactly(files, writer, col):
    d, paths, keys = files
    path = paths[writer]
    listing = cli("parquet", path, "--row-group", 0)
    assert any(line.split("\t")[1] == col and line.split("\t")[5] != "-" for line in listing.splitlines()[1:]), \
        f"{writer} wrote no Bloom filter for {col}:\n{listing}"

    present_file, absent_file = keys[col]
    assert cli("parquet", path, "--column", col, "--query", present_file, "--count") == f"0\t{N}\n"

    # Rebuilt from the column's own values, the filter is the writer's.
    rebuilt = d / f"{writer}-{col}-rebuilt.parquet"
    cli("parquet", "add", path, "--column", col, "--replace", "--ndv", N, "--fpr", FPP, "--out", rebuilt)
    theirs, ours = chunk_bitsets(path)[(0, col)], chunk_bitsets(rebuilt)[(0, col)]
    assert fold(ours, len(theirs)) == theirs

    maybe_absent = cli_maybe(path, col, absent_file).get(0, set())
    assert 0 < len(maybe_absent) < 3 * FPP * N  # false positives exist, at about the writer's FPP
    con = duckdb.connect()
    rnd = random.Random(f"{writer}-{col}")
    absent_text = {str(v): v for v in absent(col)}
    fps = sorted(maybe_absent)
    negatives = [v for v in absent(col) if str(v) not in maybe_absent]
    sample = [(absent_text[k], True) for k in rnd.sample(fps, min(len(fps), 200))]
    sample += [(v, False) for v in rnd.sample(negatives, 200)]
    sample += [(v, True) for v in rnd.sample(present(col), 100)]
    disagreements = [(v, ours) for v, ours in sample if duckdb_maybe(con, path, col, v)[0] != ours]
    assert disagreements == []


def test_fixed_len_byte_array(tmp_path):
    """FIXED_LEN_BYTE_ARRAY values are hashed as their bytes, like BYTE_ARRAY."""
    n = 10_000
    values = [f"{11 * i:012d}" for i in range(n)]
    path = tmp_path / "flba.parquet"
    pq.write_table(pa.table({"fb": pa.array([v.encode() for v in values], pa.binary(12))}), path,
                   bloom_filter_options={"fb": {"ndv": n, "fpp": FPP}})
    assert "\tfb\tFIXED_LEN_BYTE_ARRAY\t" in cli("parquet", path)
    same = tmp_path / "same.parquet"
    cli("parquet", "add", path, "--column", "fb", "--replace", "--ndv", n, "--fpr", FPP, "--out", same)
    assert chunk_bitsets(same) == chunk_bitsets(path)
    probes = [f"{11 * i + 1:012d}" for i in range(n)]
    maybe = cli_maybe(path, "fb", write_keys(tmp_path / "probes.txt", probes)).get(0, set())
    con = duckdb.connect()
    for v in random.Random(1).sample(probes, 200) + sorted(maybe)[:100]:
        assert duckdb_maybe(con, path, "fb", v.encode())[0] == (v in maybe), v
