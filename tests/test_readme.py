"""Every example in README.md runs as written and prints what the README says.

* ```python blocks run in order, one namespace per ``##`` section, in a scratch
  directory where ``../shared/models/`` is rewritten to the shared models' folder
  (``MODELS_DIR``, which honours ARENAPLAN_MODELS). A statement whose comment starts with
  a Python literal (``expr   # (55296, 55296, 73728, True): why``) must evaluate to it.
* ```sh lines that start with ``arenaplan`` run through ``arenaplan.cli.main`` and must
  exit 0 (or the status a ``# exit N`` comment names); ``pip ...`` and
  ``python benchmarks/...`` lines are the install and benchmark commands, not run here.
* A ```text block right after a python or sh block is that block's output: each of its
  lines must appear in what the block printed.
* A block whose info string names a file (```toml board.toml) is written to that file
  in the scratch directory before any example runs.
"""
from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import pytest

import arenaplan as ap
from arenaplan.cli import main
from arenaplan.latency import sources
from conftest import MODELS_DIR, ROOT, model_path

README = ROOT / "README.md"
MODELS_PREFIX = "../shared/models/"


@dataclass
class Block:
    section: str
    lang: str
    filename: Optional[str]
    text: str
    line: int            # line of the opening fence in README.md


def readme_blocks(text: Optional[str] = None) -> List[Block]:
    lines = (README.read_text() if text is None else text).splitlines()
    blocks, section, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        m = re.match(r"^```(\S*)\s*(\S*)\s*$", line)
        if m:
            start, body = i, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append(Block(section, m.group(1), m.group(2) or None, "\n".join(body) + "\n", start + 1))
        i += 1
    return blocks


def sections() -> List[str]:
    seen: Dict[str, None] = {}
    for b in readme_blocks():
        if b.lang in ("python", "sh") and b.filename is None:
            seen.setdefault(b.section)
    return list(seen)


def _localise(text: str) -> str:
    return text.replace(MODELS_PREFIX, f"{MODELS_DIR}/")


def _skip_without_models(text: str) -> None:
    for stem in re.findall(re.escape(MODELS_PREFIX) + r"([\w.-]+)\.tflite", text):
        model_path(stem)     # skips with the reason when the shared model is absent
    if ".plot(" in text or "--plot" in text:
        pytest.importorskip("matplotlib")


