"""Build the C core into the CPython extension ``arenaplan._core``.

Switches (environment variables):
    AP_DEBUG=1   -O0 -g instead of -O3.
No flag ties the build to the build machine's CPU: SIMD kernels are compiled
per function with target attributes and chosen at run time.
"""
import os
from glob import glob

from setuptools import Extension, setup

# the planner keeps one algorithm per file; its band phase has a folder of its own
sources = (
    sorted(glob("csrc/runtime/*.c"))
    + sorted(glob("csrc/planner/*.c"))
    + sorted(glob("csrc/planner/bands/*.c"))
    + sorted(glob("csrc/python/*.c"))
)

cflags = ["-std=c99", "-Wall", "-Wextra", "-Wno-missing-field-initializers"]
cflags += ["-O0", "-g"] if os.environ.get("AP_DEBUG") else ["-O3"]

setup(
    ext_modules=[
        Extension(
            "arenaplan._core",
            sources=sources,
            include_dirs=["csrc/include", "csrc/runtime", "csrc/python"],
            extra_compile_args=cflags,
            libraries=["m"],
        )
    ]
)
