"""tessim from Python: runs, sweeps, probes, reproductions and comparisons as dicts and DataFrames.

Each call runs the `tessim` executable, one process per simulation as the command line does
(SystemC elaborates one model per process), so a result is the command line's byte for byte.
Targets, workloads and plans are library names, file paths, or dicts (written to a temporary
JSON file: a bare number there is a quantity in its SI base unit, as reports write them).
Errors are TessimError exceptions carrying the file, line, column and key tessim named.

The executable: $TESSIM_BINARY, else the source tree's build/tessim (for python/tessim), else
an install's P/bin/tessim (for P/lib/python3/dist-packages/tessim), else `tessim` on PATH.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

__all__ = ["TessimError", "Result", "run", "sweep", "probe", "reproduce", "compare", "explain",
           "binary"]

Config = Union[str, os.PathLike, Mapping[str, Any], None]


class TessimError(Exception):
    """A command tessim refused or that failed: exit code, stderr and, where tessim gave them,
    the file, line, column and dotted key of the error and what was expected."""

    _LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<column>\d+))?: error: (?P<rest>.*)$")
    _COMMAND_LINE = re.compile(r"^<command line>(?::\d+:(?P<column>\d+))?: error: (?P<rest>.*)$")

    def __init__(self, args: Sequence[str], exit_code: int, stderr: str):
        self.args_run = list(args)
        self.exit_code = exit_code
        self.stderr = stderr
        self.file: Optional[str] = None
        self.line: Optional[int] = None
        self.column: Optional[int] = None
        self.key: Optional[str] = None
        first = next((l for l in stderr.splitlines() if "error" in l), stderr.strip())
        self.message = first
        m = self._COMMAND_LINE.match(first) or self._LOCATED.match(first)
        if m:
            groups = m.groupdict()
            self.file = groups.get("file") or "<command line>"
            self.line = int(groups["line"]) if groups.get("line") else None
            self.column = int(groups["column"]) if groups.get("column") else None
            rest = groups["rest"]
            key, sep, what = rest.partition(": ")
            if sep and " " not in key:
                self.key, self.message = key, what
            else:
                self.message = rest
        elif first.startswith("error: "):
            self.message = first[len("error: "):]
        super().__init__(first or f"tessim exited with {exit_code}")


class Result(dict):
    """A JSON result (a report, a comparison, ...) as a dict whose keys are also attributes;
    `text` holds tessim's output exactly as the command line prints it."""

    text: str = ""

    def __getattr__(self, name: str) -> Any:
        try:
            value = self[name]
        except KeyError as e:
            raise AttributeError(name) from e
        return _wrap(value)


def _wrap(value: Any) -> Any:
    if isinstance(value, dict) and not isinstance(value, Result):
        return Result(value)
    return value


