"""batchbloom.arrow: filters built from and applied to Arrow tables, record batches and streams
by column; key columns are read in place; nulls never match; every matching row is kept."""
import math

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import batchbloom
import batchbloom.arrow as bba


@pytest.fixture
def dim(rng):
    ids = rng.choice(2**40, size=5000, replace=False).astype(np.int64)
    return pa.table({"id": ids, "name": pa.array([f"n{i}" for i in ids])})


@pytest.fixture
def facts(dim, rng):
    # 40,000 rows: a quarter reference dim ids, the rest do not; some null keys.
    hits = rng.choice(dim.column("id").to_numpy(), size=10_000)
    misses = rng.integers(2**41, 2**42, size=30_000)
    ids = np.concatenate([hits, misses])
    rng.shuffle(ids)
    valid = rng.random(ids.size) > 0.01
    return pa.table({"id": pa.array(ids, mask=~valid), "qty": np.arange(ids.size)})


def assert_sized_for(f, n, fpr=0.01):
    """Sized from build()'s estimate of n distinct keys, which errs high by a few percent."""
    assert batchbloom.Params.for_fpr(n, fpr).bits <= f.bits <= batchbloom.Params.for_fpr(math.ceil(n * 1.05) + 1, fpr).bits


def expected_rows(facts, bloom):
    """What filter() must return: the non-null rows the filter answers yes for, in order."""
    ids = facts.column("id")
    keep = [v is not None and v in bloom for v in ids.to_pylist()]
    return facts.filter(pa.array(keep))


def test_table_build_and_filter(dim, facts):
    f = bba.build(dim, "id", fpr=0.01)
    assert isinstance(f, batchbloom.Filter)
    assert_sized_for(f, 5000)
    assert bba.build(dim, "id", fpr=0.01, n="exact").params == batchbloom.Params.for_fpr(5000, 0.01)
    out = bba.filter(facts, "id", f)
    assert out.equals(expected_rows(facts, f))
    matches = pc.is_in(facts.column("id"), dim.column("id"))
    assert pc.all(pc.is_in(facts.filter(matches).column("qty"), out.column("qty"))).as_py()  # every match kept
    assert out.num_rows < facts.num_rows * 0.3  # and few of the others (1% FPR)


def test_batches_streams_and_into(dim, facts):
    f = bba.build(dim, "id", n=5000)
    want = expected_rows(facts, f)
    batches = facts.to_batches(max_chunksize=4096)
    assert len(batches) > 5
    assert pa.Table.from_batches([bba.filter(b, "id", f) for b in batches]).equals(want)
    reader = bba.filter(facts.to_reader(max_chunksize=4096), "id", f)
    assert isinstance(reader, pa.RecordBatchReader) and reader.read_all().equals(want)

    class Stream:  # any producer of the Arrow C stream protocol
        def __arrow_c_stream__(self, requested_schema=None):
            return dim.__arrow_c_stream__(requested_schema)

    assert bba.build(Stream(), "id", n=5000) == f
    assert bba.build(dim.to_reader(max_chunksize=1000), 0, n=5000) == f
    for n in (None, "exact"):  # a stream is read once: nothing to count ahead
        with pytest.raises(TypeError, match="n="):
            bba.build(dim.to_reader(), "id", n=n)
    grown = bba.build(dim.to_reader(max_chunksize=700), "id", into=batchbloom.ScalableFilter(fpr=0.01, initial_capacity=1000))
    assert grown.contains(dim.column("id")).all() and grown.inserted == 5000
    spark = bba.build(dim, "name", into=batchbloom.ClassicFilter.spark(5000, 0.03))
    assert spark.contains(dim.column("name")).all() and bba.filter(dim, "name", spark).num_rows == 5000
    with pytest.raises(TypeError, match="RecordBatchReader"):
        bba.build([1, 2], "id")


@pytest.mark.parametrize(
    "arrow_type",
    [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64(),
     pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.string_view(), pa.binary_view()],
)
def test_key_types_with_nulls(arrow_type):
    if pa.types.is_integer(arrow_type):
        values = [0, 1, 5, None, 100, 3, None]
        wide = [0, 1, 5, 100, 3]
    else:
        values = ["a", "bb", "é", None, "", "zz", None]
        wide = ["a", "bb", "é", "", "zz"]
        if arrow_type in (pa.binary(), pa.large_binary(), pa.binary_view()):
            values = [None if v is None else v.encode() for v in values]
    column = pa.array(values, arrow_type)
    f = bba.build(pa.table({"k": column}).slice(0, 4), "k")  # keys 0..3 with one null
    assert f.count(wide) >= 3
    assert_sized_for(f, 3)
    m = bba.mask(column, f)
    assert m.type == pa.bool_() and m.null_count == 0
    assert m.to_pylist()[:4] == [True, True, True, False] and m.to_pylist()[-1] is False
    assert bba.mask(column.slice(1), f).to_pylist() == m.to_pylist()[1:]  # offsets honoured
    chunked = pa.chunked_array([column.slice(0, 3), column.slice(3)])
    assert bba.mask(chunked, f).to_pylist() == m.to_pylist()


def test_dictionary_columns_probe_each_value_once(rng):
    words = pa.array(["red", "green", None, "blue", "red"] * 200).dictionary_encode()
    f = bba.build(pa.table({"c": words}), "c")
    assert_sized_for(f, 3)
    assert bba.build(pa.table({"c": words}), "c", n="exact").params == batchbloom.Params.for_fpr(3, 0.01)
    assert bba.mask(words, f).to_pylist() == [w is not None for w in words.to_pylist()]
    other = batchbloom.Filter(10, 0.01)
    other.insert(["green"])
    chunked = pa.chunked_array([words.slice(0, 7), words.slice(7)])
    assert bba.filter(pa.table({"c": chunked}), "c", other).num_rows == 200


def test_no_copy_of_the_key_column():
    keys = pa.array(np.arange(1_000_000, dtype=np.int64))
    table = pa.table({"id": keys})
    column = table.column("id")
    assert bba.insertable(column) is column
    f = batchbloom.Filter(1_000_000, 0.01)
    before = pa.total_allocated_bytes()
    bba.build(table, "id", into=f)
    assert pa.total_allocated_bytes() == before
    # The mask is the only new Arrow memory (a bit per row); the keys are read in place.
    bba.mask(keys, f)
    assert pa.total_allocated_bytes() - before <= keys.nbytes // 32


def test_empty_inputs():
    empty = pa.table({"id": pa.array([], pa.int64())})
    f = bba.build(empty, "id")
    assert f.params == batchbloom.Params.for_fpr(1, 0.01)
    assert bba.filter(empty, "id", f).num_rows == 0
    assert bba.filter(pa.table({"id": [1, 2]}), "id", f).num_rows == 0
    assert bba.mask(pa.array([None, None], pa.int64()), f).to_pylist() == [False, False]
