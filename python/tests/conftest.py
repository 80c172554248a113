import numpy as np
import pytest

import batchbloom


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture
def keys(rng):
    """20,000 distinct random uint64 keys."""
    return np.unique(rng.integers(0, 2**64, size=20_000, dtype=np.uint64, endpoint=False))


@pytest.fixture(params=batchbloom.available_backends())
def backend(request):
    """Every engine this machine runs."""
    return request.param
