"""C export of a plan for a firmware build: ``export_c(plan, out_dir)``.

Writes ``<name>.h`` and ``<name>.c``. Compiled with ``csrc/runtime/*.c`` (and
nothing else but libc's ``memcpy``/``memset``), they run the plan exactly as
``ap.Interpreter`` runs it on the host: the same graph tables (places, nodes,
operands) that the interpreter hands the C executor, written as const data, and
the same prepared constants (repacked weights, folded biases) as const arrays.

- one statically sized, aligned array per pool (``<name>_pool_<pool>``), each
  with an optional section attribute (the target pool's ``section``, or
  ``sections={"arena": ".dtcm"}``), behind
  ``<NAME>_SECTION``/``<NAME>_ALIGNED`` macros that expand to GCC/Clang
  attributes and to nothing elsewhere (define them yourself for another compiler);
- for a model with variable tensors, ``<name>_state``: the state pool, a static array
  that starts as TFLite's variable tensors do (zero: in .bss; an int8 tensor at its
  zero point: initialised data) and keeps its bytes from one invoke to the next;
  ``<name>_reset_state()`` returns it to that start (a resource variable's start is its
  CALL_ONCE value, kept as a const copy). It goes to the section of the target
  pool that holds it (``plan.state_pool``), or where ``sections={"state": ...}`` says;
- const tables and op params structs (designated initialisers), requantisation
  arrays, prepared blobs and constant tensors: all ``static const``, so a
  firmware link puts them in flash;
- ``int <name>_invoke(const void *const *inputs, void *const *outputs)``: inputs
  and outputs in the model's order; copies the inputs to their place in the
  pools, runs ``ap_graph_invoke`` and copies the outputs out; returns 0 or the
  ``ap_status``. ``<name>_invoke_ex`` also fills an ``ap_error``.
- in the header: ``<NAME>_POOL_<POOL>_BYTES``, ``<NAME>_STATE_BYTES``, ``<NAME>_INPUT<i>_BYTES``,
  ``<NAME>_OUTPUT<i>_BYTES`` (and scale/zero point of quantised inputs and outputs).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from ..errors import InvalidArgument, UnsupportedModel
from ..ops.lowering import ISA_CODES, check_isa
from ..runtime.graph import core_graph, graph_tables
from ..planning.state import STATE_POOL
from ..planning.plan import EXPORTERS, Plan
from .._version import __version__

__all__ = ["ExportedC", "export_c", "c_identifier"]

#: Alignment of every constant array (prepared blobs need 4; 16 suits any SIMD load).
CONST_ALIGNMENT = 16
#: Least alignment of a pool array (raised to the largest buffer alignment in the pool).
POOL_ALIGNMENT = 16

#: The op table (``_core.ops()``) by (op code, tensor-types code): each row's ap_op symbol, params
#: struct and fields.
_OPS = {(row["code"], row["types_code"]): row for row in _core.ops()}
#: The C names of the ap_types values.
_TYPES_SYMBOLS = {"s8": "AP_TYPES_S8", "s16x8": "AP_TYPES_S16X8", "f32": "AP_TYPES_F32", "bool": "AP_TYPES_BOOL",
                  "s32": "AP_TYPES_S32", "s64": "AP_TYPES_S64",
                  "u8": "AP_TYPES_U8"}
_HEADERS = ("conv2d", "depthwise_conv2d", "elementwise", "fully_connected", "pooling",
            "quantize", "shape_ops", "softmax", "svdf", "lstm")
#: The name ``sections=`` gives the state pool (not a pool of the plan).
STATE_SECTION_KEY = "state"

_C_TYPES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "uint16": "uint16_t",
            "int32": "int32_t", "uint32": "uint32_t", "float32": "float", "bool": "uint8_t",
            "int64": "int64_t"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ExportedC:
    """What ``export_c`` wrote, with the sizes a linker map will show."""

    name: str
    header: Path
    source: Path
    pool_bytes: Dict[str, int]        # RAM: one static array per pool
    const_bytes: int                  # flash: prepared blobs, requant arrays, constant tensors
    input_bytes: Tuple[int, ...]
    output_bytes: Tuple[int, ...]
    state_bytes: int = 0              # RAM: the state pool (variable tensors), 0 without one


# --- formatting helpers ----------------------------------------------------------------
def c_identifier(text: str) -> str:
    """``text`` made a C identifier: lower case, runs of other characters become ``_``."""
    ident = re.sub(r"[^0-9a-zA-Z]+", "_", str(text)).strip("_").lower()
    if not ident:
        ident = "model"
    return "m_" + ident if ident[0].isdigit() else ident


def _target_of(kernel, model) -> str:
    """What a node's comment says it writes: its output tensor's name; a JUMP's target."""
    if kernel.output < 0:
        return f"node {kernel.spec['target']}" + (" if false" if kernel.spec["when"] else "")
    return model.tensors[kernel.output].name


