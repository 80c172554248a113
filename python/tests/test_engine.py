"""Filter.engine names the engine the bulk calls run on; Filter.backend stays the setting."""
import pickle

import numpy as np

import batchbloom


def test_engine_is_the_resolved_backend(monkeypatch, backend):
    f = batchbloom.Filter(1000, 0.01)
    assert f.backend == "auto" and f.engine == batchbloom.resolve_backend("auto") == batchbloom.available_backends()[0]
    monkeypatch.setenv("BATCHBLOOM_BACKEND", backend)
    batchbloom.reload_environment()
    assert f.engine == backend and f.backend == "auto" and "backend='auto'" in repr(f)
    monkeypatch.delenv("BATCHBLOOM_BACKEND")
    batchbloom.reload_environment()
    f.backend = backend
    assert f.engine == backend == f.backend


def test_engine_is_not_part_of_the_value():
    f = batchbloom.Filter(1000, 0.01)
    f.insert(np.arange(100, dtype=np.uint64))
    g = batchbloom.Filter(1000, 0.01, backend="scalar")
    g.insert(np.arange(100, dtype=np.uint64))
    assert f == g and f.engine != g.engine or batchbloom.available_backends() == ["scalar"]
    back = pickle.loads(pickle.dumps(g))
    assert back == g and back.backend == "auto" and back.engine == f.engine
