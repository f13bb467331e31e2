"""Build the C core into a cffi module straight from the public headers.

Reading the headers with cffi doubles as a check that they stay plain C99 that
a foreign-function tool can parse. The build is cached by a hash of the C
sources and flags, so repeated test runs do not recompile.

Environment:
    AP_SANITIZE=1   compile with -fsanitize=address,undefined (run the tests
                    with libasan preloaded, as .ci/run does).
    AP_OPT=-O3      optimisation level (default -O1), e.g. to time kernels.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from pathlib import Path

import cffi

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = ROOT / "csrc" / "include"
UMBRELLA = INCLUDE / "arenaplan" / "arenaplan.h"
SOURCE_DIRS = [ROOT / "csrc" / "runtime", ROOT / "csrc" / "planner",
               ROOT / "csrc" / "planner" / "bands"]


def _sources() -> list[Path]:
    files: list[Path] = []
    for d in SOURCE_DIRS:
        files += sorted(d.glob("*.c"))
    return files


def _header_order() -> list[Path]:
    names = re.findall(r'#include "arenaplan/([^"]+)"', UMBRELLA.read_text())
    return [INCLUDE / "arenaplan" / n for n in names]


def cdef_text() -> str:
    """The public declarations with preprocessor lines and C++ guards removed."""
    out: list[str] = []
    for header in _header_order():
        skipping = False
        for line in header.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith("#ifdef __cplusplus"):
                skipping = True
                continue
            if skipping:
                if stripped.startswith("#endif"):
                    skipping = False
                continue
            if stripped.startswith("#"):
                continue
            out.append(line)
    return "\n".join(out)


def compile_flags() -> tuple[list[str], list[str]]:
    cflags = ["-std=c99", os.environ.get("AP_OPT", "-O1"), "-g", "-Wall", "-Wextra", "-Werror=implicit-function-declaration"]
    ldflags: list[str] = []
    if os.environ.get("AP_SANITIZE"):
        san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
               "-fno-omit-frame-pointer"]
        cflags += san
        ldflags += san
    return cflags, ldflags


def build():
    """Return (ffi, lib) of the C core compiled as a cffi extension."""
    cflags, ldflags = compile_flags()
    sources = _sources()
    digest = hashlib.sha256()
    for path in sources + list((ROOT / "csrc").rglob("*.h")):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    digest.update(" ".join(cflags + ldflags).encode())
    digest.update(sys.version.encode())
    name = "_ap_cffi_" + digest.hexdigest()[:16]
    build_dir = ROOT / "build" / "cffi"
    build_dir.mkdir(parents=True, exist_ok=True)

    ffi = cffi.FFI()
    ffi.cdef(cdef_text())
    existing = list(build_dir.glob(name + "*.so"))
    if not existing:
        # Objects go to a directory of this hash alone, so a sanitized and a plain build
        # running at once never link each other's objects.
        work_dir = build_dir / name
        ffi.set_source(
            name,
            '#include "arenaplan/arenaplan.h"',
            sources=[str(s) for s in sources],
            include_dirs=[str(INCLUDE), str(ROOT / "csrc" / "runtime")],
            extra_compile_args=cflags,
            extra_link_args=ldflags,
            libraries=["m"],
        )
        built = ffi.compile(tmpdir=str(work_dir), verbose=False)
        final = build_dir / Path(built).name
        os.replace(built, final)  # atomic: a concurrent build sees a whole file or none
        existing = [final]
    spec = importlib.util.spec_from_file_location(name, existing[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ffi, module.lib
