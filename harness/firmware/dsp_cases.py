"""The arm-dsp kernels on a Cortex-M under QEMU, through the op table's entry points, on cases
made on the host (tests/test_dsp_kernels_on_qemu.py).

A case is one node of a row of the op table (arenaplan/ops.h): its params (a spec, {field:
value}, as ``_core`` takes it), its inputs and state, the filter and bias a weighted row
prepares, and its reference output (the NumPy reference of TFLite's kernel). ``encode_node``
packs the blob for arm-dsp on the host (the blob does not depend on the CPU), runs the
portable variant on it (the row's first) through the executor, checks that output against
the reference (it becomes the expected output and state on the core) and lists the arm-dsp
variants; ``encode`` does the same from a cffi params struct. ``write_cases`` puts the
records in one file, ``build_driver`` links dsp_cases_main.c with the runtime compiled for a
core (cached), and ``run_cases`` runs that image once under QEMU on the file: for every case
and variant, the run with exactly its scratch between poisoned guard bytes and, for each
scratch buffer, with that buffer one byte short (dsp_cases_main.c says what it checks).
"""
from __future__ import annotations

import re
import struct
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from arenaplan import _core
from harness.firmware import build as fw

__all__ = ["ROWS", "BUFFERS", "DspCase", "CaseResult", "encode_node", "encode", "spec_of", "write_cases",
           "build_driver", "runtime_objects", "run_cases", "draws", "check_on_core", "static_stack_bound"]

#: The op table's rows by (TFLite name, tensor types): code, types code, params fields, has_blob.
ROWS = {(row["name"], row["types"]): row for row in _core.ops()}
#: The ISAs' codes by name.
ISAS = {name: code for code, name, *_ in _core.isas()}
#: The C API ops of encode's cffi params, by the name tests use.
CFFI_ROWS = {"conv2d": ("CONV_2D", "s8"), "depthwise_conv2d": ("DEPTHWISE_CONV_2D", "s8"),
             "fully_connected": ("FULLY_CONNECTED", "s8")}
_MAGIC = 0x44515041  # "APQD"
_NO_ARRAY = 0xFFFFFFFF
_RECORD_MAX = 3 << 19   # dsp_cases_main.c's record buffer
_ARENA = 4 << 19        # and its arena
_ARRAY_POOL = 10240 * 8  # and the pool of the params' arrays


@dataclass
class DspCase:
    """One encoded node: its row's name, id, a label for messages, the arm-dsp variants (names,
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
    entry: int = 0     # the address of the row's run entry in the driver image


def _value(ftype: str, v) -> bytes:
    """A params value in the record's 8-byte form."""
    if ftype in ("float32", "float64[]"):
        return struct.pack("<d", float(v))
    return struct.pack("<q", int(v))


def _params(row: dict, spec: dict) -> bytes:
    """The spec's fields in the row's order (dsp_cases_main.c's read_params)."""
    out = [struct.pack("<I", len(row["params"]))]
    for name, ftype, count, *_ in row["params"]:
        value = spec[name]
        if count == 0:
            if value is None:
                out.append(struct.pack("<I", _NO_ARRAY))
                continue
            values = list(value)
            out.append(struct.pack("<I", len(values)))
        else:
            values = [value] if count == 1 else list(value)
            assert len(values) == count, (name, value)
        out += [_value(ftype, v) for v in values]
    return b"".join(out)


def _buffer(a: Optional[np.ndarray]) -> bytes:
    """bytes, element size, data padded to 4 (None: an empty buffer)."""
    a = np.zeros(0, np.int8) if a is None else np.ascontiguousarray(a)
    data = a.tobytes()
    return struct.pack("<II", len(data), a.itemsize) + data + b"\0" * (-len(data) % 4)


