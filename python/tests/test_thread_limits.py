"""A thread count the system cannot start (an address-space limit, as containers set) runs the
call on the threads it can start: no "Thread creation failed" exit."""
import subprocess
import sys

SCRIPT = """
import resource, numpy as np, batchbloom
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
keys = np.arange(20_000_000, dtype=np.uint64)
f = batchbloom.Filter(n=20_000_000, fpr=0.01, threads=1024)
f.insert(keys)
assert f.count(keys) == keys.size
j = batchbloom.JoinFilter(keys[:100_000], fpr=0.01, threads=1024)
assert j.count(keys[:200_000]) >= 100_000
print("ok")
"""


def test_thousand_threads_under_an_address_space_limit():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
