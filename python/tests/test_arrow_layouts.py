"""Every Arrow layout a producer hands over (pyarrow, polars, DuckDB, pandas), through the C Data
and C Stream interfaces: the same answers as the NumPy / list path; nulls raise, or with
nulls="skip" are never inserted and never match."""
import numpy as np
import pyarrow as pa
import pytest

import batchbloom
import batchbloom.arrow as bba

WORDS = ["a", "bb", "é", None, "", "zz", "a string longer than twelve bytes", "another long one, not inserted"]
INSERTED = {"a", "bb", "é", "", "a string longer than twelve bytes"}
INTS = [0, 1, None, 5, 100, 7, 2**31 - 1, 42]
INSERTED_INTS = {0, 1, 5, 100, 2**31 - 1}


def text_filter():
    f = batchbloom.Filter(1000, 0.001)
    f.insert(sorted(INSERTED))
    return f


def int_filter():
    f = batchbloom.Filter(1000, 0.001)
    f.insert(np.array(sorted(INSERTED_INTS), dtype=np.int64))
    return f


def expected(values, f):
    """The list path's answers, nulls False."""
    return [v is not None and v in f for v in values]


STRING_TYPES = [pa.string(), pa.large_string(), pa.string_view(), pa.binary(), pa.large_binary(), pa.binary_view()]


def words_as(t):
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return [None if w is None else w.encode() for w in WORDS]
    return WORDS


@pytest.mark.parametrize("arrow_type", STRING_TYPES, ids=str)
def test_string_layouts(arrow_type):
    f = text_filter()
    values = words_as(arrow_type)
    want = expected(WORDS, f)
    column = pa.array(values, arrow_type)
    for keys in (column, column.slice(2), column.dictionary_encode(), pa.chunked_array([column.slice(0, 3), column.slice(3)])):
        n = len(keys)
        assert f.contains(keys, nulls="skip").tolist() == want[len(WORDS) - n:]
        assert f.count(keys, nulls="skip") == sum(want[len(WORDS) - n:])
        with pytest.raises(ValueError, match="nulls"):
            f.contains(keys)
    g, h = batchbloom.Filter(1000, 0.001), batchbloom.Filter(1000, 0.001)
    g.insert(column, nulls="skip")
    h.insert([w for w in values if w is not None])
    assert g == h  # the nulls were left out, every other key inserted as the list path does


INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]


@pytest.mark.parametrize("arrow_type", INT_TYPES, ids=str)
def test_integer_widths(arrow_type):
    f = int_filter()
    bits = arrow_type.bit_width
    values = [v if v is None or v < 2 ** (bits - 1) else None for v in INTS]
    column = pa.array(values, arrow_type)
    want = expected(values, f)
    assert f.contains(column, nulls="skip").tolist() == want
    assert f.contains(column.dictionary_encode(), nulls="skip").tolist() == want
    dense = np.array([v for v in values if v is not None], dtype=np.int64)
    assert f.contains(pa.array(dense, arrow_type)).tolist() == f.contains(dense).tolist()
    if pa.types.is_signed_integer(arrow_type):  # -1 is the 64-bit key -1, as in NumPy
        assert f.contains(pa.array([-1], arrow_type)).tolist() == f.contains(np.array([-1], dtype=np.int64)).tolist()


@pytest.mark.parametrize("arrow_type", [*STRING_TYPES, pa.int8(), pa.uint16()], ids=str)
def test_read_in_place(arrow_type):
    """No layout is copied into Arrow memory (views and dictionaries included)."""
    values = [None if i % 7 == 0 else (i % 100 if pa.types.is_integer(arrow_type) else f"key number {i}") for i in range(20_000)]
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type) or pa.types.is_binary_view(arrow_type):
        values = [None if v is None else v.encode() for v in values]
    f = text_filter()
    for column in (pa.array(values, arrow_type), pa.array(values, arrow_type).dictionary_encode()):
        before = pa.total_allocated_bytes()
        f.insert(column, nulls="skip")
        hits = f.contains(column, nulls="skip")
        assert pa.total_allocated_bytes() == before
        assert hits.sum() == len(values) - values.count(None)


