"""Coverage-guided fuzzing of model import, plan files, the planner and running (atheris).

    python tests/fuzz/fuzz.py TARGET [libFuzzer flags] [CORPUS_DIR]

TARGET is one of import, plan_file, planner, run (see targets.py). Without a corpus
folder, a fresh one is seeded (the shared models for import). CI runs every target for a
fixed number of inputs (``python tests/fuzz/fuzz.py all -runs=2000``); a longer run of one
target is e.g. ``python tests/fuzz/fuzz.py import -max_total_time=600``. An input that
finds something is written as ``crash-*`` in the working folder: keep it under
``tests/fuzz/regressions/<target>/`` once fixed, so the suite replays it.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    import targets


def fuzz(name: str, flags: list) -> None:
    check, seeds = targets.TARGETS[name]
    args = [sys.argv[0]] + flags
    if not any(not a.startswith("-") for a in flags):
        corpus = Path(tempfile.mkdtemp(prefix=f"arenaplan-fuzz-{name}-"))
        for i, seed in enumerate(seeds()):
            (corpus / f"seed{i:03d}").write_bytes(seed)
        regressions = targets.REGRESSIONS / name
        for i, path in enumerate(sorted(regressions.glob("*")) if regressions.is_dir() else []):
            (corpus / f"regression{i:03d}").write_bytes(path.read_bytes())
        args.append(str(corpus))
    atheris.Setup(args, check)
    atheris.Fuzz()


def main(argv: list) -> int:
    if not argv or argv[0] not in list(targets.TARGETS) + ["all"]:
        print(f"usage: fuzz.py {{{'|'.join(targets.TARGETS)}|all}} [libFuzzer flags]", file=sys.stderr)
        return 2
    if argv[0] != "all":
        fuzz(argv[0], argv[1:])
        return 0
    # each target in its own process: libFuzzer runs one target per process
    failed = []
    for name in targets.TARGETS:
        print(f"== fuzz {name}", flush=True)
        if subprocess.call([sys.executable, __file__, name] + argv[1:]) != 0:
            failed.append(name)
    if failed:
        print(f"fuzz targets with findings: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
