"""Memory maps of a plan: the text rows and the SVG boxes say where each buffer is."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import arenaplan as ap
from arenaplan.cli import main
from conftest import model_path

SVG = "{http://www.w3.org/2000/svg}"


def _letters(text):
    """legend letter -> buffer name, and the rows per op of the first panel."""
    legend = {}
    for line in text.split("legend:")[1].strip().splitlines():
        key, _, rest = line.strip().partition(": ")
        legend[key.split("/")[1]] = rest.split(" (")[0]
    rows = [line[5:] for line in text.split("\n\n")[0].splitlines()[1:]]
    return legend, rows


def test_text_map_shows_every_live_buffer_where_the_plan_puts_it():
    p = ap.plan(ap.zoo.load())
    assert p.verify()
    columns = 64
    text = p.memory_map_text(columns)
    legend, rows = _letters(text)
    assert len(rows) == len(p.model.operators)
    by_name = {b.name: b for b in p.buffers}
    per = -(-p.arena_bytes // columns)
    for op, row in enumerate(rows):
        assert len(row) == columns
        live = [b for b in p.buffers if b.first <= op <= b.last]
        for c, ch in enumerate(row):
            lo, hi = c * per, (c + 1) * per
            here = [b for b in live if b.offset < hi and b.offset + b.size > lo]
            if ch == ".":
                assert not here
            elif ch == "*":
                assert len(here) > 1
            else:
                assert [b.name for b in here] == [legend[ch]]
                assert by_name[legend[ch]].first <= op <= by_name[legend[ch]].last


def test_svg_map_has_a_box_per_buffer_inside_its_panel():
    m = ap.load_tflite(model_path("tflm_keyword_scrambled_int8"))
    p = ap.plan(m, target="cortex-m7")
    assert p.verify()
    svg = p.memory_map_svg(width=600, panel_height=100)
    root = ET.fromstring(svg)
    width, height = float(root.get("width")), float(root.get("height"))
    boxes = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(boxes) == len(p.buffers) + len(p.state_buffers)
    tips = {r.find(f"{SVG}title").text.split(":")[0] for r in boxes}
    assert tips == {b.name for b in p.buffers} | {b.name for b in p.state_buffers}
    for r in boxes:
        x, y, w, h = (float(r.get(k)) for k in ("x", "y", "width", "height"))
        assert 0 <= x and x + w <= width + 0.1 and 0 <= y and y + h <= height + 0.1
    titles = [t.text for t in root.iter(f"{SVG}text")]
    assert "dtcm: 288 B" in titles and "state (in dtcm): 10,240 B" in titles
    assert "<svg" in p._repr_html_() and "TFLM greedy" in p._repr_html_()


def test_memory_map_arguments_are_checked():
    p = ap.plan(ap.zoo.load())
    with pytest.raises(ap.InvalidArgument, match="width >= 200"):
        p.memory_map_svg(width=10)
    with pytest.raises(ap.InvalidArgument, match="columns must be an integer >= 8"):
        p.memory_map_text(columns=3)


def test_cli_prints_the_map(capsys):
    assert main(["plan", "--map"]) == 0
    out = capsys.readouterr().out
    assert "arena: 16,000 B, 250 B per character" in out and "legend:" in out