def test_dictionary_with_null_values_and_skipped_rows():
    f = text_filter()
    keys = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 2, 1], pa.int8()), pa.array(["a", None, "zz"]))
    assert f.contains(keys, nulls="skip").tolist() == [True, False, False, False, False]
    with pytest.raises(ValueError, match="3 nulls"):
        f.contains(keys)


def test_join_filter_and_concurrent_view_skip_nulls():
    column = pa.array(WORDS, pa.string_view())
    j = batchbloom.JoinFilter(sorted(INSERTED), fpr=0.001)
    want = expected(WORDS, j)
    assert j.contains(column, nulls="skip").tolist() == want
    assert j.select(column, nulls="skip").tolist() == [i for i, w in enumerate(want) if w]
    assert j.count(column, nulls="skip") == sum(want)
    view = batchbloom.ConcurrentFilter(text_filter())
    assert view.contains(column, nulls="skip").tolist() == want


def test_bad_nulls_argument():
    with pytest.raises(ValueError, match="'error' or 'skip'"):
        text_filter().contains(pa.array(["a"]), nulls="drop")


pl = pytest.importorskip("polars")


def test_polars_series_frames_and_lazy_frames():
    f = text_filter()
    want = expected(WORDS, f)
    s = pl.Series("k", WORDS)
    assert f.contains(s, nulls="skip").tolist() == want
    assert f.contains(s.cast(pl.Categorical), nulls="skip").tolist() == want
    assert f.contains(pl.Series([None if w is None else w.encode() for w in WORDS]), nulls="skip").tolist() == want
    assert f.contains(pl.DataFrame({"k": WORDS}), nulls="skip").tolist() == want  # one column
    for t in (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64):
        small = [v if v is None or v < 128 else None for v in INTS]
        assert int_filter().contains(pl.Series(small, dtype=t), nulls="skip").tolist() == expected(small, int_filter())
    df = pl.DataFrame({"id": INTS, "word": WORDS, "x": [1.5] * len(WORDS)})
    g = bba.build(df, "word", fpr=0.001)
    assert g.params == batchbloom.Params.for_fpr(7, 0.001) and g.contains(s, nulls="skip").sum() == 7
    out = bba.filter(df, "word", f)
    assert isinstance(out, pl.DataFrame) and out["word"].to_list() == [w for w, k in zip(WORDS, want) if k]
    lazy = bba.filter(df.lazy(), "id", int_filter())
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect()["id"].to_list() == [v for v in INTS if v in INSERTED_INTS]
    assert bba.build(df.lazy(), 0, fpr=0.001).contains(pl.Series(INTS), nulls="skip").sum() == 7
    # A pyarrow table from polars holds view columns; filtering on another column keeps them.
    table = pa.table(df)
    assert pa.types.is_string_view(table.schema.field("word").type)
    kept = bba.filter(table, "id", int_filter())
    assert kept.schema == table.schema and kept.column("word").to_pylist() == [
        w for v, w in zip(INTS, WORDS) if v in INSERTED_INTS
    ]


def test_duckdb_relations():
    duckdb = pytest.importorskip("duckdb")
    f = text_filter()
    con = duckdb.connect()
    rel = con.sql("select * from (values ('a', 1), ('zz', 2), (NULL, 3), ('a string longer than twelve bytes', 4)) t(k, n)")
    want = [True, False, False, True]
    assert f.contains(rel.select("k"), nulls="skip").tolist() == want
    assert bba.filter(rel, "k", f).column("n").to_pylist() == [1, 4]
    assert bba.build(rel, "k", fpr=0.001).count(["a", "zz"]) == 2


def test_pandas_arrow_backed_columns():
    pd = pytest.importorskip("pandas")
    f = text_filter()
    want = expected(WORDS, f)
    for dtype in ("string[pyarrow]", pd.ArrowDtype(pa.string()), pd.ArrowDtype(pa.large_binary())):
        values = words_as(pa.binary()) if "binary" in str(dtype) else WORDS
        s = pd.Series(values, dtype=dtype)
        assert f.contains(s, nulls="skip").tolist() == want
        assert f.contains(s.array, nulls="skip").tolist() == want
    ints = pd.Series(INTS, dtype=pd.ArrowDtype(pa.int32()))
    assert int_filter().contains(ints, nulls="skip").tolist() == expected(INTS, int_filter())
