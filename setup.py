"""Build the C core into the CPython extension ``arenaplan._core``.

Switches (environment variables):
    AP_DEBUG=1     -O0 -g instead of -O3.
    AP_SANITIZE=1  the whole extension, bindings included, with AddressSanitizer and
                   UndefinedBehaviorSanitizer (-O1 -g); run Python with libasan and
                   libubsan preloaded, as .ci/run does.
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
ldflags = []
if os.environ.get("AP_SANITIZE"):
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                "-fno-omit-frame-pointer"]
    # warning-free under the sanitizers' instrumentation too (it once found a subscript of -1)
    cflags += ["-O1", "-g", "-Werror"] + sanitize
    ldflags += sanitize
else:
    cflags += ["-O0", "-g"] if os.environ.get("AP_DEBUG") else ["-O3"]

setup(
    ext_modules=[
        Extension(
            "arenaplan._core",
            sources=sources,
            include_dirs=["csrc/include", "csrc/runtime", "csrc/python"],
            extra_compile_args=cflags,
            extra_link_args=ldflags,
            libraries=["m"],
        )
    ]
)
