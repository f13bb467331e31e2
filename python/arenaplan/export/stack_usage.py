"""``stack_usage``: the worst stack of an exported entry point, from GCC's
``-fstack-usage``/``-fcallgraph-info=su`` output of a firmware build (and the frames of
library functions read off its ELF)."""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, Union

from ..errors import ArenaplanError

__all__ = ["StackReport", "stack_usage"]


@dataclass(frozen=True)
class StackReport:
    """Worst stack of one entry point's static call graph."""

    entry: str
    bytes: int                        # the bound: sum of frames along the deepest path
    path: Tuple[Tuple[str, int], ...]  # (function, frame bytes) from the entry down
    library_frames: Dict[str, int] = field(default_factory=dict)   # frames read off the ELF
    indirect_sites: int = 0           # indirect calls, resolved to their file's functions

    def describe(self) -> str:
        return f"{self.bytes} B: " + " -> ".join(f"{f} ({b})" for f, b in self.path)


_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
_FRAME = re.compile(r"(\d+) bytes \(([a-z,]+)\)")
_INDIRECT = "__indirect_call"


def _short(title: str) -> str:
    return title.rsplit(":", 1)[-1]


class _ElfFrames:
    """Frames (bytes pushed or subtracted from sp) and direct callees of functions outside
    GCC's call graph (libc, libgcc helpers like __aeabi_ldivmod), read off the linked ELF's
    Thumb disassembly on first use. A frame is the sum of every sp decrement in the body:
    an over-estimate where several paths each push."""

    def __init__(self, elf: Optional[Path], objdump: str) -> None:
        self.elf = elf
        self.objdump = objdump
        self._funcs: Optional[Dict[str, List[str]]] = None
        self.frames: Dict[str, int] = {}
        self.calls: Dict[str, set] = {}

    def _disassembly(self) -> Dict[str, List[str]]:
        if self._funcs is None:
            text = subprocess.run([self.objdump, "-d", "--no-show-raw-insn", str(self.elf)], check=True,
                                  capture_output=True, text=True).stdout
            funcs: Dict[str, List[str]] = {}
            at: Dict[int, str] = {}
            current = None
            for line in text.splitlines():
                m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
                if m:
                    current = m.group(2)
                    funcs.setdefault(current, [])
                    at[int(m.group(1), 16)] = current
                elif current is not None and "\t" in line:
                    funcs[current].append(line.split("\t", 1)[1].strip())
            # aliases (__aeabi_dadd is __adddf3): objdump labels an address with one name
            nm = Path(self.objdump).name.replace("objdump", "nm")
            symbols = subprocess.run([str(Path(self.objdump).with_name(nm)) if "/" in self.objdump else nm,
                                      str(self.elf)], check=True, capture_output=True, text=True).stdout
            for line in symbols.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TtWw" and parts[2] not in funcs:
                    label = at.get(int(parts[0], 16) & ~1)
                    if label is not None:
                        funcs[parts[2]] = funcs[label]
            self._funcs = funcs
        return self._funcs

    def has(self, f: str) -> bool:
        return self.elf is not None and f in self._disassembly()

    def frame(self, f: str) -> int:
        if f not in self.frames:
            body = self._disassembly()[f]
            frame, callees = 0, set()
            for ins in body:
                op, _, args = ins.partition("\t")
                op = op.strip()
                args = re.split(r"[;@]", args)[0].strip()   # drop "@ 0x68" comments
                if op in ("push", "push.w") or (op in ("stmdb", "stmdb.w") and args.startswith("sp!")):
                    frame += 4 * _register_count(args)
                elif op.startswith("vpush"):
                    frame += (8 if re.search(r"\bd\d", args) else 4) * _register_count(args)
                elif op.startswith("sub") and re.match(r"^sp,\s*(sp,\s*)?#\d+", args):
                    frame += int(args.rsplit("#", 1)[1])
                elif re.search(r"\[sp,\s*#-(\d+)\]!", args):
                    frame += int(re.search(r"\[sp,\s*#-(\d+)\]!", args).group(1))
                elif op in ("bl", "blx", "b", "b.w", "b.n") and "<" in args:
                    # bl/blx: calls; a plain branch to another function's start: a tail call
                    target = re.search(r"<([^>+]+)(\+0x[0-9a-f]+)?>", args)
                    if target and target.group(1) != f and (op in ("bl", "blx") or not target.group(2)):
                        callees.add(target.group(1))
            self.frames[f] = frame
            self.calls[f] = callees
        return self.frames[f]


def _register_count(args: str) -> int:
    regs = re.search(r"\{([^}]*)\}", args)
    if not regs:
        return 0
    count = 0
    for part in regs.group(1).split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            count += int(re.sub(r"\D", "", b)) - int(re.sub(r"\D", "", a)) + 1
        elif part:
            count += 1
    return count