def _comment(text: str, limit: int = 72) -> str:
    text = str(text).replace("*/", "* /").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _i32(v: int) -> str:
    v = int(v)
    if not -2**31 <= v < 2**31:
        raise InvalidArgument(f"value {v} does not fit int32_t")
    return "(-2147483647 - 1)" if v == -2**31 else str(v)


def _size(v: int, what: str) -> str:
    v = int(v)
    if not 0 <= v <= 0xFFFFFFFF:
        raise InvalidArgument(f"{what} = {v} does not fit a 32-bit size_t")
    return f"{v}u"


def _float(v: float, suffix: str) -> str:
    v = float(v)
    if not math.isfinite(v):
        raise InvalidArgument(f"constant {v} is not finite; C has no literal for it")
    text = v.hex()            # C99 hexadecimal literal: exact
    mantissa, _, exponent = text.partition("p")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}p{exponent}{suffix}"


def _rows(items: Sequence[str], per_line: int, indent: str = "    ") -> str:
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return (",\n" + indent).join(lines)


class _Source:
    """Collects the definitions of the .c file, naming each array once."""

    def __init__(self, name: str, upper: str) -> None:
        self.name = name
        self.upper = upper
        self.parts: List[str] = []
        self.const_bytes = 0

    def array(self, suffix: str, ctype: str, values: Sequence[str], nbytes: int,
              aligned: bool = False, comment: Optional[str] = None) -> str:
        symbol = f"{self.name}_{suffix}"
        attr = f" {self.upper}_ALIGNED({CONST_ALIGNMENT})" if aligned else ""
        text = f"static const {ctype} {symbol}[{len(values)}]{attr} = {{\n    {_rows(values, 12)}\n}};"
        if comment:
            text = f"/* {_comment(comment)} */\n" + text
        self.parts.append(text)
        self.const_bytes += nbytes
        return symbol

    def int32s(self, suffix: str, values: Iterable[int]) -> str:
        vals = [_i32(v) for v in values]
        return self.array(suffix, "int32_t", vals, 4 * len(vals))

    def blob(self, suffix: str, data: bytes, comment: str) -> str:
        """Bytes as little-endian uint32 words: the runtime reads int32 fields of a
        prepared blob (allowed through uint32_t) and int8 weights (through char types)."""
        raw = bytes(data) + b"\0" * (-len(data) % 4)
        words = np.frombuffer(raw, dtype="<u4")
        return self.array(suffix, "uint32_t", [f"0x{int(w):08x}" for w in words], len(raw),
                          aligned=True, comment=comment)


# --- params structs ----------------------------------------------------------------------
def _scalar(ftype: str, v, what: str) -> str:
    """One value of a params field of scalar type ``ftype`` as a C literal."""
    if ftype in ("int32", "dtype", "int32[]"):
        return _i32(v)
    if ftype == "uint32":
        if not 0 <= int(v) <= 0xFFFFFFFF:
            raise InvalidArgument(f"{what} = {v} does not fit uint32_t")
        return f"{int(v)}u"
    if ftype == "int64":
        v = int(v)
        if not -2**63 <= v < 2**63:
            raise InvalidArgument(f"{what} = {v} does not fit int64_t")
        return "(-9223372036854775807LL - 1)" if v == -2**63 else f"{v}LL"
    if ftype == "size_t":
        return _size(v, what)
    if ftype == "float32":
        return _float(np.float32(v), "f")
    if ftype == "float64[]":
        return _float(v, "")
    if ftype == "int8[]":
        if not -128 <= int(v) <= 127:
            raise InvalidArgument(f"{what} = {v} does not fit int8_t")
        return str(int(v))
    if ftype == "int16[]":
        if not -32768 <= int(v) <= 32767:
            raise InvalidArgument(f"{what} = {v} does not fit int16_t")
        return str(int(v))
    raise InvalidArgument(f"{what}: params field type {ftype!r} has no C export")


