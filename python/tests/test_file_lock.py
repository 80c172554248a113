"""Several processes updating one saved filter: Python writers (batchbloom.update) beside CLI
writers (`batchbloom insert`) take one lock and lose no key; a file with other hard links is
refused rather than split."""
import os
import subprocess
import sys

import numpy as np
import pytest

import batchbloom
from cli_program import CLI, requires_cli

KEYS_PER_ROUND = 5000
ROUNDS = 4

PY_WRITER = """
import sys, numpy as np, batchbloom
path, first, rounds, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for r in range(rounds):
    with batchbloom.update(path) as f:
        f.insert(np.arange(first + r * per, first + (r + 1) * per, dtype=np.uint64))
"""


def writer_keys(w):
    first = w * ROUNDS * KEYS_PER_ROUND
    return np.arange(first, first + ROUNDS * KEYS_PER_ROUND, dtype=np.uint64)


@requires_cli
def test_sixteen_writers_python_and_cli_lose_nothing(tmp_path):
    path = tmp_path / "shared.bbf"
    batchbloom.Filter(n=16 * ROUNDS * KEYS_PER_ROUND, fpr=0.01).save(path)
    procs = []
    for w in range(16):
        if w % 2 == 0:
            cmd = [sys.executable, "-c", PY_WRITER, str(path), str(w * ROUNDS * KEYS_PER_ROUND), str(ROUNDS),
                   str(KEYS_PER_ROUND)]
            procs.append(subprocess.Popen(cmd))
        else:
            files = []
            for r in range(ROUNDS):
                part = writer_keys(w)[r * KEYS_PER_ROUND:(r + 1) * KEYS_PER_ROUND]
                f = tmp_path / f"w{w}-r{r}.txt"
                f.write_text("\n".join(map(str, part.tolist())) + "\n")
                files.append(f)
            script = " && ".join(f"'{CLI}' insert --key-type int '{path}' '{f}' >/dev/null" for f in files)
            procs.append(subprocess.Popen(["sh", "-c", script]))
    assert [p.wait(timeout=300) for p in procs] == [0] * 16
    f = batchbloom.Filter.load(path)
    everything = np.concatenate([writer_keys(w) for w in range(16)])
    missing = int((~f.contains(everything)).sum())
    assert missing == 0, f"{missing} of {everything.size} keys lost"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".shared.bbf.tmp-")]


def test_update_keeps_the_file_when_the_block_raises(tmp_path):
    path = tmp_path / "f.bbf"
    batchbloom.Filter(n=1000, fpr=0.01).save(path)
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="boom"):
        with batchbloom.update(path) as f:
            f.insert([1, 2, 3])
            raise RuntimeError("boom")
    assert path.read_bytes() == before


def test_lock_is_a_context_manager_and_says_whether_it_holds(tmp_path):
    path = tmp_path / "f.bbf"
    with batchbloom.lock(path) as held:
        assert not held.held  # nothing there yet: nothing to order
    batchbloom.Filter(n=10, fpr=0.01).save(path)
    lk = batchbloom.lock(path)
    with lk:
        assert lk.held
        f = batchbloom.Filter.load(path)
        f.insert([7])
        f.save(path)
    assert not lk.held
    assert 7 in batchbloom.Filter.load(path)


def test_save_refuses_a_file_with_other_hard_links(tmp_path):
    path = tmp_path / "f.bbf"
    batchbloom.Filter(n=10, fpr=0.01).save(path)
    os.link(path, tmp_path / "other-name.bbf")
    before = path.read_bytes()
    f = batchbloom.Filter.load(path)
    f.insert([42])
    with pytest.raises(OSError, match="hard links"):
        f.save(path)
    assert path.read_bytes() == before == (tmp_path / "other-name.bbf").read_bytes()
    assert os.stat(path).st_ino == os.stat(tmp_path / "other-name.bbf").st_ino
