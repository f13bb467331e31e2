"""Helpers of this checkout that the tests and the benchmarks share (neither imports the
other): the NumPy and LiteRT references outputs are checked against (``reference``), the
cffi build of the C core straight from its headers (``cbuild``), the firmware builder and
QEMU runner for exported plans (``firmware.build``), TFLite Micro trials
(``tflm_support``), models built in code (``svdf_models``), the cut-rectangle planner
problems (``rectangles``) and where the shared models are (``models``).

They build from the source tree (csrc/) into build/ and some need test-only packages
(cffi, ai-edge-litert, tflite-micro, the Arm toolchain), so they live beside the package,
not in it: the tests put the checkout on sys.path (tests/conftest.py), the benchmarks
insert it themselves.
"""
