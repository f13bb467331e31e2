"""The arm-dsp CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels on a Cortex-M under QEMU,
through the C API, on cases made on the host (tests/test_dsp_kernels_on_qemu.py).

A case is one layer: its params (a cffi ``ap_<op>_params *``), filter, bias and input, and
its reference output (the NumPy reference of TFLite's kernel). ``encode`` packs the blob for
arm-dsp on the host (the blob does not depend on the CPU), runs the portable "direct" variant
on it through cffi, checks that output against the reference (it becomes the expected output
on the core) and lists the arm-dsp variants; ``write_cases`` puts the records in one file,
``build_driver`` links dsp_cases_main.c with the runtime compiled for a core (cached), and
``run_cases`` runs that image once under QEMU on the file: for every case and variant, the
run with exactly its scratch between poisoned guard bytes and, for each scratch buffer, with
that buffer one byte short (dsp_cases_main.c says what it checks).
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from harness.firmware import build as fw

__all__ = ["OPS", "BUFFERS", "DspCase", "CaseResult", "encode", "write_cases", "build_driver", "run_cases",
           "static_stack_bound"]

#: Op codes of the record format (dsp_cases_main.c) and each op's params fields, in order.
OPS = {
    "conv2d": (0, ("batches", "input_h", "input_w", "input_c", "output_h", "output_w", "output_c",
                   "filter_h", "filter_w", "stride_h", "stride_w", "dilation_h", "dilation_w",
                   "pad_h", "pad_w", "input_offset")),
    "depthwise_conv2d": (1, ("batches", "input_h", "input_w", "input_c", "output_h", "output_w",
                             "output_c", "filter_h", "filter_w", "stride_h", "stride_w", "dilation_h",
                             "dilation_w", "pad_h", "pad_w", "depth_multiplier", "input_offset")),
    "fully_connected": (2, ("batches", "input_depth", "output_depth", "input_offset", "filter_offset",
                            "reference")),
}
_MAGIC = 0x43515041  # "APQC"
_RECORD_MAX = 3 << 19   # dsp_cases_main.c's record buffer
_ARENA = 4 << 19        # and its arena


@dataclass
class DspCase:
    """One encoded layer: its op, id, a label for messages, the arm-dsp variants (names,
    families and scratch bytes) and the record the driver reads."""
    op: str
    id: int
    label: str
    variants: List[str]
    families: List[str]
    scratch: List[List[int]]
    record: bytes


@dataclass
class CaseResult:
    """A case's result on one core: variants run, variants that passed every check, the
    driver's failure lines for it and the variants that refused misaligned scratch."""
    variants: int
    passed: int
    failures: List[str] = field(default_factory=list)
    refused: List[str] = field(default_factory=list)
    stack: List[int] = field(default_factory=list)   # bytes each variant's run touched, in order


def _lib_fn(lib, op: str, verb: str):
    return getattr(lib, f"ap_{op}_s8_{verb}")


def _variants(ffi, lib, op: str, params, isa) -> list:
    out = ffi.new("ap_variant[]", lib.AP_MAX_VARIANTS)
    count = ffi.new("uint32_t *")
    err = ffi.new("ap_error *")
    status = _lib_fn(lib, op, "variants")(params, isa, out, lib.AP_MAX_VARIANTS, count, err)
    if status != lib.AP_OK:
        raise ValueError(f"{op} variants: {ffi.string(err.message).decode()}")
    return [_one(ffi, out[i]) for i in range(count[0])]


