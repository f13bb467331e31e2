"""``arenaplan run``: a model's plan run on the host, on given or generated inputs.

Inputs come from ``.npy`` files (one per model input, in the model's order) or are drawn
from a seeded generator over each input's integer range. Runs follow one another in one
Interpreter, so a stateful model carries its state from run to run. ``check`` compares
every run's outputs with LiteRT's reference kernels, bit for bit.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from ..errors import InvalidArgument
from ..runtime.interpreter import Interpreter
from ..model.model import Model
from ..planning.plan import Plan
from .litert_check import litert_reference_runs

__all__ = ["model_inputs", "RunReport", "run_plan"]


def model_inputs(model: Model, files: Sequence[str] = (), runs: int = 1, seed: int = 0
                 ) -> List[List[np.ndarray]]:
    """Inputs for ``runs`` runs: the same files every run, or fresh seeded draws."""
    tensors = [model.tensors[t] for t in model.inputs]
    if files:
        if len(files) != len(tensors):
            raise InvalidArgument(f"{model.name} takes {len(tensors)} input(s) "
                                  f"({', '.join(t.name for t in tensors)}); {len(files)} file(s) given")
        arrays = []
        for t, f in zip(tensors, files):
            a = _load_npy(f, t)
            if a.dtype != np.dtype(t.dtype) or tuple(a.shape) != tuple(t.shape):
                raise InvalidArgument(f"input file {f!r} holds {a.dtype} {list(a.shape)}; input "
                                      f"{t.name!r} is {t.dtype} {list(t.shape)}")
            arrays.append(a)
        return [arrays for _ in range(runs)]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        xs = []
        for t in tensors:
            dtype = np.dtype(t.dtype)
            if dtype.kind not in "iu":
                raise InvalidArgument(f"input {t.name!r} is {t.dtype}; give it as a .npy file")
            info = np.iinfo(dtype)
            xs.append(rng.integers(info.min, info.max, size=t.shape, dtype=dtype, endpoint=True))
        out.append(xs)
    return out


_NPY_MAGIC = b"\x93NUMPY"


def _load_npy(path, tensor) -> np.ndarray:
    """One input array from a .npy file, or an error that says what the file is."""
    want = f"{tensor.dtype} {list(tensor.shape)} for input {tensor.name!r}"
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_NPY_MAGIC))
    except OSError as exc:
        raise InvalidArgument(f"input file {str(path)!r}: {exc.strerror or exc}") from None
    if head != _NPY_MAGIC:
        raise InvalidArgument(f"input file {str(path)!r} is not a .npy file (it starts with {head!r}, "
                              f"not {_NPY_MAGIC!r}); save the array with numpy.save: {want}")
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as exc:
        reason = ("holds Python objects, which are not read" if "pickle" in str(exc)
                  else f"is damaged ({exc})")
        raise InvalidArgument(f"input file {str(path)!r} {reason}; expected {want}") from None


class RunReport:
    """Outputs of every run, and, when checked, whether LiteRT agreed."""

    def __init__(self, plan: Plan, outputs: List[List[np.ndarray]], checked: Optional[List[bool]],
                 differences: Optional[List["OutputDifference"]] = None):
        self.plan = plan
        self.outputs = outputs
        self.checked = checked
        #: Every output of every run that differs from LiteRT's: where and by how much.
        self.differences = list(differences or [])

    @property
    def bit_exact(self) -> Optional[bool]:
        return None if self.checked is None else all(self.checked)

    def lines(self) -> List[str]:
        m = self.plan.model
        last = self.outputs[-1]
        lines = [f"{m.name}: {len(self.outputs)} run(s), mode {self.plan.mode}, arena "
                 f"{self.plan.arena_bytes:,} B" + (f", state {self.plan.state_bytes:,} B" if self.plan.state_bytes else "")]
        for t, y in zip((m.tensors[i] for i in m.outputs), last):
            head = ", ".join(str(v) for v in y.reshape(-1)[:8]) + (", ..." if y.size > 8 else "")
            top = f"; argmax {int(np.argmax(y.reshape(-1)))}" if y.ndim <= 2 and y.size > 1 else ""
            lines.append(f"  output {t.name!r} {y.dtype} {list(y.shape)}: [{head}]{top}")
        if self.checked is not None:
            agree = sum(self.checked)
            lines.append(f"  LiteRT reference kernels: {agree} of {len(self.checked)} run(s) bit-exact")
            for d in self.differences[:_SHOWN_DIFFERENCES]:
                lines.append(f"    {d}")
            if len(self.differences) > _SHOWN_DIFFERENCES:
                lines.append(f"    ... and {len(self.differences) - _SHOWN_DIFFERENCES} more differing output(s)")
        return lines

    def to_dict(self) -> dict:
        return {"model": self.plan.model.name, "mode": self.plan.mode, "arena_bytes": self.plan.arena_bytes,
                "state_bytes": self.plan.state_bytes, "runs": len(self.outputs),
                "outputs": [[y.tolist() for y in ys] for ys in self.outputs],
                "bit_exact": self.bit_exact,
                "differences": [d.to_dict() for d in self.differences]}


def run_plan(plan: Plan, runs: List[List[np.ndarray]], check: bool = False) -> RunReport:
    """Run ``plan`` on each run's inputs in turn; with ``check``, LiteRT too."""
    it = Interpreter(plan)
    outputs = []
    for xs in runs:
        y = it.run(list(xs))
        outputs.append(y if isinstance(y, list) else [y])
    checked = None
    if check:
        source = plan.model.source
        if not source or source.startswith("zoo:") or not Path(source).is_file():
            raise InvalidArgument(f"checking against LiteRT needs the model's .tflite file; "
                                  f"{plan.model.name} comes from {source or 'code'}")
        want = litert_reference_runs(source, runs)
        checked = [all(np.array_equal(a, b) for a, b in zip(got, ref)) for got, ref in zip(outputs, want)]
        differences = [OutputDifference.of(r, plan.model.tensors[t].name, a, b)
                       for r, (got, ref) in enumerate(zip(outputs, want))
                       for t, a, b in zip(plan.model.outputs, got, ref) if not np.array_equal(a, b)]
        return RunReport(plan, outputs, checked, differences)
    return RunReport(plan, outputs, None)


