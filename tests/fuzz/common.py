"""What the fuzz targets share: where the seed corpus comes from, and the one rule they
check — bad input raises an ``ArenaplanError`` (which names what is wrong); anything else
(another exception, a crash, a sanitizer report) is a finding."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODELS = Path(os.environ.get("ARENAPLAN_MODELS", ROOT.parent / "shared" / "models"))

import arenaplan as ap  # noqa: E402

#: The exceptions a fuzz input may raise: the library's own, which carry a message.
EXPECTED = (ap.ArenaplanError,)


def shared_models() -> list:
    """The shared .tflite models (the seed corpus of model import), smallest first."""
    if not MODELS.is_dir():
        return []
    return sorted(MODELS.glob("*.tflite"), key=lambda p: p.stat().st_size)


def main(test_one, seeds, argv=None) -> None:
    """Run ``test_one`` under atheris (libFuzzer's flags in ``argv``: -runs=N, -max_total_time=S,
    a corpus folder), with ``seeds`` (bytes) written into a fresh corpus folder when none is
    given on the command line."""
    import tempfile

    import atheris
    argv = list(sys.argv if argv is None else argv)
    if not any(not a.startswith("-") for a in argv[1:]):
        corpus = Path(tempfile.mkdtemp(prefix="arenaplan-fuzz-"))
        for i, seed in enumerate(seeds):
            (corpus / f"seed{i:03d}").write_bytes(seed)
        argv.append(str(corpus))
    atheris.Setup(argv, test_one)
    atheris.Fuzz()