def encode_node(op: str, types: str, spec: dict, inputs: Sequence[np.ndarray], reference, case_id: int,
                label: str = "", *, states: Sequence[np.ndarray] = (), filter: Optional[np.ndarray] = None,
                bias: Optional[np.ndarray] = None, expected: Optional[np.ndarray] = None) -> DspCase:
    """The record of one node of the row (op, types) (see the module docstring). ``reference``
    is the NumPy reference's output, which the portable variant on the arm-dsp blob must give
    here first (AssertionError if not), or (shape, dtype) for a node beyond the reference's
    domain (params TFLite would not make): the portable output is then what the core must
    give. The state the portable run leaves is what the core must leave.
    ``expected`` what the core must give (default: reference; a test of the driver itself
    passes a wrong one). ValueError when the node does not fit the driver's buffers."""
    row = ROWS[(op, types)]
    code, tcode = row["code"], row["types_code"]
    inputs = [np.ascontiguousarray(x) for x in inputs]
    checked = not isinstance(reference, tuple)
    reference = np.ascontiguousarray(reference) if checked else np.zeros(reference[0], reference[1])
    prepared = np.zeros(0, np.uint8)
    if row["has_blob"]:
        prepared = np.frombuffer(bytes(_core.kernel_prepare(code, spec, np.ascontiguousarray(filter).reshape(-1),
                                                            None if bias is None else np.ascontiguousarray(bias).reshape(-1),
                                                            ISAS["arm-dsp"], tcode)), np.uint8)
    portable = _core.kernel_variants(code, spec, ISAS["portable"], tcode)[0]
    got = np.full(reference.shape, 0x5A, np.uint8).view(reference.dtype) if reference.dtype.itemsize == 1 \
        else np.zeros_like(reference)
    after = [np.array(s, copy=True) for s in states]
    _core.kernel_run(code, spec, prepared if row["has_blob"] else None, portable[1:3] + (portable[6],),
                     [x.reshape(-1) for x in inputs], got, after, tcode)
    if checked:
        assert np.array_equal(got, reference), f"{label}: the portable kernel on the arm-dsp blob != reference"
    else:
        reference = got
    expected = reference if expected is None else np.ascontiguousarray(expected, dtype=reference.dtype)

    dsp = _core.kernel_variants(code, spec, ISAS["arm-dsp"], tcode)
    out = [struct.pack("<III", code, tcode, case_id), _params(row, spec), struct.pack("<I", len(inputs)),
           *map(_buffer, inputs), struct.pack("<I", len(states)), *map(_buffer, states), *map(_buffer, after),
           _buffer(filter), _buffer(bias), _buffer(prepared), _buffer(expected), struct.pack("<I", len(dsp))]
    for name, kind, param, scratch, _macs, _in_place, _isa, _family in dsp:
        n = len(scratch)
        out += [struct.pack("<iiI", kind, param, n),
                struct.pack("<8I", *[scratch[k][0] if k < n else 0 for k in range(4)],
                            *[scratch[k][1] if k < n else 0 for k in range(4)]),
                name.encode()[:31].ljust(32, b"\0")]
    body = b"".join(out)
    sizes = [[int(b) for b, _ in v[3]] for v in dsp]
    # the driver keeps the record and carves inputs, output, state, blob and the largest
    # variant's scratch out of its arena, each between guards
    need = sum(x.nbytes for x in inputs) + 2 * expected.nbytes + prepared.nbytes + sum(s.nbytes for s in states) \
        + max((sum(s) for s in sizes), default=0)
    arrays = sum(8 * len(spec[f[0]]) for f in row["params"] if f[2] == 0 and spec[f[0]] is not None)
    if len(body) > _RECORD_MAX or need + 64 * 1024 > _ARENA or arrays > _ARRAY_POOL:
        raise ValueError(f"{label}: too large for the driver (record {len(body)} B, arena {need} B, "
                         f"params arrays {arrays} B)")
    return DspCase(op, case_id, label, [v[0] for v in dsp], [v[7] for v in dsp], sizes,
                   struct.pack("<II", _MAGIC, len(body)) + body)


def spec_of(ffi, row: dict, params) -> dict:
    """The spec of a cffi params struct of the row: each field by its C designator, a pointer
    field as the list of its elements (its length field's count, 1 where its ``per`` field is
    0) or None."""
    def get(name):
        v = params
        for part in name.split("."):
            v = getattr(v, part)
        return v
    spec = {}
    for name, _ftype, count, length, per, optional in row["params"]:
        v = get(name)
        if count == 0:
            n = int(get(length)) if per is None or get(per) else 1
            if v == ffi.NULL and not optional:
                # FULLY_CONNECTED's requant arrays beside real_scale: the C API lets them be NULL
                # as the kernel does not read them; the op table's row asks for values
                v = [(1 << 30) if name.endswith("multiplier") else 0] * n
            spec[name] = None if v == ffi.NULL else [v[i] for i in range(n)]
        else:
            spec[name] = v if count == 1 else list(v)
    return spec


def encode(ffi, lib, op: str, params, filter: np.ndarray, bias: Optional[np.ndarray], x: np.ndarray,
           reference: np.ndarray, case_id: int, label: str = "", expected: Optional[np.ndarray] = None
           ) -> DspCase:
    """encode_node for a CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED (``op`` a key of
    CFFI_ROWS) given by its cffi params struct (its requant arrays read through it)."""
    row = ROWS[CFFI_ROWS[op]]
    case = encode_node(*CFFI_ROWS[op], spec_of(ffi, row, params), [np.asarray(x, np.int8)],
                       np.asarray(reference, np.int8), case_id, label,
                       filter=np.asarray(filter, np.int8), bias=None if bias is None else np.asarray(bias, np.int32),
                       expected=expected)
    case.op = op
    return case