#: Differing outputs listed in full by ``RunReport.lines`` (the rest are counted).
_SHOWN_DIFFERENCES = 8


class OutputDifference:
    """One output of one run that differs from LiteRT's: how many elements, the largest
    difference, and the first element that differs."""

    def __init__(self, run: int, name: str, count: int, size: int, largest: float,
                 first: tuple, got, want) -> None:
        self.run, self.name, self.count, self.size, self.largest = run, name, count, size, largest
        self.first, self.got, self.want = first, got, want

    @classmethod
    def of(cls, run: int, name: str, got: np.ndarray, want: np.ndarray) -> "OutputDifference":
        if got.shape != want.shape:
            return cls(run, name, got.size, got.size, float("nan"), (), got.shape, want.shape)
        a, b = got.astype(np.float64), want.astype(np.float64)
        differ = ~((a == b) | (np.isnan(a) & np.isnan(b)))
        index = tuple(int(i) for i in np.argwhere(differ)[0])
        gap = np.abs(a - b)[differ]
        return cls(run, name, int(differ.sum()), got.size, float(np.nanmax(gap)) if gap.size else float("nan"),
                   index, got[index].item(), want[index].item())

    def __str__(self) -> str:
        if not self.first:
            return f"run {self.run}, output {self.name!r}: shape {list(self.got)}, LiteRT's {list(self.want)}"
        largest = f"{self.largest:g}"
        return (f"run {self.run}, output {self.name!r}: {self.count} of {self.size} element(s) differ, by "
                f"up to {largest}; first at {list(self.first)}: {self.got} here, {self.want} in LiteRT")

    def to_dict(self) -> dict:
        return {"run": self.run, "output": self.name, "elements": self.count, "of": self.size,
                "largest": self.largest, "first_index": list(self.first), "got": self.got, "want": self.want}
