"""Targets and pools: presets, overrides, files, and what is refused."""
from __future__ import annotations

import json

import pytest

import arenaplan as ap
from arenaplan import targets


def test_presets():
    assert {"host", "cortex-m4", "cortex-m7", "cortex-m55", "dual-m7-m4"} <= set(targets.names())
    m7 = targets.get("cortex-m7")
    assert [p.name for p in m7.pools] == ["dtcm", "sram", "stack"]
    assert m7.pool("dtcm").capacity == 128 * 1024 and m7.pool("stack").kind == "stack"
    dual = targets.get("dual-m7-m4")
    cm4 = dual.for_core("cm4")
    assert [p.name for p in cm4.pools] == ["m4_sram", "shared_sram", "stack"]
    assert "m7_dtcm" not in {p.name for p in cm4.pools}


def test_with_pool_lowers_or_disables_the_stack():
    t = targets.get("cortex-m4").with_pool("stack", capacity="2KiB")
    assert t.pool("stack").capacity == 2048
    assert targets.get("cortex-m4").pool("stack").capacity == 8192       # presets are not changed
    assert targets.get("cortex-m4").with_pool("stack", capacity=0).pool("stack").capacity == 0
    bigger = targets.get("cortex-m4").with_pool("psram", capacity="8MiB")
    assert bigger.pools[-1].name == "psram"


def test_load_toml_and_json(tmp_path):
    toml = tmp_path / "board.toml"
    toml.write_text('name = "myboard"\n\n[[pools]]\nname = "tcm"\ncapacity = "64KiB"\n'
                    'section = ".dtcm"\n\n[[pools]]\nname = "sram"\ncapacity = 262144\nalignment = 32\n')
    t = targets.load(toml)
    assert t.name == "myboard" and t.pool("tcm").capacity == 65536 and t.pool("sram").alignment == 32
    js = tmp_path / "board.json"
    js.write_text(json.dumps(t.to_dict()))
    assert targets.load(js) == t


@pytest.mark.parametrize("pools, words", [
    ([{"name": "a", "capacity": -1}], ">= 0"),
    ([{"name": "a", "capacity": "2TiB"}], "cannot read"),
    ([{"name": "a", "capacity": 2 ** 50}], "absurd"),
    ([{"name": "a", "capacity": 10}, {"name": "a", "capacity": 20}], "two pools named 'a'"),
    ([{"name": "a", "capacity": 10, "alignment": 3}], "power of two"),
    ([{"name": "a", "capacity": 10, "kind": "rom"}], "kind 'rom'"),
    ([{"name": "a b", "capacity": 10}], "identifier"),
    ([{"name": "a"}], "needs name and capacity"),
    ([], "no pools"),
    (-1, "pools must be a list of pools, got -1"),
    ({"name": "a"}, "pools must be a list of pools"),
    ([{"name": "a", "capacity": 10, "cores": 3}], "cores must be a list of names, got 3"),
])
def test_bad_pools(pools, words):
    with pytest.raises(ap.InvalidArgument, match=words):
        targets.Target.from_dict({"name": "t", "pools": pools})


def test_unknown_target_and_core():
    with pytest.raises(ap.InvalidArgument, match="unknown target 'cortex-a53'"):
        targets.get("cortex-a53")
    with pytest.raises(ap.InvalidArgument, match="no core 'cm0'"):
        targets.get("dual-m7-m4").for_core("cm0")
    with pytest.raises(ap.InvalidArgument, match="no pool 'itcm'"):
        targets.get("cortex-m7").pool("itcm")


def test_unreadable_target_file(tmp_path):
    with pytest.raises(ap.InvalidArgument, match="cannot read"):
        targets.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [unclosed")
    with pytest.raises(ap.InvalidArgument, match="TOML"):
        targets.load(bad)


def test_with_pool_names_an_unknown_field():
    with pytest.raises(ap.InvalidArgument) as info:
        targets.get("cortex-m7").with_pool("dtcm", speed=3)
    assert "unknown pool field(s) speed" in str(info.value) and "capacity" in str(info.value)