def _literal_claim(comment: str):
    """The value a comment states: the comment, or its part before a ':', when that is a
    Python literal; else no claim."""
    text = comment.lstrip("#").strip()
    candidates = [text] + [text[:k] for k, c in enumerate(text) if c == ":"]
    for cand in candidates:
        try:
            return True, ast.literal_eval(cand.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def _comments(source: str) -> Dict[int, str]:
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string
    return out


def run_python(source: str, ns: dict, where: str) -> int:
    """Run ``source`` statement by statement in ``ns``; check every literal claim.
    Returns the number of claims checked."""
    tree = ast.parse(source)
    comments = _comments(source)
    checked = 0
    for stmt in tree.body:
        code = ast.Module(body=[stmt], type_ignores=[])
        claim = comments.get(stmt.end_lineno) if stmt.lineno == stmt.end_lineno else None
        is_claim, expected = _literal_claim(claim) if claim else (False, None)
        if isinstance(stmt, ast.Expr):
            value = eval(compile(ast.Expression(stmt.value), where, "eval"), ns)
        else:
            exec(compile(code, where, "exec"), ns)
            value = None
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                value = ns[stmt.targets[0].id]
        if is_claim:
            line = source.splitlines()[stmt.lineno - 1]
            assert value == expected, f"{where}+{stmt.lineno}: {line.strip()!r} gives {value!r}"
            checked += 1
    return checked


def sh_commands(text: str) -> List[tuple]:
    """(argv, expected exit status) of every arenaplan command line in a sh block."""
    joined = text.replace("\\\n", " ")
    out = []
    for raw in joined.splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        status = 0
        m = re.search(r"#\s*exit (\d+)", raw)
        if m:
            status = int(m.group(1))
        argv = shlex.split(raw, comments=True)
        if argv[0] == "pip" or argv[:2] == ["python", "-m"] or (
                argv[0] == "python" and argv[1].startswith("benchmarks/")):
            continue
        assert argv[0] == "arenaplan", f"README command {raw!r} is neither arenaplan, pip nor a benchmark"
        out.append((argv[1:], status))
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch directory holding every file the README shows (board.toml, board.csv)."""
    d = tmp_path_factory.mktemp("readme")
    for b in readme_blocks():
        if b.filename is not None:
            (d / b.filename).write_text(b.text)
    return d


@pytest.mark.filterwarnings("ignore:host latency of .* measured while:RuntimeWarning")
@pytest.mark.parametrize("section", sections())
def test_readme_section_runs_as_written(section, workdir, monkeypatch):
    blocks = readme_blocks()
    mine = [(k, b) for k, b in enumerate(blocks) if b.section == section and b.filename is None]
    _skip_without_models("".join(b.text for _, b in mine))
    monkeypatch.chdir(workdir)
    ns: dict = {"__name__": "__readme__"}
    printed: Dict[int, str] = {}
    for k, b in mine:
        where = f"README.md:{b.line + 1}"
        buf = io.StringIO()
        if b.lang == "python":
            with contextlib.redirect_stdout(buf):
                run_python(_localise(b.text), ns, where)
        elif b.lang == "sh":
            for argv, status in sh_commands(_localise(b.text)):
                with contextlib.redirect_stdout(buf):
                    got = main(argv)
                assert got == status, f"{where}: arenaplan {' '.join(argv)} exits {got}, not {status}"
        elif b.lang == "text" and k - 1 in printed:
            out = [line.rstrip() for line in printed[k - 1].splitlines()]
            for line in b.text.splitlines():
                if line.strip():
                    assert line.rstrip() in out, f"{where}: {line!r} is not in what the example printed"
        printed[k] = buf.getvalue()


def test_readme_claims_are_checked():
    """The literal claims the README makes, counted: the check above is not vacuous."""
    claims = 0
    for b in readme_blocks():
        if b.lang == "python":
            for comment in _comments(b.text).values():
                claims += _literal_claim(comment)[0]
    assert claims >= 12
    texts = [b for k, b in enumerate(readme_blocks()) if b.lang == "text"]
    assert texts, "the README shows at least one example's output"


def test_readme_commands_use_existing_models_and_zoo_names():
    zoo = set(ap.zoo.names())
    for b in readme_blocks():
        if b.lang != "sh":
            continue
        for argv, _ in sh_commands(b.text):
            positional = [a for a in argv[1:] if not a.startswith("-")]
            for a in positional:
                if a.endswith(".tflite"):
                    assert a.startswith(MODELS_PREFIX), f"{a}: the README's models are in {MODELS_PREFIX}"
                    assert (MODELS_DIR / a[len(MODELS_PREFIX):]).exists() or not MODELS_DIR.exists(), a


def test_readme_has_the_two_commands_and_stays_short():
    text = README.read_text()
    assert "pip install . && arenaplan tradeoffs" in text
    assert 'pip install ".[test]" && python -m pytest' in text
    assert "`.ci/run` runs exactly the second command" in text
    assert len(text.splitlines()) < 250
    assert "benchmarks/README.md" in text and "csrc/planner/bands/README.md" in text


def test_readme_keyword_state_figures_are_the_plans():
    """The keyword model on cortex-m7: the README shows the state's bytes beside the pool's
    planned bytes and says how the state counts against dtcm, with the figures a plan gives."""
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    t = ap.targets.get("cortex-m7")
    kw = ap.plan(m, target=t)
    text = " ".join(README.read_text().split())
    assert "count against dtcm too" not in text
    assert 'kw.state_pool, kw.state_bytes, kw.pool_bytes["dtcm"], kw.ram_bytes' in text
    assert f"# {(kw.state_pool, kw.state_bytes, kw.pool_bytes['dtcm'], kw.ram_bytes)!r}" in text
    # the state is taken from dtcm's capacity: one byte less than state + arena spills
    fits = ap.plan(m, target=t.with_pool("dtcm", capacity=kw.state_bytes + kw.arena_bytes))
    short = ap.plan(m, target=t.with_pool("dtcm", capacity=kw.state_bytes + kw.arena_bytes - 1))
    assert fits.state_pool == short.state_pool == "dtcm"
    assert fits.pool_bytes["dtcm"] == kw.arena_bytes and fits.pool_bytes["sram"] == 0
    spilled = short.pool_bytes["sram"]
    assert spilled > 0 and short.verify()
    assert f"the {kw.state_bytes:,} B of state come out of dtcm's capacity" in text
    assert f"with {kw.state_bytes + kw.arena_bytes - 1:,} B of dtcm, {spilled} B of the arena go to sram" in text
    assert f"the {kw.arena_bytes} B arena" in text


def test_host_latency_cache_location_is_documented(tmp_path, monkeypatch):
    doc = " ".join(ap.HostLatency.__doc__.split())
    text = " ".join(README.read_text().split())
    for where in ("$ARENAPLAN_CACHE_DIR", "$XDG_CACHE_HOME/arenaplan", "~/.cache/arenaplan",
                  "host_latency.json", "cache=False"):
        assert where in doc, where
        assert where in text, where
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path / "own"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert ap.HostLatency()._cache_file() == tmp_path / "own" / "host_latency.json"
    monkeypatch.delenv("ARENAPLAN_CACHE_DIR")
    assert ap.HostLatency()._cache_file() == tmp_path / "xdg" / "arenaplan" / "host_latency.json"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert ap.HostLatency()._cache_file() == tmp_path / "home" / ".cache" / "arenaplan" / "host_latency.json"
    # and the figures land there
    monkeypatch.setenv("ARENAPLAN_CACHE_DIR", str(tmp_path / "own"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ap.frontier(ap.zoo.load("autoencoder"),
                    latency=sources.HostLatency(repeats=1, window_s=0.0, max_window_s=0.05, progress=False))
    assert (tmp_path / "own" / "host_latency.json").stat().st_size > 0


def test_claim_parser():
    assert _literal_claim("# (55296, 55296, 73728, True): why") == (True, (55296, 55296, 73728, True))
    assert _literal_claim("# {'dtcm': 1, 'sram': 0}") == (True, {"dtcm": 1, "sram": 0})
    assert _literal_claim("# True: an independent check") == (True, True)
    assert _literal_claim("# mode=\"size\"; why")[0] is False
    assert _literal_claim("# in Jupyter: an SVG")[0] is False
    ns: dict = {}
    with pytest.raises(AssertionError, match="gives 2"):
        run_python("x = 1\nx + 1   # 3\n", ns, "t")
    assert run_python("x = 1\nx + 2   # 3: the sum\ny = x   # 1\n", ns, "t") == 2
    assert sh_commands("pip install . && arenaplan tradeoffs\narenaplan plan resnet8 --json  # note\n"
                       "arenaplan run x --check   # exit 1\n") == [(["plan", "resnet8", "--json"], 0),
                                                               (["run", "x", "--check"], 1)]
