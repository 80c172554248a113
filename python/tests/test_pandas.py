"""pandas in, pandas out: batchbloom.arrow takes a pandas DataFrame and returns one; nullable
columns (Int64 with NA, object columns with None or NaN) follow nulls= like Arrow nulls."""
import numpy as np
import pandas as pd
import pytest

import batchbloom
import batchbloom.arrow as bba


@pytest.fixture
def dim():
    return pd.DataFrame({"id": pd.array([3, 5, None, 7], dtype="Int64"), "name": ["a", "b", None, np.nan]})


def test_filter_returns_a_dataframe_with_its_index(dim):
    f = bba.build(dim, "id")  # no n=: sized from the keys
    assert f.contains([3, 5, 7]).all()
    facts = pd.DataFrame({"id": [1, 3, 5, 9], "qty": [10, 20, 30, 40]}, index=[100, 101, 102, 103])
    out = bba.filter(facts, "id", f)
    assert isinstance(out, pd.DataFrame)
    assert out.index.tolist() == [101, 102] and out["qty"].tolist() == [20, 30]
    assert list(out.dtypes) == list(facts.dtypes)
    assert bba.filter(facts, 0, f).equals(out)  # a column by position, as for Arrow tables


def test_nullable_and_object_columns_skip_nulls(dim):
    names = bba.build(dim, "name")  # None and NaN are nulls
    assert names.contains(["a", "b"]).all()
    out = bba.filter(dim, "name", names)
    assert out["name"].tolist() == ["a", "b"]
    facts = pd.DataFrame({"id": pd.array([None, 3, 4, None], dtype="Int64")})
    assert bba.filter(facts, "id", bba.build(dim, "id")).index.tolist() == [1]


def test_filter_insert_of_a_nullable_series_follows_nulls():
    keys = pd.Series([1, None, 3], dtype="Int64")
    f = batchbloom.Filter(100, 0.01)
    with pytest.raises(ValueError, match='nulls="skip"'):  # a null, not a float64 column
        f.insert(keys)
    f.insert(keys, nulls="skip")
    assert f.contains([1, 3]).all() and f.contains(keys, nulls="skip").tolist() == [True, False, True]
    f.insert(pd.Series([2**40, 5], dtype="UInt64"))
    assert 2**40 in f
    with pytest.raises(TypeError, match="must be integers"):  # floats are no keys
        f.insert(pd.Series([1.5, None], dtype="Float64"), nulls="skip")