def encode(ffi, lib, op: str, params, filter: np.ndarray, bias: Optional[np.ndarray], x: np.ndarray,
           reference: np.ndarray, case_id: int, label: str = "", expected: Optional[np.ndarray] = None
           ) -> DspCase:
    """The record of one layer (see the module docstring). ``params`` is the op's cffi params
    (requant arrays and real_scale read through it); ``reference`` the NumPy reference's
    output, which the portable kernel on the arm-dsp blob must give here first
    (AssertionError if not); ``expected`` what the core must give (default: reference; a
    test of the driver itself passes a wrong one). ValueError when the layer does not fit
    the driver's buffers."""
    code, names = OPS[op]
    err = ffi.new("ap_error *")
    size = ffi.new("size_t *")
    if _lib_fn(lib, op, "prepared_size")(params, size, err) != lib.AP_OK:
        raise ValueError(f"{op} prepared_size: {ffi.string(err.message).decode()}")
    prepared = np.zeros(size[0] + 16, np.uint8)
    at = (-prepared.ctypes.data) % 16
    blob = prepared[at:at + size[0]]
    w = np.ascontiguousarray(filter, dtype=np.int8)
    b = None if bias is None else np.ascontiguousarray(bias, dtype=np.int32)
    b_ptr = ffi.NULL if b is None else ffi.cast("int32_t *", ffi.from_buffer(b))
    status = _lib_fn(lib, op, "prepare")(params, lib.AP_ISA_ARM_DSP, ffi.cast("int8_t *", ffi.from_buffer(w)),
                                          b_ptr, ffi.cast("void *", blob.ctypes.data), size[0], err)
    if status != lib.AP_OK:
        raise ValueError(f"{op} prepare: {ffi.string(err.message).decode()}")
    xs = np.ascontiguousarray(x, dtype=np.int8)
    reference = np.ascontiguousarray(reference, dtype=np.int8)
    got = np.full(reference.size, 0x5A, np.uint8).view(np.int8)
    direct = _variants(ffi, lib, op, params, lib.AP_ISA_PORTABLE)[0]
    status = _lib_fn(lib, op, "run")(params, direct,
                                      ffi.cast("void *", blob.ctypes.data),
                                      ffi.cast("int8_t *", ffi.from_buffer(xs)), ffi.cast("int8_t *", ffi.from_buffer(got)),
                                      ffi.NULL, 0, err)
    assert status == lib.AP_OK, f"{label}: portable direct: {ffi.string(err.message).decode()}"
    assert np.array_equal(got, reference.reshape(-1)), f"{label}: portable direct on the arm-dsp blob != reference"
    expected = reference if expected is None else np.ascontiguousarray(expected, dtype=np.int8)

    dsp = _variants(ffi, lib, op, params, lib.AP_ISA_ARM_DSP)
    q = params.requant
    channels = getattr(params, "output_c", None) or getattr(params, "output_depth")
    nmult = 0 if q.multiplier == ffi.NULL else (channels if q.per_channel else 1)
    real = []
    if op == "fully_connected" and params.real_scale != ffi.NULL:
        real = [params.real_scale[i] for i in range(channels if q.per_channel else 1)]
    out = [struct.pack("<III", code, case_id, len(names)),
           struct.pack(f"<{len(names)}i", *(getattr(params, n) for n in names)),
           struct.pack("<iiiiI", q.per_channel, q.output_offset, q.activation_min, q.activation_max, nmult),
           struct.pack(f"<{2 * nmult}i", *[q.multiplier[i] for i in range(nmult)], *[q.shift[i] for i in range(nmult)]),
           struct.pack(f"<I{len(real)}d", len(real), *real)]
    for data in (w.tobytes(), b'' if b is None else b.tobytes(), xs.tobytes(), blob.tobytes(), expected.tobytes()):
        out += [struct.pack("<I", len(data)), data, b"\0" * (-len(data) % 4)]
    out.append(struct.pack("<I", len(dsp)))
    for v in dsp:
        n = v.scratch_count
        out += [struct.pack("<iiI", v.kind, v.param, n),
                struct.pack("<8I", *[v.scratch[k].bytes if k < n else 0 for k in range(4)],
                            *[v.scratch[k].alignment if k < n else 0 for k in range(4)]),
                bytes(ffi.buffer(v.name))[:32]]
    body = b"".join(out)
    scratch = [[int(v.scratch[k].bytes) for k in range(v.scratch_count)] for v in dsp]
    # the driver keeps the record and carves input, output, blob and the largest variant's
    # scratch out of its arena, each between guards
    need = xs.nbytes + expected.nbytes + blob.nbytes + max((sum(s) for s in scratch), default=0)
    if len(body) > _RECORD_MAX or need + 64 * 1024 > _ARENA:
        raise ValueError(f"{label}: too large for the driver (record {len(body)} B, arena {need} B)")
    return DspCase(op, case_id, label, [ffi.string(v.name).decode() for v in dsp],
                   [ffi.string(v.family).decode() for v in dsp], scratch,
                   struct.pack("<II", _MAGIC, len(body)) + body)