def _params(src: _Source, k: int, code: int, spec: dict, what: str, types: int = 0) -> str:
    """Define the op's params struct (and the arrays it points to) from the op table row's
    params descriptor; returns its symbol."""
    row = _OPS.get((code, types))
    if row is None:
        raise InvalidArgument(f"{what}: op code {code} with tensor types {types} is not in the op table")
    names = [f[0] for f in row["params"]]
    if set(spec) != set(names):
        missing, unknown = sorted(set(names) - set(spec)), sorted(set(spec) - set(names))
        raise InvalidArgument(f"{what}: params fields missing {missing}, unknown {unknown} "
                              f"({row['params_type']})")
    pre = f"op{k}"
    fields = []
    for name, ftype, count, _length, _per, _optional in row["params"]:
        value = spec[name]
        field_what = f"{what}: {name}"
        if count == 0:              # a pointer to an array
            if value is None:
                text = "NULL"
            else:
                values = [_scalar(ftype, v, field_what) for v in value]
                ctype, size = {"float64[]": ("double", 8), "int8[]": ("int8_t", 1),
                                "int16[]": ("int16_t", 2)}.get(ftype, ("int32_t", 4))
                text = src.array(f"{pre}_{c_identifier(name)}", ctype, values or ["0"], size * len(values))
        elif count == 1:
            text = _scalar(ftype, value, field_what)
        else:
            text = "{" + ", ".join(_scalar(ftype, v, field_what) for v in value) + "}"
        fields.append(f".{name} = {text}")
    symbol = f"{src.name}_{pre}_params"
    src.parts.append(f"static const {row['params_type']} {symbol} = {{\n    " + _rows(fields, 6) + "\n};")
    return symbol


def _constant(src: _Source, index: int, tensor) -> str:
    data = np.ascontiguousarray(tensor.data)
    dtype = str(data.dtype)
    ctype = _C_TYPES.get(dtype)
    if ctype is None:
        raise InvalidArgument(f"constant tensor {index} ({tensor.name!r}) is {dtype}; "
                              f"the C export writes {', '.join(sorted(_C_TYPES))}")
    flat = data.reshape(-1)
    if dtype == "float32" and not np.isfinite(flat).all():
        # C has no exact literal for inf or a NaN's payload: the bits, as the runtime reads them
        ctype = "uint32_t"
        values = [f"0x{int(b):08x}u" for b in flat.view(np.uint32)]
    elif dtype == "float32":
        values = [_float(v, "f") for v in flat]
    elif dtype == "int32":
        values = [_i32(v) for v in flat]
    elif dtype == "uint32":
        values = [f"{int(v)}u" for v in flat]
    elif dtype == "int64":   # (BROADCAST_ARGS' int64 shapes)
        values = [_scalar("int64", v, f"constant tensor {index}") for v in flat]
    else:
        values = [str(int(v)) for v in flat]
    if not values:
        values = ["0"]
    return src.array(f"const{index}", ctype, values, data.nbytes, aligned=True,
                     comment=f"tensor {index} {tensor.name!r}: {dtype} {list(tensor.shape)}")


# --- the export ----------------------------------------------------------------------------
#: What a compiler defines where each ISA's code can run (csrc/runtime/isa.h decides what the
#: runtime compiles from the same macros): the exported source refuses to build elsewhere.
_ISA_GUARD = {
    "portable": None,
    "x86-avx2": "defined(__x86_64__) || defined(__i386__)",
    "arm-dsp": "defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP",
}


def export_isa(plan, isa: Optional[str] = None) -> str:
    """The ISA an export of ``plan`` targets: ``isa``, else the plan's own (which ap.plan took
    from its target); a plan for another ISA is refused (InvalidArgument naming both)."""
    want = check_isa(isa, "export isa") if isa is not None else plan.isa
    if want not in _ISA_GUARD:
        raise InvalidArgument(f"the C export cannot target {want} (it targets {', '.join(_ISA_GUARD)})")
    if plan.isa != want:
        raise InvalidArgument(f"the plan is for {plan.isa} kernels; the export targets {want}: plan it "
                              f"with isa={want!r} (its variants and scratch are that ISA's)")
    return want


