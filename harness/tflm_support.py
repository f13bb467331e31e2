"""Running a model in TFLite Micro (the tflite-micro package) for the tests and benchmarks.

Each trial runs in its own process: TFLM's interpreter crashes on some arena sizes that
are too small (instead of failing to allocate), and a crash must read as "does not fit".
"""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Optional

from .models import RUNNABLE  # noqa: F401  (every shared model TFLite Micro runs: those arenaplan runs)

try:
    import tflite_micro  # noqa: F401
    HAVE_TFLM = True
except ImportError:  # pragma: no cover
    HAVE_TFLM = False

#: The shared models TFLM's reference kernels run (the audio preprocessor's Signal ops
#: are not registered in the package).

_TRIAL = r"""
import json, os, re, sys, tempfile
import numpy as np
from tflite_micro.python.tflite_micro import runtime
path, size = sys.argv[1], int(sys.argv[2])
out = {"ok": False}
try:
    it = runtime.Interpreter.from_file(path, arena_size=size)
except Exception:
    print(json.dumps(out)); sys.exit(0)
rng = np.random.default_rng(7)
d = it.get_input_details(0)
info = np.iinfo(d["dtype"]) if np.issubdtype(d["dtype"], np.integer) else None
x = rng.integers(info.min, info.max + 1, size=d["shape"]).astype(d["dtype"])
it.set_input(x, 0)
it.invoke()
out["outputs"] = it.get_output(0).astype(np.int64).ravel().tolist()
sys.stderr.flush()
fd = os.dup(2)
with tempfile.TemporaryFile() as f:
    os.dup2(f.fileno(), 2)
    it.print_allocations()
    os.dup2(fd, 2)
    f.seek(0)
    text = f.read().decode()
for k in ("head", "tail", "total"):
    m = re.search(r"allocation %s (\d+)" % k, text)
    out[k] = int(m.group(1)) if m else None
out["ok"] = True
print(json.dumps(out))
"""


def trial(path: str, arena_size: int) -> dict:
    """Allocate and run ``path`` with ``arena_size``: {"ok", "head", "tail", "outputs"}."""
    p = subprocess.run([sys.executable, "-c", _TRIAL, str(path), str(int(arena_size))],
                       capture_output=True, text=True, timeout=120)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"ok": False, "crashed": p.returncode != 0}
    return json.loads(lines[-1])


def smallest_arena(path: str, hi: int = 1 << 21, step: int = 16) -> Optional[int]:
    """The smallest multiple of ``step`` with which ``path`` allocates and runs (bisection)."""
    if not trial(path, hi)["ok"]:
        return None
    lo = 0
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        if trial(path, mid)["ok"]:
            hi = mid
        else:
            lo = mid
    return hi
