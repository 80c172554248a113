"""DeletableFilter: erasing keys without counters and without false negatives for the others."""
import numpy as np
import pytest

import batchbloom
from batchbloom import DeletableFilter


def test_erase_keeps_every_other_key(keys):
    f = DeletableFilter(keys.size, 0.01)
    f.insert(keys)
    blocked = batchbloom.Filter(keys.size, 0.01)
    blocked.insert(keys)
    assert f.to_filter() == blocked  # the same bits as a blocked filter, before any erase
    gone, kept = keys[:5000], keys[5000:]
    outcomes = f.erase_outcomes(gone)
    assert outcomes.dtype == np.uint8 and set(np.unique(outcomes)) <= {1, 2}
    erased = int((outcomes == 1).sum())
    assert f.contains(kept).all()  # no false negatives for the keys still present
    assert not f.contains(gone[outcomes == 1]).all()
    # Deletability as the model predicts (the first 5,000 erased of 20,000 inserted).
    predicted = DeletableFilter.predicted_deletability(f.params, f.region_bits, keys.size)
    assert abs(erased / gone.size - predicted) < 0.05
    assert f.erase(gone[outcomes == 1]) <= erased  # erased keys now mostly test negative
    assert f.contains(kept).all()


def test_single_keys_and_outcome_codes():
    f = DeletableFilter(100, 0.01, region_bits=4)
    f.insert(["a", "b"])
    assert f.discard("a") and "a" not in f and "b" in f
    assert not f.discard("a")  # absent now
    assert f.erase_outcomes(["never inserted"]).tolist() == [0]
    assert f.erase([]) == 0 and f.erase_outcomes(np.zeros(0, np.uint64)).size == 0
    assert f.region_bits == 4 and f.regions == f.params.bits // 4
    assert f.nbytes == f.params.nbytes + (f.regions + 63) // 64 * 8
    f.insert(["c", "c"])  # a key inserted twice marks its regions: not erasable
    assert f.erase_outcomes(["c"]).tolist() == [2] and "c" in f
    assert f.collided_regions() > 0


def test_clear_empties_bits_and_collisions():
    f = DeletableFilter(100, 0.01, region_bits=4)
    f.insert(["c", "c"])
    assert f.collided_regions() > 0
    f.clear()
    assert f == DeletableFilter(100, 0.01, region_bits=4)
    assert "c" not in f and f.collided_regions() == 0
    f.insert(["c"])
    assert f.discard("c")  # alone in a cleared filter: erasable again


def test_parameters():
    p = batchbloom.Params.for_fpr(1000, 0.01, "split256")
    f = DeletableFilter.from_params(p, region_bits=16, hash="murmur3", seed=3)
    assert f.params == p and f.hash_kind == "murmur3" and f.seed == 3
    with pytest.raises(batchbloom.Error):
        DeletableFilter(1000, 0.01, region_bits=3)
    with pytest.raises(TypeError):
        DeletableFilter(1000)
    with pytest.raises(TypeError, match="region_bits must be an int"):
        DeletableFilter(1000, 0.01, region_bits="8")
    with pytest.raises(TypeError, match="params must be a batchbloom.Params"):
        DeletableFilter.from_params(None)
    assert "region_bits=8" in repr(DeletableFilter(10, 0.1))