def write_cases(path: Path, cases: Sequence[DspCase]) -> Path:
    path.write_bytes(b"".join(c.record for c in cases))
    return path


def runtime_objects(core: str, out_dir: Path) -> List[Path]:
    """The runtime compiled for ``core`` (a name of build.ARM_CPUS; cached), its op table
    compiled again into out_dir with the plan-time entry points (variants, prepare) that a
    firmware build leaves out and the driver calls."""
    cpu = fw.ARM_CPUS[core]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    flags = [f for f in fw.arm_flags(cpu) if f != "-DAP_RUNTIME_ONLY"]
    table = fw.compile_all(fw.ARM_CC, flags, [fw.RUNTIME / "op_table.c"], out_dir / "table", [fw.INCLUDE])
    return [o for o in runtime if o.name != "op_table.o"] + table


def build_driver(core: str, out_dir: Path) -> Path:
    """dsp_cases_main.c linked for ``core`` with runtime_objects: the image's path."""
    cpu = fw.ARM_CPUS[core]
    objs = fw.compile_all(fw.ARM_CC, fw.arm_flags(cpu), [fw.HERE / "dsp_cases_main.c", fw.HERE / "startup.c"],
                          out_dir / "obj", [fw.INCLUDE, fw.HERE])
    return fw.link_arm(cpu, [*objs, *runtime_objects(core, out_dir)], out_dir, "dsp_cases")


#: run_cases' ``misaligned`` buffers, the driver's bits
BUFFERS = {"input": 1, "output": 2, "scratch": 4, "state": 8}


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
    for case_id, address in re.findall(r"^entry (\d+) ([0-9a-f]+)$", log, re.M):
        results[int(case_id)].entry = int(address, 16) & ~1
    return results


def static_stack_bound(elf: Path, core: str, entry: int):
    """arenaplan.export.stack_usage's bound of the function at address ``entry`` (a row's run
    entry, CaseResult.entry) in the driver ``elf`` that build_driver linked for ``core`` (its
    call graph; naked routines and library functions read off the disassembly): a StackReport."""
    from arenaplan.export import stack_usage
    symbols = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    names = [name for address, kind, name in (line.split() for line in symbols.splitlines() if line.count(" ") == 2)
             if kind in "Tt" and int(address, 16) & ~1 == entry]
    if not names:
        raise ValueError(f"no function at 0x{entry:x} in {elf}")
    objects = runtime_objects(core, elf.parent)
    return stack_usage([o.with_suffix(".ci") for o in objects], names[0], elf, objects=objects)


def draws(strategy, count: int) -> list:
    """``count`` examples of the hypothesis ``strategy``, the same on every run (derandomised,
    generation only): a host test's shape set as a fixed list of cases."""
    from hypothesis import HealthCheck, Phase, given, settings
    found = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example):
        found.append(example)

    collect()
    return found


def check_on_core(elf: Path, core: str, cases_file: Path, cases: Sequence[DspCase], what: str) -> str:
    """Run every case on ``core`` (run_cases) and assert what dsp_cases_main.c checks: every
    variant of every case passes, and the stack each run touched (painted, from the caller's
    stack pointer) is within the static bound of the row's run entry in this image
    (static_stack_bound). Returns a summary line: the runs and the deepest stack per variant."""
    t0 = time.perf_counter()
    results = run_cases(elf, core, cases_file, cases)
    runs, stack, deepest, entries = Counter(), Counter(), {}, set()
    bad = []
    for c in cases:
        r = results[c.id]
        assert r.variants == len(c.variants) == len(r.stack), (c.label, r.failures)
        runs.update(c.variants)
        entries.add(r.entry)
        for name, used in zip(c.variants, r.stack):
            if used > stack[name]:
                stack[name], deepest[name] = used, c.label
        if r.failures:
            bad.append(f"case {c.id}: {c.label}\n    " + "\n    ".join(r.failures))
    summary = (f"{what} on {core}: {len(cases)} cases in {time.perf_counter() - t0:.1f} s; runs per variant "
               f"{dict(runs)}; deepest stack per variant {dict(stack)}")
    assert not bad, f"{len(bad)} of {len(cases)} {what} cases fail on {core}:\n" + "\n".join(bad[:20])
    assert all(r.passed == r.variants for r in results.values())
    for entry in entries:
        bound = static_stack_bound(elf, core, entry)
        over = {name: (used, deepest[name]) for name, used in stack.items() if used > bound.bytes}
        assert not over, f"run above its static bound ({bound.describe()}): {over}"
    return summary