def _one(ffi, v):
    """A pointer to a copy of variant record v (owning its memory)."""
    p = ffi.new("ap_variant *")
    p[0] = v
    return p


def write_cases(path: Path, cases: Sequence[DspCase]) -> Path:
    path.write_bytes(b"".join(c.record for c in cases))
    return path


def build_driver(core: str, out_dir: Path) -> Path:
    """dsp_cases_main.c linked for ``core`` (a name of build.ARM_CPUS) with the runtime
    compiled for it (cached): the image's path."""
    cpu = fw.ARM_CPUS[core]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    objs = fw.compile_all(fw.ARM_CC, fw.arm_flags(cpu), [fw.HERE / "dsp_cases_main.c", fw.HERE / "startup.c"],
                          out_dir / "obj", [fw.INCLUDE, fw.HERE])
    return fw.link_arm(cpu, [*objs, *runtime], out_dir, "dsp_cases")


#: run_cases' ``misaligned`` buffers, the driver's bits
BUFFERS = {"input": 1, "output": 2, "scratch": 4}


def run_cases(elf: Path, core: str, cases_file: Path, cases: Sequence[DspCase], timeout: float = 600,
              offset: int = 0, misaligned: Sequence[str] = (), only: Optional[str] = None) -> Dict[int, CaseResult]:
    """One QEMU run of the driver over cases_file (written from ``cases``): each case's result
    by id. With ``offset``, the buffers named in ``misaligned`` (of BUFFERS) lie that many
    bytes past their alignment (a variant may then refuse its scratch: CaseResult.refused);
    ``only``: run only the variants of that name. RuntimeError if the driver stops early (a
    fault: the message ends with the run that faulted) or reports a case it was not given."""
    args = [str(cases_file)]
    if offset or only:
        args += [str(offset), str(sum(BUFFERS[b] for b in misaligned))]
    if only:
        args.append(only)
    try:
        log = fw.run_elf(elf, fw.ARM_CPUS[core], icount=False, timeout=timeout, args=args)
    except RuntimeError as exc:
        text, where = str(exc), ""
        runs = re.findall(r"^run (\d+) (\S+) (-?\d+)$", text, re.M)
        if runs:
            case_id, name, short = runs[-1]
            label = next((c.label for c in cases if c.id == int(case_id)), "?")
            scratch = "exact scratch" if short == "-1" else f"scratch buffer {short} one byte short"
            where = f"; its last run: case {case_id} ({label}), {name}, {scratch}"
        raise RuntimeError(f"the driver stopped on {core}{where}:\n" + "\n".join(text.splitlines()[-6:])) from None
    results = {int(i): CaseResult(int(n), int(p)) for i, n, p in re.findall(r"^case (\d+) (\d+) (\d+)$", log, re.M)}
    if sorted(results) != sorted(c.id for c in cases):
        raise RuntimeError(f"the driver reported {len(results)} of {len(cases)} cases:\n{log[-4000:]}")
    for line in re.findall(r"^fail (\d+) (.*)$", log, re.M):
        results[int(line[0])].failures.append(line[1])
    for case_id, name in re.findall(r"^refused (\d+) (\S+)$", log, re.M):
        results[int(case_id)].refused.append(name)
    for case_id, stacks in re.findall(r"^stack (\d+)((?: \d+)*)$", log, re.M):
        results[int(case_id)].stack = [int(v) for v in stacks.split()]
    return results


def static_stack_bound(elf: Path, core: str, entry: str):
    """arenaplan.export.stack_usage's bound of ``entry`` (e.g. "ap_conv2d_s8_run") in the
    runtime compiled for ``core`` and linked into the driver ``elf`` (its call graph; naked
    routines and library functions read off the disassembly): a StackReport."""
    from arenaplan.export import stack_usage
    cpu = fw.ARM_CPUS[core]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    return stack_usage([o.with_suffix(".ci") for o in runtime], entry, elf, objects=runtime)
