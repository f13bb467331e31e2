"""Every op table row, exported in C, runs on a Cortex-M4 under QEMU (issue 27, item 5).

The rows are read from the C op table (``_core.ops()``) and each is run on the probe models
the coverage table asks it with (``arenaplan.ops.coverage``), so a row added later is covered
here without a change, and a row without a probe fails naming it. For every probe, every
arm-dsp variant its kernel offers and both rounding rules (the second only where its export
differs from the first's: the rule is a constant of the export), a plan running that variant
is exported twice, for two seeded inputs (one about the zero point at every magnitude, one
with the type's edge values: saturation, zero points at the ends, signed zeros, subnormals,
infinities, NaN); the exports go into as few images as the board's memory holds (one emulator
run each), each invoked once.
Every output equals the host Interpreter's bit for bit, except the float32 rows that call the
C library's ``expf`` / ``tanhf`` / ``logf`` / ``sinf`` / ``cosf`` / ``expm1f`` (LOGISTIC, TANH,
SOFTMAX, EXP, LOG, SIN, COS, ELU): newlib rounds them on its own, and
those stay within the ulp bounds docs/coverage.md states; and a float32 NaN made by an invalid
operation (inf - inf, 0 * inf), which is each machine's default NaN: 0xFFC00000 on x86 (as
LiteRT's there), 0x7FC00000 on the Cortex-M4. An input an op refuses at run time (an index or
divisor out of range, an int8 RSQRT input below its zero point) is made valid. The export's refusal of an op
without a kernel is checked once, without the toolchain.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy as np
import pytest

import arenaplan as ap
from arenaplan import _core
from arenaplan.errors import ArenaplanError, UnsupportedModel
from arenaplan.model.model import Model, Operator
from arenaplan.ops import coverage
from arenaplan.ops.lowering import REFERENCES
from arenaplan.planning.context import PlanContext
from conftest import ROOT

from harness.firmware import build as fw  # noqa: E402

CPU = "cortex-m4"
ISA = "arm-dsp"
#: float32 rows whose kernels call the C library's expf / tanhf (and logf, sinf, cosf, expm1f).
TRANSCENDENTAL = {"LOGISTIC", "TANH", "SOFTMAX", "LOG_SOFTMAX", "EXP", "LOG", "SIN", "COS", "ELU"}
#: Bytes of the board's RAM and flash kept for what is not an export: the runtime's code,
#: the C library, the harness's buffers, heap and stack.
RAM_RESERVE = 512 << 10
FLASH_RESERVE = 1 << 20
#: The inputs' seed (with the row's and the probe's index).
SEED = 27


# --- the rows and their probes ---------------------------------------------------------------
def _row_key(row: dict) -> Tuple[str, str]:
    return row["name"], row["types"]


def _svdf_visible() -> Model:
    """The SVDF probe with an output scale its sums show at (the probe's output is 0 whatever
    its input) and a bias that leaves some sums above RELU's zero."""
    p = coverage._Probe()
    x = p.x((1, 24), "int8", 0.05, 0)
    wf = p.const(coverage._weights((16, 24)), "int8", 0.01, 0)
    wt = p.const(np.arange(64).reshape(16, 4) % 9 - 4, "int16", 1e-3, 0)
    b = p.const(np.arange(8) * 50 - 200, "int32", 1e-4, 0)
    state = p.t((1, 64), "int16", 2e-3, 0, variable=True)
    y = p.t((1, 8), "int8", 2e-4, 3)
    return p.model("SVDF", (x, wf, wt, b, state), (y,), rank=2, fused_activation_function="RELU")


#: Ops whose output is one value whatever their input.
ONE_VALUE_OPS = {"ZEROS_LIKE"}

#: Models run beside a row's probes where the probes' outputs do not depend on their inputs.
EXTRA = {("SVDF", "s8"): [_svdf_visible]}


def _probes(key: Tuple[str, str]):
    """The coverage table's probe models of one row and this file's extra ones (None when the
    coverage table has no probe for the row)."""
    probes = coverage.probe_models(key)
    if probes is None:
        return None
    return lambda: probes() + [make() for make in EXTRA.get(key, [])]


