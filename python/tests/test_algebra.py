"""Set algebra: |, &, |=, &=, fold, compatible, estimated_jaccard."""
import numpy as np
import pytest

import batchbloom


def make(keys, **kw):
    f = batchbloom.Filter(n=40_000, fpr=0.01, **kw)
    f.insert(keys)
    return f


def test_union_is_the_filter_of_both_sets(keys):
    a, b = keys[:12_000], keys[8_000:]
    fa, fb = make(a), make(b)
    assert (fa | fb) == make(keys)
    merged = fa.copy()
    merged |= fb
    assert merged == make(keys) and fa == make(a)
    assert (fa | fb).to_bytes() == make(keys).to_bytes()


def test_intersection_keeps_common_keys(keys):
    fa, fb = make(keys[:12_000]), make(keys[8_000:])
    common = fa & fb
    assert common.contains(keys[8_000:12_000]).all()
    assert common.fill_ratio() <= min(fa.fill_ratio(), fb.fill_ratio())
    fa &= fb
    assert fa == common


def test_in_place_operators_return_the_same_object(keys):
    f = make(keys[:10])
    g = f
    g |= make(keys[10:20])
    assert g is f and f.contains(keys[:20]).all()
    g &= f
    assert g is f
    f |= f
    assert g is f and f.contains(keys[:20]).all()


def test_fold_keeps_every_key(keys):
    f = batchbloom.Filter.from_params(batchbloom.Params("word512", 1000, 8))
    f.insert(keys[:5000])
    half = f.fold()
    assert half.blocks == 500 and half.contains(keys[:5000]).all()
    direct = batchbloom.Filter.from_params(batchbloom.Params("word512", 500, 8))
    direct.insert(keys[:5000])
    assert half == direct
    with pytest.raises(batchbloom.Error, match="even"):
        batchbloom.Filter.from_params(batchbloom.Params("word512", 7, 8)).fold()


def test_jaccard_estimate(keys):
    fa, fb = make(keys[:12_000]), make(keys[6_000:18_000])
    assert abs(batchbloom.estimated_jaccard(fa, fb) - 6_000 / 18_000) < 0.05
    empty = batchbloom.Filter(n=40_000, fpr=0.01)
    assert batchbloom.estimated_jaccard(empty, batchbloom.Filter(n=40_000, fpr=0.01)) == 1.0  # J(∅, ∅) = 1
    assert batchbloom.estimated_jaccard(fa, empty) < 0.01


@pytest.mark.parametrize(
    "other",
    [
        dict(n=40_000, fpr=0.001),
        dict(n=40_000, fpr=0.01, shape="split256"),
        dict(n=40_000, fpr=0.01, seed=1),
        dict(n=40_000, fpr=0.01, hash="murmur3"),
    ],
)
def test_incompatible_filters(other):
    f, g = batchbloom.Filter(n=40_000, fpr=0.01), batchbloom.Filter(**other)
    assert not f.compatible(g)
    for op in (lambda: f | g, lambda: f & g, lambda: batchbloom.estimated_jaccard(f, g)):
        with pytest.raises(batchbloom.Error, match="incompatible"):
            op()
    with pytest.raises(ValueError, match="incompatible"):
        f |= g
    assert f.fill_ratio() == 0


def test_operators_with_other_types():
    f = batchbloom.Filter(n=10, fpr=0.1)
    assert (f == 3) is False and (f != 3) is True
    with pytest.raises(TypeError):
        f | 3
    with pytest.raises(TypeError):
        f |= np.zeros(3)