def stack_usage(ci_files: Sequence[Union[str, Path]], entry: str, elf: Optional[Union[str, Path]] = None,
                objdump: str = "arm-none-eabi-objdump",
                objects: Sequence[Union[str, Path]] = ()) -> StackReport:
    """Worst stack of ``entry``: the largest sum of frames along a path of the static call graph.

    ci_files: GCC's ``-fcallgraph-info=su`` output (frames from ``-fstack-usage``) of the
    files to analyse (the export and csrc/runtime); objects: the matching .o files. From
    the objects' relocations come the calls the compiler emits without a call-graph edge
    (libgcc's ``__aeabi_*``) and the functions whose address is taken: an indirect call
    may reach any function whose address its own file takes (a kernel's table of row
    functions), or, in a file that takes none (the executor calling through the op table),
    any function whose address any file takes (conservative). Functions outside the call graph (libc,
    libgcc) get their frames from the Thumb disassembly of ``elf``; functions the linker
    dropped are never targets. Raises ArenaplanError on recursion, dynamic frames or a
    callee it cannot bound.
    """
    frames: Dict[str, int] = {}
    edges: Dict[str, set] = {}
    by_name: Dict[str, List[str]] = {}
    local: Dict[Tuple[str, str], str] = {}
    units: Dict[Path, str] = {}
    for ci in ci_files:
        text = Path(ci).read_text()
        unit = str(ci)
        units[Path(ci).with_suffix(".o")] = unit
        for title, label in _NODE.findall(text):
            m = _FRAME.search(label)
            if m is None:
                continue
            if m.group(2) not in ("static", "dynamic,bounded"):
                raise ArenaplanError(f"stack bound: {title} has a {m.group(2)} frame")
            frames[title] = int(m.group(1))
            by_name.setdefault(_short(title), []).append(title)
            local[(unit, _short(title))] = title
        for src_, dst in _EDGE.findall(text):
            edges.setdefault(src_, set()).add(dst)
    address_taken: set = set()
    taken_by_unit: Dict[str, set] = {}
    unit_of: Dict[str, str] = {title: unit for (unit, _), title in local.items()}
    for obj in objects:
        obj = Path(obj)
        unit = units.get(obj)
        if unit is None:
            continue
        dump = subprocess.run([objdump, "-r", str(obj)], check=True, capture_output=True,
                              text=True).stdout
        owner = None
        for line in dump.splitlines():
            m = re.match(r"^RELOCATION RECORDS FOR \[\.text\.([^\]]+)\]:", line)
            if m or line.startswith("RELOCATION RECORDS FOR"):
                owner = local.get((unit, m.group(1))) if m else None
                continue
            r = re.match(r"^[0-9a-f]+\s+(R_ARM_\w+)\s+([^+\s]+)", line)
            if r is None:
                continue
            kind, target = r.groups()
            resolved = local.get((unit, target)) or (by_name.get(target) or [target])[0]
            if kind in ("R_ARM_THM_CALL", "R_ARM_THM_JUMP24", "R_ARM_THM_JUMP19", "R_ARM_CALL"):
                if owner is not None:
                    edges.setdefault(owner, set()).add(resolved)
            elif resolved in frames:
                address_taken.add(resolved)
                taken_by_unit.setdefault(unit, set()).add(resolved)
    indirect_sites = sum(1 for d in edges.values() for t in d if t == _INDIRECT)
    lib = _ElfFrames(None if elf is None else Path(elf), objdump)
    if indirect_sites and not address_taken:
        raise ArenaplanError("stack bound: indirect calls, but no objects to find their targets in")

    def callees(f: str) -> List[str]:
        if f not in frames:
            lib.frame(f)
            return sorted(lib.calls[f])
        out = set()
        for d in edges.get(f, ()):
            if d == _INDIRECT:   # a function the linker dropped cannot be the target
                targets = taken_by_unit.get(unit_of.get(f, ""), set()) or address_taken
                out |= {g for g in targets if elf is None or lib.has(_short(g))}
            else:
                out.add(d)
        out.discard(f)
        return sorted(out)

    memo: Dict[str, Tuple[int, Tuple[Tuple[str, int], ...]]] = {}

    def worst(f: str, stack: Tuple[str, ...]) -> Tuple[int, Tuple[Tuple[str, int], ...]]:
        if f in memo:
            return memo[f]
        if f in frames:
            own = frames[f]
            if own == 0 and lib.has(_short(f)):
                # GCC reports a naked function (its body one asm block) at 0 bytes: what its
                # code pushes is read off the ELF (0 again for a leaf that pushes nothing)
                own = lib.frame(_short(f))
        elif lib.has(f):
            own = lib.frame(f)
        else:
            raise ArenaplanError(f"stack bound: no frame known for {f}" +
                                 ("" if elf is not None else "; pass the linked ELF to read library frames"))
        best: Tuple[int, Tuple[Tuple[str, int], ...]] = (0, ())
        for g in callees(f):
            if g in stack:
                raise ArenaplanError("stack bound: recursion " +
                                     " -> ".join(_short(x) for x in stack + (f, g)))
            cand = worst(g, stack + (f,))
            if cand[0] > best[0]:
                best = cand
        memo[f] = (own + best[0], ((_short(f), own),) + best[1])
        return memo[f]

    entry_title = entry if entry in frames else next((t for t in frames if _short(t) == entry), None)
    if entry_title is None:
        raise ArenaplanError(f"stack bound: {entry} is not in the call graph")
    total, path = worst(entry_title, ())
    return StackReport(entry, total, path, dict(lib.frames), indirect_sites)