def export_c(plan, out_dir: Union[str, Path], name: Optional[str] = None,
             sections: Optional[Mapping[str, str]] = None, isa: Optional[str] = None) -> ExportedC:
    """Write ``<name>.h`` and ``<name>.c`` for ``plan`` into ``out_dir`` (created if missing).

    Args:
        plan: an ``ap.Plan`` whose every op has a kernel.
        out_dir: directory for the two files.
        name: C prefix of every symbol (an identifier); default: the model's name.
        sections: pool name -> linker section of that pool's array, e.g. {"arena": ".dtcm"};
            "state" names the state pool's (a model with variable tensors). Default: the
            section each target pool declares; the state pool goes to the section of the
            pool that holds it (``plan.state_pool``).
        isa: the instruction set the firmware build runs (default: the plan's); it must be
            the plan's. The source records it in every node's
            variant and refuses to compile (#error) for a core without it.
    Raises UnsupportedModel for a plan with ops without kernels, InvalidPlan if it does
    not verify, InvalidArgument for a bad name, section or unwritable ``out_dir``.
    """
    if not isinstance(plan, Plan):
        raise InvalidArgument(f"export_c needs an arenaplan.Plan, got {type(plan).__name__}")
    if plan.unsupported or plan.kernels is None or any(k is None for k in plan.kernels):
        raise UnsupportedModel("cannot export a plan with ops without kernels: " +
                               "; ".join(plan.unsupported or ["kernels missing"]))
    plan.verify()
    export_isa(plan, isa)
    model = plan.model
    if name is None:
        name = c_identifier(model.name)
    if not isinstance(name, str) or not _IDENT.match(name):
        raise InvalidArgument(f"name {name!r} is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)")
    upper = name.upper()
    pool_bytes = dict(plan.pool_bytes)
    pool_names = list(pool_bytes)
    pool_index = {p: i for i, p in enumerate(pool_names)}
    pool_ident = {p: c_identifier(p) for p in pool_names}
    if len(set(pool_ident.values())) != len(pool_ident):
        raise InvalidArgument(f"pool names {pool_names} are not distinct as C identifiers")
    sections = dict(sections or {})
    has_state = bool(plan.state_buffers)
    state_section = _target_section(plan, plan.state_pool) if has_state else None
    if has_state and STATE_SECTION_KEY in sections:
        if STATE_SECTION_KEY in pool_names:
            raise InvalidArgument(f"sections[{STATE_SECTION_KEY!r}] could mean the plan's pool "
                                  f"{STATE_SECTION_KEY!r} or the state pool; rename the pool")
        state_section = sections.pop(STATE_SECTION_KEY)
    unknown = sorted(set(sections) - set(pool_names))
    if unknown:
        known = pool_names + ([STATE_SECTION_KEY] if has_state else [])
        raise InvalidArgument(f"sections name pool(s) {unknown}; the plan's pools are {known}")
    if state_section is not None and (not isinstance(state_section, str) or
                                      not re.match(r"^[A-Za-z0-9_.$]+$", state_section)):
        raise InvalidArgument(f"section {state_section!r} of the state pool is not a plain section name "
                              "(letters, digits, '_', '.', '$')")
    for pool, sec in sections.items():
        if not isinstance(sec, str) or not re.match(r"^[A-Za-z0-9_.$]+$", sec):
            raise InvalidArgument(f"section {sec!r} of pool {pool!r} is not a plain section name "
                                  "(letters, digits, '_', '.', '$')")
    target_pools = {tp.name: tp for tp in getattr(getattr(plan, "target", None), "pools", None) or []}
    pool_align = {p: max([POOL_ALIGNMENT, int(getattr(target_pools.get(p), "alignment", 1))] +
                         [b.alignment for b in plan.buffers if b.pool == p])
                  for p in pool_names}
    # where each pool's bytes live: a static array, a local array of the entry point
    # (a target's "stack" pool), or nowhere (an empty pool: C has no zero-length arrays)
    storage = {p: "none" if int(pool_bytes[p]) == 0 else
               "stack" if getattr(target_pools.get(p), "kind", None) == "stack" else "static"
               for p in pool_names}
    # a target pool's own section holds its array unless sections= says otherwise
    for p in pool_names:
        declared = _target_section(plan, p)
        if storage[p] == "static" and p not in sections and declared:
            sections[p] = declared
    misplaced = sorted(p for p in sections if storage[p] != "static")
    if misplaced:
        raise InvalidArgument(f"pool(s) {misplaced} have no static array to place in a section "
                              "(empty, or a stack pool)")

    places, nodes, where = graph_tables(plan)
    core_graph(plan, (places, nodes, where))

    src = _Source(name, upper)
    # constants first: params structs and blobs that the tables point to
    const_symbol: Dict[int, str] = {}
    for pool, _, _, data, key in places:
        if pool is None:
            const_symbol[key] = _constant(src, key, model.tensors[key])
    node_rows, operands = [], []
    for k, (kernel, variant, ins, out, scratch, states) in enumerate(nodes):
        what = f"op {kernel.index} ({kernel.type})"
        params = _params(src, k, kernel.code, kernel.spec, what, kernel.types)
        row = _OPS[(kernel.code, kernel.types)]
        prepared = kernel.prepared()
        prep = "NULL"
        if prepared is not None:
            prep = src.blob(f"op{k}_prepared", bytes(prepared),
                            f"op {kernel.index} {kernel.type}: prepared constants "
                            f"({len(prepared)} bytes: repacked weights, folded bias)")
        inputs_at = len(operands)
        operands += ins
        scratch_at = len(operands)
        operands += scratch
        state_at = len(operands)
        operands += states
        requests = ", ".join(f"{{ .bytes = {_size(b, 'scratch bytes')}, .alignment = {_size(a, 'alignment')} }}"
                             for b, a in variant.scratch) or "{ 0u, 0u }"
        node_rows.append(
            f"    {{ /* {k}: {_comment(kernel.type)} -> {_comment(_target_of(kernel, model))} */\n"
            f"        .op = {row['symbol']}, .types = {_TYPES_SYMBOLS[row['types']]}, .params = &{params}, "
            f".prepared = {prep},\n"
            f"        .variant = {{ .kind = {_i32(variant.kind)}, .param = {_i32(variant.param)}, "
            f".name = \"{variant.name}\", .scratch_count = {len(variant.scratch)}u,\n"
            f"                     .scratch = {{ {requests} }}, .macs = {int(variant.macs)}ull, "
            f".in_place = {int(variant.in_place)}, .isa = {ISA_CODES[plan.isa]} /* {plan.isa} */ }},\n"
            f"        .inputs_at = {inputs_at}u, .input_count = {len(ins)}u, .output = {out}u, "
            f".scratch_at = {scratch_at}u, .scratch_count = {len(scratch)}u,\n"
            f"        .state_at = {state_at}u, .state_count = {len(states)}u }}")
    place_rows = []
    pool_index = dict(pool_index, **{STATE_POOL: len(pool_names)})
    for i, (pool, offset, nbytes, data, key) in enumerate(places):
        if pool is None:
            place_rows.append(f"    {{ -1, 0u, {_size(nbytes, 'bytes')}, {const_symbol[key]} }}, "
                              f"/* {i}: constant tensor {key} */")
        else:
            label = (f"scratch {key}" if not isinstance(key, int) else
                     f"state of tensor {key} {model.tensors[key].name!r}" if pool == STATE_POOL else
                     f"tensor {key} {model.tensors[key].name!r}")
            place_rows.append(f"    {{ {pool_index[pool]}, {_size(offset, 'offset')}, "
                              f"{_size(nbytes, 'bytes')}, NULL }}, /* {i}: {_comment(label)} */")

    ins_t = [model.tensors[t] for t in model.inputs]
    outs_t = [model.tensors[t] for t in model.outputs]
    for t in ins_t + outs_t:
        if t.index not in where:
            raise InvalidArgument(f"model input/output tensor {t.index} ({t.name!r}) has no place in the plan")

    header = _header(plan, name, upper, pool_names, pool_ident, pool_bytes, pool_align, storage,
                     ins_t, outs_t, src.const_bytes)
    source = _source(plan, name, upper, src, pool_names, pool_ident, pool_align, storage, sections,
                     place_rows, operands, node_rows, ins_t, outs_t, where, state_section)
    out = Path(out_dir)
    h_path, c_path = out / f"{name}.h", out / f"{name}.c"
    try:
        out.mkdir(parents=True, exist_ok=True)
        h_path.write_text(header)
        c_path.write_text(source)
    except OSError as exc:
        raise InvalidArgument(f"cannot write the C export to {str(out)!r}: "
                              f"{exc.strerror or exc}") from exc
    return ExportedC(name, h_path, c_path, pool_bytes, src.const_bytes,
                     tuple(t.nbytes for t in ins_t), tuple(t.nbytes for t in outs_t), plan.state_bytes)


