"""ScalableFilter(fpr=...): the bound holds for any order of the keys, streamed or in batches."""
import numpy as np
import pytest

import batchbloom

M1, M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def mix64(x, seed):
    # include/batchbloom/hash.hpp: the integer hash (xxh3 kind) and each stage's remix.
    with np.errstate(over="ignore"):
        z = (x ^ np.uint64(seed)) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * M1
        z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


def stage0_hash(keys):
    # ScalableFilter::stage_hash(0, h): mix64(h, stage_seed(0)); h = mix64(key, 0) (seed 0).
    return mix64(mix64(keys, 0), 0xA0761D6478BD642F)


@pytest.mark.parametrize("capacity", [1000, 10_000])
@pytest.mark.parametrize("batch", [None, 997, 1])
def test_keys_ordered_by_the_first_stages_hash_stay_within_fpr(rng, capacity, batch):
    # Ordered by the first stage's hash (computable: the seeds are the defaults), the first
    # stage's keys crowd into its first blocks; closing on the key count alone, that measured
    # about 4-5% against fpr=0.01. The first stage now closes on its FPR measured from its bits.
    keys = rng.integers(0, 2**64, size=(20 if batch == 1 else 40) * capacity, dtype=np.uint64)
    keys = keys[np.argsort(stage0_hash(keys))]
    s = batchbloom.ScalableFilter(capacity, fpr=0.01)
    if batch == 1:
        for k in keys[: 2 * capacity].tolist():
            s.add(k)
        s.insert(keys[2 * capacity:])
    else:
        for part in np.array_split(keys, 1 if batch is None else max(1, keys.size // batch)):
            s.insert(part)
    assert s.count(keys) == keys.size and s.inserted == keys.size
    assert s.stage_sizes[0] < capacity // 2  # closed on its measured FPR
    absent = rng.integers(0, 2**64, size=200_000, dtype=np.uint64)
    measured = s.count(absent) / absent.size
    assert measured <= 0.01 - 4 * (0.01 / absent.size) ** 0.5