def ulp_bounds() -> Dict[str, int]:
    """The Cortex-M4 (newlib) bounds docs/coverage.md states for the float32 transcendental
    rows, read from its text: {op: ulp}."""
    text = " ".join((ROOT / "docs" / "coverage.md").read_text().split())
    found = {}
    for op, pattern in {"LOGISTIC": r"at most (\d+) ulp from LiteRT for LOGISTIC",
                        "TANH": r"(\d+) ulp for TANH", "SOFTMAX": r"(\d+) ulp for SOFTMAX",
                        "LOG_SOFTMAX": r"(\d+) ulp for LOG_SOFTMAX",
                        **{op: r"at most (\d+) ulp from LiteRT for EXP" for op in ("EXP", "LOG", "ELU")},
                        "SIN": r"up to (\d+) ulp \(SIN\)", "COS": r"(\d+) ulp \(COS\)",
                        "UNIDIRECTIONAL_SEQUENCE_LSTM": r"newlib is at most (\d+) ulp from the host on the "
                                                        r"float32 LSTM's probe models"}.items():
        m = re.search(pattern, text)
        assert m, f"docs/coverage.md no longer states the Cortex-M4 ulp bound of float32 {op}"
        found[op] = int(m.group(1))
    return found


def test_every_row_has_a_probe_model():
    missing = [f"{n} ({t})" for n, t in map(_row_key, _core.ops()) if _probes((n, t)) is None]
    assert not missing, ("op table rows without a probe model in arenaplan.ops.coverage, so not run "
                         "on the Cortex-M4: " + ", ".join(missing))


# --- inputs ----------------------------------------------------------------------------------
#: float32 edges at the front of an "edges" input: signed zeros, subnormals, values where expf
#: and tanhf saturate or overflow, the largest finite values.
FLOAT_EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-40, -1e-45, 88.7, -87.3, 9.0, -9.0,
                        3.4e38, -3.4e38, 1e30, -1e30], np.float32)
#: float32 edges at its end (so they leave the first rows of a reduction finite).
FLOAT_TAIL = np.array([np.inf, -np.inf, np.nan], np.float32)
KINDS = ("random", "edges")


