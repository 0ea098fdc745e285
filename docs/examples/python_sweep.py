"""A worked example of tessim from Python: a run, a target edited as a dict, a sweep as a pandas
DataFrame, and an error caught with its location. From the repository root, after the build:

    PYTHONPATH=python python3 docs/examples/python_sweep.py

(tests/python/test_tessim.py runs it too.)"""

import tessim

# 1. One run: the report as a dict with attribute access.
report = tessim.run("k1", "fc", sets={"workload.in": 512, "workload.out": 128})
print(f"fc 512x128 on k1: {report.seconds * 1e6:.2f} us, {report.energy_j.total * 1e6:.2f} uJ, "
      f"compute bound {report.bounds.compute_s * 1e6:.2f} us")

# 2. The same target as a dict, edited: a memory bus twice as wide (an exploration, not the K1).
k1 = dict(report.target.config)
wide = dict(k1, memory_bus=dict(k1["memory_bus"], width="16 B"))
copy = {"sets": {"workload.bytes": "1 MiB"}}
base, wider = (tessim.run(t, "memcpy", **copy) for t in (k1, wide))
print(f"memcpy 1 MiB on k1: {base.seconds * 1e6:.1f} us; with a 16 B memory bus: {wider.seconds * 1e6:.1f} us")

# 3. A sweep: one row per point, in a DataFrame.
df = tessim.sweep({
    "name": "fc-threads",
    "base": {"target": "k1", "workload": "fc", "set": {"workload.in": 512, "workload.out": 128}},
    "grid": {"plan.threads": [1, 2, 4, 8], "plan.lmul": [1, 2, 4]},
    "metrics": ["seconds", "energy_j.total"],
}, jobs=2)
ok = df[df["status"] == "ok"]
table = ok.pivot(index="plan.threads", columns="plan.lmul", values="seconds") * 1e6
print("fc 512x128 on k1, time in us by threads (rows) and LMUL (columns):")
print(table.round(2).to_string())
refused = df[df["status"] != "ok"]
if len(refused):
    print(f"{len(refused)} points refused, e.g. LMUL {refused.iloc[0]['plan.lmul']}: "
          f"{refused.iloc[0]['message'].split('error: ')[-1][:70]}...")

# 4. Bad input is an exception that says where.
try:
    tessim.run("k1", "fc", sets={"plan.thread": 4})
except tessim.TessimError as e:
    print(f"refused: {e.file} key {e.key!r}: {e.message}")