def binary() -> str:
    """The tessim executable the calls run."""
    env = os.environ.get("TESSIM_BINARY")
    if env:
        return env
    here = Path(__file__).resolve().parent
    # The source tree's build (python/tessim -> build/tessim), or an install's (P/lib/python3/
    # dist-packages/tessim -> P/bin/tessim).
    for candidate in (here.parents[1] / "build" / "tessim", here.parents[3] / "bin" / "tessim"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("tessim")
    if found:
        return found
    raise FileNotFoundError("no tessim executable: build it (cmake --build build --target tessim), "
                            "put it on PATH or set TESSIM_BINARY")


def _call(args: Sequence[str], timeout: Optional[float] = None, accept: Iterable[int] = (0,)) -> str:
    proc = subprocess.run([binary(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout)
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode not in accept:
        raise TessimError(args, proc.returncode, stderr)
    return proc.stdout.decode("utf-8")


class _Inputs:
    """Turns dict configurations into temporary JSON files for one call."""

    def __init__(self) -> None:
        self._dir: Optional[tempfile.TemporaryDirectory] = None

    def __enter__(self) -> "_Inputs":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._dir is not None:
            self._dir.cleanup()

    def path(self, config: Config, role: str) -> Optional[str]:
        if config is None:
            return None
        if isinstance(config, Mapping):
            if self._dir is None:
                self._dir = tempfile.TemporaryDirectory(prefix="tessim-py-")
            name = str(config.get("name") or role) if role == "target" else role
            path = Path(self._dir.name) / f"{name}.json"
            path.write_text(json.dumps(config, indent=1))
            return str(path)
        return os.fspath(config)


def _sets(sets: Optional[Mapping[str, Any]]) -> list:
    args = []
    for key, value in (sets or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        args += ["--set", f"{key}={value}"]
    return args


def _json(text: str) -> Result:
    result = Result(json.loads(text))
    result.text = text
    return result


def run(target: Config, workload: Config = None, plan: Config = None, *,
        sets: Optional[Mapping[str, Any]] = None, functional: bool = False,
        schedule: Optional[str] = None, timeout: Optional[float] = None) -> Result:
    """`tessim run`: the report (tessim.report/1) as a Result."""
    with _Inputs() as inputs:
        args = ["run", "--target", inputs.path(target, "target")]
        if workload is not None:
            args += ["--workload", inputs.path(workload, "workload")]
        if plan is not None:
            args += ["--plan", inputs.path(plan, "plan")]
        if schedule is not None:
            args += ["--schedule", os.fspath(schedule)]
        if functional:
            args.append("--functional")
        args += _sets(sets) + ["--format", "json"]
        return _json(_call(args, timeout))


def sweep(spec: Union[str, os.PathLike, Mapping[str, Any]], *, jobs: Optional[int] = None,
          out: Optional[str] = None, timeout: Optional[float] = None):
    """`tessim sweep`: one row per point (results.csv) as a pandas DataFrame. `spec` is a library
    sweep name, a sweep file, or a dict in the sweep file's form. A point that failed is a row
    with `status` error and its `message`, as in results.csv (the command line exits 1 then)."""
    import pandas

    with _Inputs() as inputs, tempfile.TemporaryDirectory(prefix="tessim-sweep-") as scratch:
        directory = out or os.path.join(scratch, "out")
        args = ["sweep", inputs.path(spec, "sweep"), "--out", directory]
        if jobs is not None:
            args += ["--jobs", str(jobs)]
        _call(args, timeout, accept=(0, 1))
        return pandas.read_csv(os.path.join(directory, "results.csv"))


def probe(kind: str, target: Config = None, *, sets: Optional[Mapping[str, Any]] = None,
          options: Iterable[str] = (), timeout: Optional[float] = None) -> Result:
    """`tessim probe KIND`: the characterisation (JSON) as a Result; `options` are further flags
    as the command line takes them, e.g. ["--curves", "--max", "1MiB"]."""
    with _Inputs() as inputs:
        args = ["probe", kind]
        if target is not None:
            args += ["--target", inputs.path(target, "target")]
        args += _sets(sets) + list(options)
        return _json(_call(args, timeout))


def reproduce(paper: str, *, timeout: Optional[float] = None) -> Result:
    """`tessim reproduce PAPER`: the reproduction's JSON (claims, verdicts, tables) as a Result."""
    with tempfile.TemporaryDirectory(prefix="tessim-reproduce-") as scratch:
        _call(["reproduce", paper, "--out", scratch], timeout)
        text = Path(scratch, f"{paper}.json").read_text()
        return _json(text)


def compare(workload: Config, targets: Sequence[str] = ("k1", "ftm2000", "npu"), *,
            plan: Config = None, sets: Optional[Mapping[str, Any]] = None, jobs: Optional[int] = None,
            timeout: Optional[float] = None) -> Result:
    """`tessim compare`: one model on several chips (tessim.compare/1) as a Result."""
    with _Inputs() as inputs:
        args = ["compare", "--workload", inputs.path(workload, "workload"), "--targets", ",".join(targets)]
        if plan is not None:
            args += ["--plan", inputs.path(plan, "plan")]
        if jobs is not None:
            args += ["--jobs", str(jobs)]
        args += _sets(sets) + ["--format", "json"]
        return _json(_call(args, timeout))


def explain(target: Config, *, sets: Optional[Mapping[str, Any]] = None,
            timeout: Optional[float] = None) -> Result:
    """`tessim explain`: the resolved target, its peaks and bounds, as a Result."""
    with _Inputs() as inputs:
        args = ["explain", inputs.path(target, "target")] + _sets(sets) + ["--format", "json"]
        return _json(_call(args, timeout))