def _input(tensor, rng: np.random.Generator, kind: str) -> np.ndarray:
    """A seeded input of the tensor's shape and type. "random": values about the zero point at
    magnitudes from one step to the type's whole range (float32: normal values over five
    decades). "edges": values uniform over the type's range with its least and greatest
    values, the zero point and its neighbours at the front and a block each of the least and
    the greatest value (saturating sums and windows); float32: signed zeros, subnormals, the
    largest finite values at the front, infinities and NaN at the end."""
    shape, size = tensor.shape, int(np.prod(tensor.shape))
    if tensor.dtype == "float32":
        x = (rng.standard_normal(size) * 10.0 ** rng.uniform(-3, 2, size)).astype(np.float32)
        if kind == "edges":
            edges = np.concatenate([FLOAT_EDGES, FLOAT_TAIL])[:size]
            x[:len(edges) - len(FLOAT_TAIL)] = edges[:-len(FLOAT_TAIL)]
            x[size - len(FLOAT_TAIL):] = edges[-len(FLOAT_TAIL):]
        return x.reshape(shape)
    if tensor.dtype == "bool":   # "edges": all false, then all true, then mixed
        x = rng.integers(0, 2, size=size).astype(bool)
        if kind == "edges":
            x[:size // 3] = False
            x[size // 3:2 * size // 3] = True
        if size == 1:   # a one-element bool (FILL's value): each kind one of the two values, not chance's
            x[:] = kind == "edges"
        return x.reshape(shape)
    info = np.iinfo(tensor.dtype)
    zp = tensor.quantization.zero_point[0] if tensor.quantization else 0
    if kind == "random":   # magnitudes from the zero point's neighbours to the whole range
        bits = np.log2(float(info.max) + 1)
        x = zp + rng.standard_normal(size) * 2.0 ** rng.uniform(0, bits, size)
        hi = np.nextafter(float(info.max), 0.0) if info.bits == 64 else info.max   # int64: 2^63 is no int64
        return np.clip(np.round(x), info.min, hi).astype(tensor.dtype).reshape(shape)
    x = rng.integers(info.min, int(info.max) + 1, size=size).astype(tensor.dtype)
    if kind == "edges":
        edges = np.array([info.min, info.max, zp, 0, info.min + 1, info.max - 1, zp + 1, zp - 1],
                         np.int64).clip(info.min, info.max).astype(tensor.dtype)
        x[:min(size, len(edges))] = edges[:size]
        if size >= 32:
            block = size // 8
            x[size // 2:size // 2 + block] = info.min
            x[size // 2 + block:size // 2 + 2 * block] = info.max
    return x.reshape(shape)


# --- the cases ---------------------------------------------------------------------------------
@dataclass
class Case:
    model: str                   # "ADD (s8) probe 1"
    variant: str
    kind: str                    # the input: "random" or "edges"
    rules: List[str]             # the rounding rules whose export this is
    row: Tuple[str, str]
    family: str                  # the variant's family (the coverage table's name for it)
    plan: ap.Plan
    inputs: List[np.ndarray]
    want: List[np.ndarray]
    export: object

    @property
    def label(self) -> str:
        return f"{self.model} / {'='.join(self.rules)} / {self.variant} / {self.kind} input"


def _body(source: Path, name: str) -> str:
    """An export's code without its banner (the plan's description: the rounding rule's name
    is there even where the rule changes nothing in the code) and with its name made K."""
    text = source.read_text()
    return text[text.index("*/") + 2:].replace(name, "K").replace(name.upper(), "K")


def _host_run(plan: ap.Plan, xs: List[np.ndarray]) -> List[np.ndarray]:
    want = ap.Interpreter(plan).run(xs if len(xs) > 1 else xs[0])
    return [np.asarray(w) for w in (want if isinstance(want, list) else [want])]


def _tame(x: np.ndarray, zero_point: int = 0) -> np.ndarray:
    """x with its int32 and int64 values made 1 to 3 and its float zeros 1: valid indices
    (GATHER, EMBEDDING_LOOKUP) and divisors (FLOOR_DIV, FLOOR_MOD) for every probe, whose
    index axes are longer than 3; int8 values at or below the zero point made the one above
    it (the int8 DIV divisor and RSQRT input)."""
    if x.dtype.kind == "i" and x.dtype.itemsize >= 4:
        return (np.abs(x.astype(np.int64)) % 3 + 1).astype(x.dtype)
    if x.dtype == np.int8:
        return np.where(x <= zero_point, np.int8(min(zero_point + 1, 127)), x).astype(np.int8)
    if x.dtype.kind == "f":   # no zero divisor (the float32 FLOOR_DIV refuses one too)
        return np.where(x == 0, np.float32(1.0), x).astype(x.dtype)
    return x


def cases(work: Path, only=None) -> List[Case]:
    """Every (row, probe, rounding rule, arm-dsp variant) plan, exported under work/src once per
    input kind (k<i>, one invoke each); a rule whose export is the same code as another's is
    run once. ``only``: the (name, types) rows to take (all where None)."""
    found: List[Case] = []
    for r, row in enumerate(_core.ops()):
        key = _row_key(row)
        if only is not None and key not in only:
            continue
        probes = _probes(key)
        assert probes is not None, f"op table row {key} has no probe model in arenaplan.ops.coverage"
        for m, model in enumerate(probes()):
            rng = np.random.default_rng([SEED, r, m])
            feeds = {kind: [_input(model.tensors[t], rng, kind) for t in model.inputs] for kind in KINDS}
            refused, seen = [], {}
            for reference in REFERENCES:
                try:
                    ctx = PlanContext.build(model, isa=ISA, reference=reference)
                except UnsupportedModel as exc:   # SUM's int8 row runs under tflm only
                    refused.append(str(exc))
                    continue
                for variant in ctx.kernels[-1].variants:
                    plan = ctx.make([variant], "size", with_greedy=False)
                    assert plan.verify() and plan.isa == ISA and plan.choices == [variant.name]
                    for kind, xs in feeds.items():
                        name = f"k{len(found)}"
                        export = plan.export_c(work / "src", name=name)
                        body = (_body(export.source, name), kind)
                        if body in seen:      # the other rule's code exactly: nothing new to run
                            found[seen[body]].rules.append(reference)
                            continue
                        seen[body] = len(found)
                        try:
                            want = _host_run(plan, xs)
                        except ArenaplanError:   # an index or a divisor the op refuses at run time
                            xs[:] = [_tame(x, model.tensors[t].quantization.zero_point[0]
                                           if model.tensors[t].quantization else 0)
                                     for x, t in zip(xs, model.inputs)]
                            want = _host_run(plan, xs)
                        found.append(Case(f"{key[0]} ({key[1]}) probe {m}", variant.name, kind, [reference],
                                          key, variant.family or variant.name, plan, xs, want, export))
            assert len(refused) < len(REFERENCES), f"{key} probe {m}: every rule refuses it: {refused}"
    return found


def pack(exports: Sequence, board: fw.Board) -> List[List[int]]:
    """Export indices grouped into images, in order, each within the board's RAM and flash (less
    the reserves): RAM holds an export's pools and state, flash its constants, inputs and an
    allowance for its tables and entry point."""
    ram_budget, flash_budget = board.ram[1] - RAM_RESERVE, board.flash[1] - FLASH_RESERVE
    images: List[List[int]] = [[]]
    ram = flash = 0
    for k, e in enumerate(exports):
        need_ram = sum(e.pool_bytes.values()) + e.state_bytes + 64
        need_flash = e.const_bytes + 4 * sum(e.input_bytes) + 8192   # inputs as decimal text
        assert need_ram <= ram_budget and need_flash <= flash_budget, f"export {k} alone exceeds the board"
        if images[-1] and (ram + need_ram > ram_budget or flash + need_flash > flash_budget):
            images.append([])
            ram = flash = 0
        images[-1].append(k)
        ram += need_ram
        flash += need_flash
    return images


def test_pack_keeps_each_image_within_the_board():
    """Exports that do not fit one image together go into several, in order, each within the
    board's RAM and flash less the reserves."""
    from types import SimpleNamespace
    e = SimpleNamespace(pool_bytes={"arena": 40_000}, state_bytes=1_000, const_bytes=30_000,
                        input_bytes=(1_000,))
    small = fw.Board("test", (0, FLASH_RESERVE + 200_000), (0, RAM_RESERVE + 100_000), 40.0)
    assert pack([e] * 5, small) == [[0, 1], [2, 3], [4]]                  # RAM: two at a time
    tight = fw.Board("test", (0, FLASH_RESERVE + 100_000), (0, RAM_RESERVE + 500_000), 40.0)
    assert pack([e] * 5, tight) == [[0, 1], [2, 3], [4]]                  # flash: two at a time
    big = fw.Board("test", (0, 4 << 20), (0, 4 << 20), 40.0)
    assert pack([e] * 5, big) == [[0, 1, 2, 3, 4]]


# --- the run ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def board_run(tmp_path_factory):
    """Every case, its board outputs (one list of arrays per case) and the figures."""
    missing = fw.missing_arm_tools()
    if missing:
        pytest.skip(f"Cortex-M toolchain not installed ({', '.join(missing)}); "
                    "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm")
    t0 = time.perf_counter()
    work = tmp_path_factory.mktemp("every-op")
    found = cases(work)
    t_host = time.perf_counter() - t0
    cpu = fw.ARM_CPUS[CPU]
    runtime = fw.cached_runtime(fw.ARM_CC, fw.arm_flags(cpu), cpu.name)
    images = pack([c.export for c in found], cpu.board)
    outputs: List[List[np.ndarray]] = [None] * len(found)
    for i, members in enumerate(images):
        image = fw.build_arm_batch([found[k].export for k in members], cpu, runtime, work / f"image{i}",
                                   inputs=[found[k].inputs for k in members])
        raws, instructions = fw.run_batch(image, len(members))
        for k, raw, n in zip(members, raws, instructions):
            assert n > 0
            outputs[k] = fw.split_outputs(raw, [(w.dtype, w.shape) for w in found[k].want])
    figures = dict(rows=len({c.row for c in found}), plans=len({id(c.plan) for c in found}),
                   exports=len(found), images=len(images), host_s=t_host, total_s=time.perf_counter() - t0)
    print(f"\nevery op on the {CPU}: {figures['rows']} rows, {figures['plans']} plans, "
          f"{figures['exports']} exports in {figures['images']} image(s); host {t_host:.1f} s, "
          f"total {figures['total_s']:.1f} s")
    return found, outputs, figures


def ordered(x: np.ndarray) -> np.ndarray:
    """float32 bits as integers in the order of the values (-0 and +0 one apart)."""
    i = np.asarray(x, np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF) - 1, i)


def ulp_diff(got: np.ndarray, want: np.ndarray) -> int:
    """The largest difference in float32 ulp (NaN against NaN counts 0, NaN against a number
    more than any bound)."""
    got, want = got.reshape(-1), want.reshape(-1)
    d = np.abs(ordered(got) - ordered(want))
    d[np.isnan(got) & np.isnan(want)] = 0
    d[np.isnan(got) != np.isnan(want)] = 1 << 40
    return int(d.max()) if d.size else 0


#: The NaN an invalid float32 operation (inf - inf, 0 * inf) gives: the machine's default NaN.
X86_DEFAULT_NAN, ARM_DEFAULT_NAN = 0xFFC00000, 0x7FC00000


def _tanh_activation(case: Case) -> bool:
    """A float32 op with a fused TANH (the float32 SVDF's: tanhf, TANH's bound; the LSTM's, whose
    gates call expf and tanhf too: its own bound)."""
    return any(op.options.get("fused_activation_function") == "TANH" for op in case.plan.model.operators)


def _same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where the board's output equals the host's bit for bit; float32 allows one difference,
    the machines' own: where the host's output is x86's default NaN, made by an invalid
    operation, the Cortex-M4's is its default NaN (a NaN passed on from the input keeps its
    bits on both)."""
    same = got.view(np.uint8).reshape(got.size, -1) == want.view(np.uint8).reshape(want.size, -1)
    same = same.all(axis=1)
    if got.dtype == np.float32:
        g, w = got.reshape(-1).view(np.uint32), want.reshape(-1).view(np.uint32)
        same |= (w == X86_DEFAULT_NAN) & (g == ARM_DEFAULT_NAN)
    return same


def test_every_row_runs_on_the_cortex_m4(board_run):
    found, outputs, figures = board_run
    bounds = ulp_bounds()
    wrong, worst = [], {}
    for case, got in zip(found, outputs):
        name, types = case.row
        for g, w in zip(got, case.want):
            if types == "f32" and (name in TRANSCENDENTAL or _tanh_activation(case)):
                d = ulp_diff(g, w)
                worst[name] = max(worst.get(name, 0), d)
                bound = bounds[name if name in bounds else "TANH"]
                if d > bound:
                    wrong.append(f"{case.label}: {d} ulp from the host, bound {bound}")
                continue
            same = _same_bits(g, w)
            if not same.all():
                i = np.flatnonzero(~same)[:4]
                wrong.append(f"{case.label}: {int((~same).sum())} of {same.size} outputs differ, e.g. at "
                             f"{i.tolist()}: {g.reshape(-1)[i].tolist()} vs {w.reshape(-1)[i].tolist()}")
    print(f"float32 transcendental rows on the {CPU}, largest ulp from the host: {worst}")
    assert not wrong, f"{len(wrong)} of {len(found)} runs differ on the {CPU}:\n" + "\n".join(wrong)
    # every row of the op table ran, every one of its arm-dsp variant families at least once,
    # and its outputs took more than one value (a comparison of constants shows little)
    rows = {_row_key(r) for r in _core.ops()}
    assert {c.row for c in found} == rows
    ran = {(c.row, c.family) for c in found}
    for r in coverage.rows():
        cell = r["variants"][ISA]
        for n in {n for ns in (cell.values() if isinstance(cell, dict) else [cell]) for n in ns}:
            assert ((r["name"], r["types"]), n) in ran, f"{r['name']} ({r['types']}): {n} never ran"
    values: Dict[Tuple[str, str], set] = {}
    for case in found:
        values.setdefault(case.row, set()).update(v.tobytes() for out in case.want for v in out.reshape(-1))
    constant = [f"{n} ({t})" for (n, t), v in values.items() if len(v) < 2 and n not in ONE_VALUE_OPS]
    assert not constant, "rows whose outputs are one value on every input (add a model to EXTRA): " + \
        ", ".join(constant)


# --- the export names what it cannot build ----------------------------------------------------------
def test_export_names_an_op_without_a_kernel(tmp_path):
    """A model whose second op has no kernel plans for memory only (require_kernels=False); its
    export is refused with UnsupportedModel naming that op's index and type, and writes
    nothing."""
    p = coverage._Probe()
    x = p.x((2, 16), "float32", None)
    y = p.t((2, 16), "float32", None)
    z = p.t((2, 16), "float32", None)
    ops = [Operator(0, "RELU", (x,), (y,), {}), Operator(1, "UNIQUE", (y,), (z,), {})]
    model = Model("relu_unique", p.tensors, ops, tuple(p.inputs), (z,), source="test")
    with pytest.raises(UnsupportedModel, match=r"op 1 \(UNIQUE\)"):
        ap.plan(model, isa=ISA)
    plan = ap.plan(model, isa=ISA, require_kernels=False)
    assert plan.unsupported and plan.kernels[0] is not None and plan.kernels[1] is None
    out = tmp_path / "out"
    with pytest.raises(UnsupportedModel, match=r"cannot export.*op 1 \(UNIQUE\): no kernel"):
        plan.export_c(out, name="relu_unique")
    assert not out.exists() or not list(out.iterdir())
