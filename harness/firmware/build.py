"""Build and run exported models: on the host with gcc, on a Cortex-M under QEMU.

Used by the tests (test_export, test_int16, test_cortex_m_kernels; run_plan_on_core: a
plan's export on a core under QEMU, for the op tests) and the Cortex-M
benchmarks (benchmarks/cortex_m.py, bench_targets). The runtime (csrc/runtime/*.c) is compiled once per
toolchain into objects that every model's program links; each program is the export
(<name>.c), a generated io.c (sizes, entry point, embedded samples) and a main:
host_main.c (samples from a file) or arm_main.c + startup.c + cortex_m.ld (samples in
the image, results through semihosting), linked for one board of BOARDS (its memory map
written as the image's ap_memory.ld, which cortex_m.ld includes).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNTIME = ROOT / "csrc" / "runtime"
INCLUDE = ROOT / "csrc" / "include"

HOST_CC = os.environ.get("CC", "gcc")
HOST_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2"]

ARM_CC = "arm-none-eabi-gcc"
ARM_COMMON = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-mthumb", "-ffunction-sections",
              "-fdata-sections", "-fstack-usage", "-fcallgraph-info=su", "-DAP_NO_ERROR_MESSAGES",
              "-DAP_RUNTIME_ONLY"]


@dataclass(frozen=True)
class Board:
    """A QEMU machine the firmware runs on: where code and data go, and how SysTick
    counts under ``-icount shift=0`` (one instruction a nanosecond, SysTick on the
    board's CPU clock: 25 MHz gives 40 instructions a tick)."""
    machine: str
    flash: Tuple[int, int]       # (origin, bytes): code and constants, the vector table first
    ram: Tuple[int, int]         # (origin, bytes): data, bss, heap, stack at the top
    instructions_per_tick: float

    def memory_script(self) -> str:
        """The MEMORY command of this board's linker script (cortex_m.ld includes it)."""
        (fo, fl), (ro, rl) = self.flash, self.ram
        return (f"/* {self.machine} (written by harness/firmware/build.py) */\nMEMORY\n{{\n"
                f"    FLASH (rx)  : ORIGIN = 0x{fo:08X}, LENGTH = 0x{fl:X}\n"
                f"    RAM   (rwx) : ORIGIN = 0x{ro:08X}, LENGTH = 0x{rl:X}\n}}\n")


#: The boards, from QEMU's board definitions (hw/arm/mps2.c, hw/arm/mps2-tz.c). The
#: TrustZone boards boot secure with the vector table at INITSVTOR = 0x10000000, so code
#: and data use the secure aliases of their memories: an505's SSRAM1 (4 MiB) and
#: SSRAM2+3 (2 x 2 MiB, contiguous); an547's ITCM and DTCM (512 KiB each). The ticks were
#: measured by test_board_tick_calibration (tests/test_export.py).
BOARDS = {
    "mps2-an386": Board("mps2-an386", (0x00000000, 4 << 20), (0x20000000, 4 << 20), 40.0),
    "mps2-an500": Board("mps2-an500", (0x00000000, 4 << 20), (0x20000000, 4 << 20), 40.0),
    "mps2-an505": Board("mps2-an505", (0x10000000, 4 << 20), (0x38000000, 4 << 20), 50.0),
    "mps3-an547": Board("mps3-an547", (0x10000000, 512 << 10), (0x30000000, 512 << 10), 31.25),
}


@dataclass(frozen=True)
class ArmCpu:
    """A core: its compiler flags (CPU, FPU, float ABI) and the board it runs on."""
    name: str
    flags: tuple
    board: Board

    @property
    def machine(self) -> str:
        return self.board.machine

    def instructions(self, ticks: int) -> int:
        """Instructions executed in ``ticks`` SysTick ticks (under -icount shift=0)."""
        return int(round(ticks * self.board.instructions_per_tick))


ARM_CPUS = {
    "cortex-m4": ArmCpu("cortex-m4", ("-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
                        BOARDS["mps2-an386"]),
    "cortex-m7": ArmCpu("cortex-m7", ("-mcpu=cortex-m7", "-mfloat-abi=hard", "-mfpu=fpv5-d16"),
                        BOARDS["mps2-an500"]),
    "cortex-m33": ArmCpu("cortex-m33", ("-mcpu=cortex-m33", "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"),
                         BOARDS["mps2-an505"]),
    "cortex-m55": ArmCpu("cortex-m55", ("-mcpu=cortex-m55", "-mfloat-abi=hard"),
                         BOARDS["mps3-an547"]),
}


def missing_arm_tools() -> List[str]:
    """Names of the cross tools that are not on PATH (empty when all are)."""
    tools = [ARM_CC, "arm-none-eabi-size", "arm-none-eabi-objdump", "qemu-system-arm"]
    return [t for t in tools if shutil.which(t) is None]


def _run(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
                           f"{proc.stdout}\n{proc.stderr}")
    return proc


def compile_all(cc: str, flags: Sequence[str], sources: Sequence[Path], out_dir: Path,
                includes: Sequence[Path]) -> List[Path]:
    """Compile sources to objects in out_dir, in parallel; returns the objects."""
    out_dir.mkdir(parents=True, exist_ok=True)
    inc = [f"-I{p}" for p in includes]

    def one(src: Path) -> Path:
        obj = out_dir / (src.stem + ".o")
        _run([cc, *flags, *inc, "-c", src, "-o", obj], cwd=out_dir)
        return obj

    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        return list(pool.map(one, sources))


def runtime_sources() -> List[Path]:
    return sorted(RUNTIME.glob("*.c"))


def cached_runtime(cc: str, flags: Sequence[str], tag: str) -> List[Path]:
    """Runtime objects for (compiler, flags), compiled once and kept under build/ (keyed by
    the compiler, the flags and every runtime source and header: a stale build is never
    reused)."""
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    h = hashlib.sha256(version.encode() + " ".join(flags).encode())
    for path in sorted(RUNTIME.iterdir()) + sorted(INCLUDE.rglob("*.h")):
        if path.is_file():
            h.update(path.name.encode() + path.read_bytes())
    cache = ROOT / "build" / "test-export" / f"{tag}-{h.hexdigest()[:16]}"
    cache.mkdir(parents=True, exist_ok=True)
    sources = runtime_sources()
    objects = [cache / (s.stem + ".o") for s in sources]
    if not (cache / "complete").exists():
        objects = compile_all(cc, flags, sources, cache, [INCLUDE])
        (cache / "complete").write_text("ok")
    return objects


def write_io(exported, out_dir: Path, samples: Sequence[Sequence[np.ndarray]] = (),
             report_errors: bool = True) -> Path:
    """io.c for an export: sizes, the entry point and the embedded samples. With
    report_errors the entry point calls <name>_invoke_ex and prints a failure's op and
    message; without, it calls <name>_invoke alone (its stack is what the firmware
    measures against the bound)."""
    upper = exported.name.upper()
    data = b"".join(np.ascontiguousarray(x).tobytes() for sample in samples for x in sample)
    body = ", ".join(str(b) for b in data) or "0"
    n_in, n_out = len(exported.input_bytes), len(exported.output_bytes)
    text = "\n".join([
        '#include "io.h"',
        f'#include "{exported.name}.h"',
        f"const unsigned ap_io_input_count = {upper}_INPUT_COUNT;",
        f"const unsigned ap_io_output_count = {upper}_OUTPUT_COUNT;",
        f"const size_t ap_io_input_bytes[{n_in}] = {{"
        + ", ".join(f"{upper}_INPUT{i}_BYTES" for i in range(n_in)) + "};",
        f"const size_t ap_io_output_bytes[{n_out}] = {{"
        + ", ".join(f"{upper}_OUTPUT{i}_BYTES" for i in range(n_out)) + "};",
        f"const unsigned ap_io_samples = {len(samples)}u;",
        f"const uint8_t ap_io_sample_data[{max(len(data), 1)}] = {{{body}}};",
        "int ap_io_invoke(const void *const *inputs, void *const *outputs)",
        "{",
        *([f"    return {exported.name}_invoke(inputs, outputs);"] if not report_errors else [
            "    ap_error error;",
            f"    int status = {exported.name}_invoke_ex(inputs, outputs, &error);",
            "    if (status != 0) {",
            "        ap_io_report(status, error.op, error.message);",
            "    }",
            "    return status;"]),
        "}", ""])
    path = out_dir / "io.c"
    path.write_text(text)
    return path


# --- host ----------------------------------------------------------------------------------
def build_host(exported, runtime_objects: Sequence[Path], out_dir: Path) -> Path:
    io = write_io(exported, out_dir)
    objs = compile_all(HOST_CC, HOST_FLAGS, [exported.source, io, HERE / "host_main.c"],
                       out_dir / "obj", [INCLUDE, HERE, exported.source.parent])
    exe = out_dir / "prog"
    _run([HOST_CC, *HOST_FLAGS, *objs, *runtime_objects, "-lm", "-o", exe])
    return exe


def run_host(exe: Path, samples: Sequence[Sequence[np.ndarray]], output_specs, work: Path
             ) -> List[List[np.ndarray]]:
    """Run the host program on samples; returns outputs per sample as arrays."""
    inp, outp = work / "inputs.bin", work / "outputs.bin"
    inp.write_bytes(b"".join(np.ascontiguousarray(x).tobytes() for s in samples for x in s))
    _run([exe, inp, outp], timeout=120)
    return _split(outp.read_bytes(), len(samples), output_specs)


def _split(raw: bytes, count: int, output_specs) -> List[List[np.ndarray]]:
    per = sum(np.dtype(d).itemsize * int(np.prod(s)) for d, s in output_specs)
    if len(raw) != per * count:
        raise RuntimeError(f"expected {per * count} output bytes, got {len(raw)}")
    result = []
    for i in range(count):
        at, outs = i * per, []
        for dtype, shape in output_specs:
            n = np.dtype(dtype).itemsize * int(np.prod(shape))
            outs.append(np.frombuffer(raw[at:at + n], dtype=dtype).reshape(shape))
            at += n
        result.append(outs)
    return result


# --- Cortex-M under QEMU -----------------------------------------------------------------------
def arm_flags(cpu: ArmCpu) -> List[str]:
    return [*ARM_COMMON, *cpu.flags]


@dataclass
class Firmware:
    elf: Path
    cpu: ArmCpu
    ci_files: List[Path]
    objects: List[Path]
    sizes: Dict[str, int] = field(default_factory=dict)       # the whole image
    footprint: Dict[str, int] = field(default_factory=dict)   # the export + runtime only


def build_arm(exported, cpu: ArmCpu, runtime_objects: Sequence[Path], out_dir: Path,
              samples: Sequence[Sequence[np.ndarray]]) -> Firmware:
    io = write_io(exported, out_dir, samples, report_errors=False)
    objs = compile_all(ARM_CC, arm_flags(cpu), [exported.source, io, HERE / "arm_main.c",
                                                 HERE / "startup.c"],
                       out_dir / "obj", [INCLUDE, HERE, exported.source.parent])
    elf = link_arm(cpu, [*objs, *runtime_objects], out_dir)
    # the stack bound covers the export and the runtime (not this harness)
    analysed = [objs[0]] + list(runtime_objects)
    ci = [o.with_suffix(".ci") for o in analysed if o.with_suffix(".ci").exists()]
    return Firmware(elf, cpu, ci, analysed, image_size(elf), footprint(out_dir / "prog.map", analysed))


def link_arm(cpu: ArmCpu, objects: Sequence[Path], out_dir: Path, name: str = "prog") -> Path:
    """Link objects with startup.c's vector table for cpu's board (out_dir/<name>.elf,
    its map beside it)."""
    (out_dir / "ap_memory.ld").write_text(cpu.board.memory_script())
    elf = out_dir / f"{name}.elf"
    _run([ARM_CC, *arm_flags(cpu), "--specs=rdimon.specs", f"-L{out_dir}",
          "-Wl,--gc-sections", f"-Wl,-T,{HERE / 'cortex_m.ld'}", f"-Wl,-Map,{out_dir / (name + '.map')}",
          *objects, "-Wl,--start-group", "-lc", "-lrdimon", "-lgcc", "-lm",
          "-Wl,--end-group", "-lrdimon", "-o", elf])
    return elf


def build_arm_batch(exports: Sequence, cpu: ArmCpu, runtime_objects: Sequence[Path],
                    out_dir: Path, inputs: Optional[Sequence[Sequence[np.ndarray]]] = None) -> Firmware:
    """One image running several exports (each its own name), each invoked once and timed:
    prints "ticks <index> <ticks>" per export, then "done". Without ``inputs`` every export
    reads the same pseudo-random bytes and its outputs are not reported (this counts
    instructions); with ``inputs`` (one list of arrays per export, embedded in the image)
    it also prints "out <index> <hex of every output>" before the ticks (run_batch reads
    both)."""
    in_max = max(sum(e.input_bytes) for e in exports)
    out_max = max(sum(e.output_bytes) for e in exports)
    embedded = []
    if inputs is not None:
        if len(inputs) != len(exports):
            raise ValueError(f"{len(inputs)} input lists for {len(exports)} exports")
        for k, xs in enumerate(inputs):
            data = b"".join(np.ascontiguousarray(x).tobytes() for x in xs)
            if len(data) != sum(exports[k].input_bytes):
                raise ValueError(f"export {k} takes {sum(exports[k].input_bytes)} input bytes, got {len(data)}")
            embedded.append(f"static const uint8_t ap_in{k}[{max(len(data), 1)}] __attribute__((aligned(16))) = "
                            f"{{{', '.join(str(b) for b in data) or '0'}}};")
    lines = ["#include <stdint.h>", "#include <stdio.h>",
             *[f'#include "{e.name}.h"' for e in exports], *embedded,
             "#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)",
             "#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)",
             "#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)",
             "extern volatile uint32_t ap_systick_wraps;",
             f"static uint8_t ap_in[{in_max}] __attribute__((aligned(16)));",
             f"static uint8_t ap_out[{out_max}] __attribute__((aligned(16)));",
             "static uint64_t ap_ticks(void)", "{", "    uint32_t wraps, cvr;",
             "    do { wraps = ap_systick_wraps; cvr = SYST_CVR; } while (wraps != ap_systick_wraps);",
             "    return (uint64_t)wraps * 0x1000000u + (0xFFFFFFu - cvr);", "}",
             "int main(void)", "{", "    const void *in[16];", "    void *out[16];",
             "    uint32_t x = 12345u;",
             "    for (unsigned i = 0; i < sizeof(ap_in); i++) {",
             "        x = x * 1664525u + 1013904223u;", "        ap_in[i] = (uint8_t)(x >> 24);", "    }",
             "    SYST_RVR = 0xFFFFFFu;", "    SYST_CVR = 0;", "    SYST_CSR = 7u;",
             "    (void)ap_ticks();  /* the counter reads 0 until its first reload */",
             "    for (volatile unsigned i = 0; i < 100u; i++) {", "    }"]
    for k, e in enumerate(exports):
        at = 0
        for i, n in enumerate(e.input_bytes):
            base = f"ap_in{k}" if inputs is not None else "ap_in"
            lines.append(f"    in[{i}] = {base} + {at};")
            at += n
        at = 0
        for i, n in enumerate(e.output_bytes):
            lines.append(f"    out[{i}] = ap_out + {at};")
            at += n
        lines += ["    {", "        uint64_t t0 = ap_ticks();",
                  f"        int status = {e.name}_invoke(in, out);",
                  "        uint64_t t1 = ap_ticks();",
                  f'        if (status != 0) {{ printf("error %d at {k}\\n", status); return status; }}']
        if inputs is not None:
            lines += [f'        printf("out {k} ");',
                      f"        for (unsigned b = 0; b < {sum(e.output_bytes)}u; b++) {{",
                      '            printf("%02x", ap_out[b]);', "        }", '        printf("\\n");']
        lines += [f'        printf("ticks {k} %llu\\n", (unsigned long long)(t1 - t0));', "    }"]
    lines += ['    printf("done\\n");', "    return 0;", "}", ""]
    out_dir.mkdir(parents=True, exist_ok=True)
    main = out_dir / "batch_main.c"
    main.write_text("\n".join(lines))
    dirs = sorted({e.source.parent for e in exports})
    objs = compile_all(ARM_CC, arm_flags(cpu), [*[e.source for e in exports], main, HERE / "startup.c"],
                       out_dir / "obj", [INCLUDE, HERE, *dirs])
    elf = link_arm(cpu, [*objs, *runtime_objects], out_dir)
    return Firmware(elf, cpu, [], objs, image_size(elf), {})


def run_batch(fw: Firmware, count: int, timeout: float = 600) -> Tuple[List[bytes], List[int]]:
    """Run a build_arm_batch image built with inputs: each export's output bytes and the
    instructions of its invoke, in order."""
    log = run_elf(fw.elf, fw.cpu, True, timeout)
    outs = {int(k): bytes.fromhex(h) for k, h in re.findall(r"^out (\d+) ([0-9a-f]*)$", log, re.M)}
    ticks = {int(k): int(t) for k, t in re.findall(r"^ticks (\d+) (\d+)$", log, re.M)}
    if sorted(outs) != list(range(count)) or sorted(ticks) != list(range(count)):
        raise RuntimeError(f"expected {count} outputs and timings:\n{log}")
    return [outs[k] for k in range(count)], [fw.cpu.instructions(ticks[k]) for k in range(count)]


def count_batch(fw: Firmware, count: int, timeout: float = 600) -> List[int]:
    """Run a build_arm_batch image: the instructions of each export's invoke, in order."""
    log = run_elf(fw.elf, fw.cpu, True, timeout)
    ticks = {int(k): int(t) for k, t in re.findall(r"^ticks (\d+) (\d+)$", log, re.M)}
    if sorted(ticks) != list(range(count)):
        raise RuntimeError(f"expected {count} timings:\n{log}")
    return [fw.cpu.instructions(ticks[k]) for k in range(count)]


def image_size(elf: Path) -> Dict[str, int]:
    """Berkeley sizes of an ELF: text (code + constants), data, bss."""
    out = _run(["arm-none-eabi-size", "-B", elf]).stdout.splitlines()
    text, data, bss = (int(v) for v in out[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


def footprint(map_path: Path, objects: Sequence[Path]) -> Dict[str, int]:
    """Bytes the given objects put in the image (sections the linker kept), read off
    the GNU ld map: text (code and constants), data, bss."""
    names = {str(o) for o in objects}
    sizes = {"text": 0, "data": 0, "bss": 0}
    text = map_path.read_text()
    body = text[text.index("Linker script and memory map"):]
    pending = None
    for line in body.splitlines():
        m = re.match(r"^ (\.[\w.$]+)\s*$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.match(r"^ (\.[\w.$]+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)$", line)
        if m:
            section = m.group(1) or pending
            pending = None
            if m.group(4) not in names or section is None or int(m.group(2), 16) == 0:
                continue
            size = int(m.group(3), 16)
            if section.startswith((".text", ".rodata")):
                sizes["text"] += size
            elif section.startswith(".data"):
                sizes["data"] += size
            elif section.startswith((".bss", "COMMON")):
                sizes["bss"] += size
        else:
            pending = None
    return sizes


@dataclass
class QemuRun:
    outputs: List[bytes]
    ticks: List[int]
    stack_bytes: int
    log: str
    instructions: List[int] = field(default_factory=list)   # per sample, from the ticks


def run_elf(elf: Path, cpu: ArmCpu, icount: bool = True, timeout: float = 300,
            args: Sequence[str] = ()) -> str:
    """Run an image on cpu's board under QEMU; returns its semihosting output (the run
    must exit 0 and print "done"). ``args`` become the program's argv[1:] (semihosting's
    command line; none may hold a comma)."""
    config = "enable=on,target=native"
    if args:
        if any("," in str(a) for a in args):
            raise ValueError(f"a semihosting argument holds a comma: {args}")
        config += "".join(f",arg={a}" for a in [elf.name, *args])
    cmd = ["qemu-system-arm", "-M", cpu.machine, "-nographic", "-semihosting-config",
           config, "-kernel", elf, "-monitor", "none", "-serial", "none"]
    if icount:
        cmd += ["-icount", "shift=0"]
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0 or "done" not in proc.stdout:
        raise RuntimeError(f"firmware failed on {cpu.machine} (exit {proc.returncode}):\n"
                           f"{proc.stdout + proc.stderr}")
    return proc.stdout + proc.stderr


def run_qemu(fw: Firmware, icount: bool = True, timeout: float = 300) -> QemuRun:
    log = run_elf(fw.elf, fw.cpu, icount, timeout)
    outs = [bytes.fromhex(m) for m in re.findall(r"^out \d+ ([0-9a-f]*)$", log, re.M)]
    ticks = [int(t) for t in re.findall(r"^ticks \d+ (\d+)$", log, re.M)]
    stack = int(re.search(r"^stack (\d+)$", log, re.M).group(1))
    return QemuRun(outs, ticks, stack, log, [fw.cpu.instructions(t) for t in ticks])


@dataclass
class CoreRun:
    """A plan's export run on a Cortex-M under QEMU (``run_plan_on_core``)."""
    outputs: List[List[np.ndarray]]   # per sample, the model's outputs
    qemu: QemuRun
    firmware: Firmware


def run_plan_on_core(plan, core: str, samples: Sequence[Sequence[np.ndarray]], work: Path,
                     timeout: float = 600) -> CoreRun:
    """``plan``'s C export (work/out, named "net") built for ``core`` (a name of ARM_CPUS, with
    the runtime compiled for it, cached) in ``work`` and run under QEMU on ``samples`` (each a
    list of the model's inputs; one run, so a state carries from call to call); each sample's
    outputs as the plan's model's output tensors. The calling test is skipped (pytest.skip)
    where the toolchain or QEMU is missing."""
    missing = missing_arm_tools()
    if missing:
        import pytest
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)}); "
                    "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm")
    cpu = ARM_CPUS[core]
    runtime = cached_runtime(ARM_CC, arm_flags(cpu), cpu.name)
    firmware = build_arm(plan.export_c(work / "out", name="net"), cpu, runtime, work, samples)
    run = run_qemu(firmware, timeout=timeout)
    if len(run.outputs) != len(samples):
        raise RuntimeError(f"the firmware gave {len(run.outputs)} outputs for {len(samples)} samples:\n{run.log}")
    model = plan.model
    specs = [(model.tensors[t].dtype, model.tensors[t].shape) for t in model.outputs]
    return CoreRun([split_outputs(raw, specs) for raw in run.outputs], run, firmware)


def measure_instructions_per_tick(cpu: ArmCpu, out_dir: Path) -> float:
    """Instructions per SysTick tick on cpu's board, measured (tick_main.c): the difference
    of two timed loops of known length, so the timing's own instructions cancel."""
    objs = compile_all(ARM_CC, arm_flags(cpu), [HERE / "tick_main.c", HERE / "startup.c"],
                       out_dir / "obj", [HERE])
    log = run_elf(link_arm(cpu, objs, out_dir, "ticks"), cpu)
    (i0, t0), (i1, t1) = [(int(a), int(b)) for a, b in re.findall(r"^loop (\d+) (\d+)$", log, re.M)]
    return (i1 - i0) / (t1 - t0)


def split_outputs(raw: bytes, output_specs) -> List[np.ndarray]:
    return _split(raw, 1, output_specs)[0]