def _banner(plan) -> str:
    m = plan.model
    target = getattr(plan, "target", None)
    target_name = getattr(target, "name", target)
    return (f"/*\n * Generated by arenaplan {__version__}: do not edit.\n"
            f" * model {_comment(m.name)} (sha256 {m.digest}), {len(m.operators)} ops; "
            f"mode {plan.mode}, isa {plan.isa}, rounding as {plan.reference}"
            + (f", target {_comment(target_name)}" if target_name else "") + ".\n"
            " * pools: " + ", ".join(f"{p} {b} B" for p, b in plan.pool_bytes.items()) +
            f"; lower bound {plan.lower_bound_bytes} B.\n"
            f" * variants: " + ", ".join(f"{i}:{c}" for i, c in enumerate(plan.choices)) + "\n */\n")


def _quant_macros(prefix: str, t) -> List[str]:
    q = t.quantization
    if q is None or len(q.scale) != 1:
        return []
    return [f"#define {prefix}_SCALE {_float(np.float32(q.scale[0]), 'f')} /* {float(np.float32(q.scale[0])):.9g} */",
            f"#define {prefix}_ZERO_POINT {int(q.zero_point[0]) if q.zero_point else 0}"]


def _header(plan, name, upper, pool_names, pool_ident, pool_bytes, pool_align, storage,
            ins_t, outs_t, const_bytes) -> str:
    lines = [_banner(plan), f"#ifndef {upper}_H", f"#define {upper}_H", "",
             "#include <stddef.h>", "#include <stdint.h>", "", '#include "arenaplan/status.h"', "",
             "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
             f"/** Pools, {upper}_POOL_<POOL>_BYTES each: a static array (RAM), or for a stack",
             f"    pool a local array of {name}_invoke_ex (on the caller's stack). */",
             f"#define {upper}_POOL_COUNT {len(pool_names)}"]
    where = {"static": "static array", "stack": "on the stack of the entry point", "none": "empty"}
    for p in pool_names:
        lines.append(f"#define {upper}_POOL_{pool_ident[p].upper()}_BYTES {int(pool_bytes[p])}u "
                     f"/* pool {_comment(p)!r}: {where[storage[p]]}, aligned to {pool_align[p]} */")
    if plan.state_buffers:
        lines += ["", f"/** The state pool: {len(plan.state_buffers)} variable tensors that persist between "
                  "invokes (RAM). */",
                  f"#define {upper}_STATE_BYTES {int(plan.state_bytes)}u"]
    lines += ["", "/** Flash taken by the constants (prepared weights, requant arrays, constant tensors). */",
              f"#define {upper}_CONST_BYTES {const_bytes}u", "",
              "/** Model inputs and outputs, in the model's order (bytes of each buffer). */",
              f"#define {upper}_INPUT_COUNT {len(ins_t)}"]
    for kind, tensors in (("INPUT", ins_t), ("OUTPUT", outs_t)):
        if kind == "OUTPUT":
            lines.append(f"#define {upper}_OUTPUT_COUNT {len(outs_t)}")
        for i, t in enumerate(tensors):
            lines.append(f"#define {upper}_{kind}{i}_BYTES {t.nbytes}u /* {_comment(t.name)!r}: "
                         f"{t.dtype} {list(t.shape)} */")
            lines += _quant_macros(f"{upper}_{kind}{i}", t)
    lines += [""]
    for p in pool_names:
        if storage[p] == "static":
            lines.append(f"extern uint8_t {name}_pool_{pool_ident[p]}[{upper}_POOL_{pool_ident[p].upper()}_BYTES];")
    if plan.state_buffers:
        lines.append(f"extern uint8_t {name}_state[{upper}_STATE_BYTES];")
    lines += ["",
              "/**",
              " * Run the model once. inputs[i] points to INPUT<i>_BYTES bytes (the model's input i),",
              " * outputs[i] to OUTPUT<i>_BYTES writable bytes; both arrays in the model's order.",
              " * Uses only the static pools and the stack (no allocation). Not reentrant: one run",
              " * at a time (the pools are shared). Returns 0, or the ap_status of the failure.",
              *([" * The variable tensors (the state pool) carry over from one invoke to the next."]
                if plan.state_buffers else []),
              " */",
              f"int {name}_invoke(const void *const *inputs, void *const *outputs);",
              "",
              f"/** {name}_invoke, filling *error_out (if not NULL) with what failed: which op, bytes. */",
              f"int {name}_invoke_ex(const void *const *inputs, void *const *outputs, ap_error *error_out);",
              ""]
    if plan.state_buffers:
        lines += ["/** Return every variable tensor to its start (TFLite: 0, an int8 tensor its zero point),",
                  "    as at power-up: the next invoke starts a new sequence. */",
                  f"void {name}_reset_state(void);", ""]
    lines += ["#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(lines)


def _target_section(plan, pool: Optional[str]) -> Optional[str]:
    """The linker section the plan's target gives ``pool`` (None: none, or no target)."""
    pools = getattr(getattr(plan, "target", None), "pools", None)
    if not pools or pool is None:
        return None
    return next((p.section for p in pools if p.name == pool), None)


def _state_source(plan, name: str, upper: str, state_section: Optional[str]) -> List[str]:
    """The state pool's array and its reset function."""
    align = max([POOL_ALIGNMENT] + [b.alignment for b in plan.state_buffers])
    sec = f" {upper}_SECTION(\"{state_section}\")" if state_section else ""
    decl = f"uint8_t {name}_state[{upper}_STATE_BYTES] {upper}_ALIGNED({align}){sec}"
    lines = ["", "/* ---- state: variable tensors, persistent between invokes (RAM) ---- */"]
    image = bytearray(plan.state_bytes)
    for b in plan.state_buffers:
        image[b.offset:b.offset + b.size] = b.start()
    initialised = [b for b in plan.state_buffers if b.initial is not None]
    if not any(image):
        lines.append(decl + ";")
    else:
        lines.append(decl + " = {\n    " + _rows([str(v) for v in image], 24) + "\n};")
    for k, b in enumerate(initialised):   # resource variables' CALL_ONCE values, kept for reset
        lines += [f"static const uint8_t {name}_state_initial_{k}[{b.size}u] = {{",
                  "    " + _rows([str(v) for v in b.initial], 24), "};"]
    lines += ["", f"void {name}_reset_state(void)", "{"]
    for b in plan.state_buffers:
        if b.initial is None:
            lines.append(f"    memset({name}_state + {b.offset}u, {b.fill}, {b.size}u); /* {_comment(b.name, 48)} */")
        else:
            lines.append(f"    memcpy({name}_state + {b.offset}u, {name}_state_initial_{initialised.index(b)}, "
                         f"{b.size}u); /* {_comment(b.name, 48)}: its initial value */")
    lines += ["}"]
    return lines


def _source(plan, name, upper, src, pool_names, pool_ident, pool_align, storage, sections, place_rows,
            operands, node_rows, ins_t, outs_t, where, state_section=None) -> str:
    has_state = bool(plan.state_buffers)
    graph_pools = len(pool_names) + (1 if has_state else 0)
    guard = _ISA_GUARD[plan.isa]
    isa_check = [] if guard is None else [
        f"/* The plan's kernels are {plan.isa} code: build this file for a core that has it. */",
        f"#if !({guard})", f'#error "{name}: the plan is for {plan.isa}; this build targets another ISA"',
        "#endif", ""]
    lines = [_banner(plan), f'#include "{name}.h"', "", *isa_check, "#include <string.h>", "",
             '#include "arenaplan/executor.h"']
    lines += [f'#include "arenaplan/{h}.h"' for h in _HEADERS]
    lines += ["",
              "#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \\",
              "    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__",
              "#error \"the prepared constants were made on a little-endian host\"",
              "#endif", "",
              "/* Placement attributes: GCC/Clang spellings; predefine these for another compiler. */",
              f"#ifndef {upper}_ALIGNED",
              "#if defined(__GNUC__) || defined(__clang__)",
              f"#define {upper}_ALIGNED(n) __attribute__((aligned(n)))",
              "#else",
              f"#define {upper}_ALIGNED(n)",
              "#endif", "#endif",
              f"#ifndef {upper}_SECTION",
              "#if defined(__GNUC__) || defined(__clang__)",
              f"#define {upper}_SECTION(s) __attribute__((section(s)))",
              "#else",
              f"#define {upper}_SECTION(s)",
              "#endif", "#endif", "",
              "/* ---- pools (RAM) ---- */"]
    def array(p: str) -> str:
        return (f"uint8_t {name}_pool_{pool_ident[p]}[{upper}_POOL_{pool_ident[p].upper()}_BYTES] "
                f"{upper}_ALIGNED({pool_align[p]})")

    for p in pool_names:
        if storage[p] == "static":
            sec = f" {upper}_SECTION(\"{sections[p]}\")" if p in sections else ""
            lines.append(array(p) + sec + ";")
    if has_state:
        lines += _state_source(plan, name, upper, state_section)
    lines += ["", "/* ---- constants (flash) ---- */"] + src.parts
    lines += ["", "/* ---- graph tables ---- */",
              f"static const ap_place {name}_places[{len(place_rows)}] = {{", *place_rows, "};",
              f"static const uint32_t {name}_operands[{max(len(operands), 1)}] = {{",
              "    " + _rows([f"{o}u" for o in operands] or ["0u"], 16), "};",
              f"static const ap_node {name}_nodes[{len(node_rows)}] = {{", ",\n".join(node_rows), "};",
              f"static const ap_graph {name}_graph = {{ {name}_nodes, {len(node_rows)}u, {name}_places, "
              f"{len(place_rows)}u, {name}_operands, {len(operands)}u }};",
              f"static const size_t {name}_pool_bytes[{graph_pools}] = {{ " +
              ", ".join([f"{upper}_POOL_{pool_ident[p].upper()}_BYTES" for p in pool_names] +
                        ([f"{upper}_STATE_BYTES"] if has_state else [])) + " };",
              f"static const size_t {name}_pool_alignment[{upper}_POOL_COUNT] = {{ " +
              ", ".join(f"{pool_align[p]}u" for p in pool_names) + " };", ""]

    def at(t) -> str:
        pool, offset = where[t.index]
        return f"{name}_pool_{pool_ident[pool]} + {offset}u"

    body = [f"int {name}_invoke_ex(const void *const *inputs, void *const *outputs, ap_error *error_out)",
            "{",
            *[f"    {array(p)};" for p in pool_names if storage[p] == "stack"],
            f"    void *pools[{graph_pools}];",
            "    ap_status status;",
            "    uint32_t p;",
            *[f"    pools[{i}] = " + ("NULL;" if storage[p] == "none" else f"{name}_pool_{pool_ident[p]};")
              for i, p in enumerate(pool_names)],
            *([f"    pools[{len(pool_names)}] = {name}_state; /* the state pool */"] if has_state else []),
            "    if (inputs == NULL || outputs == NULL) {",
            "        return (int)AP_ERR_INVALID_ARGUMENT;",
            "    }",
            "    /* A compiler without the alignment attribute may misplace a pool: refuse, never fault. */",
            f"    for (p = 0; p < {upper}_POOL_COUNT; p++) {{",
            f"        if (((uintptr_t)pools[p] & ({name}_pool_alignment[p] - 1u)) != 0) {{",
            "            return (int)AP_ERR_INVALID_ARGUMENT;",
            "        }",
            "    }",
            f"    status = ap_graph_check(&{name}_graph, {name}_pool_bytes, {graph_pools}u, error_out);",
            "    if (status != AP_OK) {",
            "        return (int)status;",
            "    }"]
    for i, t in enumerate(ins_t):
        body += [f"    if (inputs[{i}] == NULL) {{", "        return (int)AP_ERR_INVALID_ARGUMENT;", "    }",
                 f"    memcpy({at(t)}, inputs[{i}], {upper}_INPUT{i}_BYTES);"]
    body += [f"    status = ap_graph_invoke(&{name}_graph, pools, {graph_pools}u, error_out);",
             "    if (status != AP_OK) {", "        return (int)status;", "    }"]
    for i, t in enumerate(outs_t):
        body += [f"    if (outputs[{i}] != NULL) {{",
                 f"        memcpy(outputs[{i}], {at(t)}, {upper}_OUTPUT{i}_BYTES);", "    }"]
    body += ["    return 0;", "}", "",
             f"int {name}_invoke(const void *const *inputs, void *const *outputs)",
             "{", f"    return {name}_invoke_ex(inputs, outputs, NULL);", "}", ""]
    return "\n".join(lines + body)


EXPORTERS["c"] = export_c
