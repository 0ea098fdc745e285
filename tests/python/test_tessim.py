"""The Python package (python/tessim): results equal the command line's byte for byte, configs
from dicts, sweeps as DataFrames, errors as exceptions with file, line, column and key.
Run by ctest (Python.Pytest) against this build's tessim, or: PYTHONPATH=python
TESSIM_BINARY=build/tessim python3 -m pytest tests/python"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tessim


def cli(*args):
    return subprocess.run([tessim.binary(), *args], stdout=subprocess.PIPE, check=True).stdout.decode()


def test_run_is_the_command_lines_report_byte_for_byte():
    r = tessim.run("minimal", "axpy", sets={"workload.n": 4096})
    assert r.text == cli("run", "--target", "minimal", "--workload", "axpy", "--set", "workload.n=4096",
                         "--format", "json")
    assert r["schema"] == "tessim.report/1"
    # Attribute access reaches nested maps too.
    assert r.seconds == r["seconds"] > 0
    assert r.target.name == "minimal"
    assert r.energy_j.total == r["energy_j"]["total"]


def test_functional_run_checks_values():
    r = tessim.run("minimal", "axpy", sets={"workload.n": 1000}, functional=True)
    assert r.functional["checked"] is True
    assert r.functional["elements"] == 1000
    assert r.functional["mismatches"] == 0


def test_configs_from_dicts_run_as_the_library_files_do():
    by_name = tessim.run("k1", "fc", sets={"workload.in": 128, "workload.out": 32})
    by_dict = tessim.run(by_name.target.config, dict(by_name.workload.config), dict(by_name.plan.config))
    for key in ("cycles", "seconds", "traffic_bytes", "energy_j", "bounds"):
        assert by_dict[key] == by_name[key], key
    # A dict changed is a different run.
    larger = dict(by_name.workload.config, **{"in": 512})
    assert tessim.run("k1", larger).seconds > by_name.seconds


def test_errors_are_exceptions_naming_file_line_column_and_key():
    with pytest.raises(tessim.TessimError) as e:
        tessim.run("minimal", "axpy", sets={"workload.nn": 64})
    assert e.value.exit_code == 2
    assert e.value.file == "<command line>"
    assert e.value.key == "nn"
    assert "did you mean 'n'?" in e.value.message
    with pytest.raises(tessim.TessimError) as e:
        tessim.run("minimal", {"kernel": "axpy", "n": -4})
    assert e.value.file.endswith("workload.json")
    assert (e.value.line, e.value.key) == (3, "n")  # the dict as written, one key a line
    assert e.value.column > 1
    assert "non-negative integer" in e.value.message
    with pytest.raises(tessim.TessimError) as e:
        tessim.run("no-such-target", "axpy")
    assert "no target named 'no-such-target'" in e.value.message


def test_sweep_gives_a_dataframe_whose_rows_are_the_runs():
    spec = {"name": "py-axpy", "base": {"target": "minimal", "workload": "axpy", "set": {"workload.n": 2048}},
            "grid": {"plan.unroll": [1, 4], "target.ddr.bandwidth": ["5 GB/s", "20 GB/s"]},
            "metrics": ["seconds", "energy_j.total"]}
    df = tessim.sweep(spec, jobs=2)
    assert len(df) == 4
    assert {"plan.unroll", "target.ddr.bandwidth", "seconds", "energy_j.total"} <= set(df.columns)
    row = df[(df["plan.unroll"] == 4) & (df["target.ddr.bandwidth"] == "20 GB/s")].iloc[0]
    one = tessim.run("minimal", "axpy", sets={"workload.n": 2048, "plan.unroll": 4,
                                              "target.ddr.bandwidth": "20 GB/s"})
    assert row["seconds"] == pytest.approx(one.seconds, rel=1e-12)


def test_compare_probe_explain_and_reproduce_return_their_json():
    c = tessim.compare("axpy", targets=["minimal", "k1"], sets={"workload.n": 4096})
    assert c["schema"] == "tessim.compare/1"
    assert list(c["chips"]) == ["minimal", "k1"]
    assert c.chips.k1.seconds > 0
    p = tessim.probe("ddr", "k1", options=["--requests", "2000"])
    assert p and json.loads(p.text) == p
    x = tessim.explain("npu")
    assert x and json.loads(x.text) == x
    paper = tessim.reproduce("npu-tiling")
    assert json.loads(paper.text) == paper


def test_the_worked_example_in_the_docs_runs():
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    out = subprocess.run([sys.executable, str(root / "docs" / "examples" / "python_sweep.py")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True).stdout.decode()
    assert "fc 512x128 on k1:" in out
    assert "time in us by threads (rows) and LMUL (columns)" in out
    assert "did you mean 'threads'?" in out
