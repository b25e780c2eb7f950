#!/usr/bin/python3
"""Benchmark of the observation path on the real kernel.

Runs a THP churn workload (fault 16 THPs, split 8, unmap all, repeat) in a
child of our own memory cgroup for DURATION seconds while taod runs, with
kernel.bpf_stats_enabled=1, then prints:
  - per BPF program: runs, total ns, ns per run;
  - taod's CPU time over the run (utime + stime from /proc/PID/stat);
  - THP events the workload caused and what taod counted.
Usage: bench_observe.py [DURATION] (default 60).
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from conftest import TAOCTL, TAOD, WORKLOAD, CgroupSet, ctl_status  # noqa: E402

STATS = Path("/proc/sys/kernel/bpf_stats_enabled")


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    duration = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    tmp = Path(tempfile.mkdtemp(prefix="taod-bench-"))
    sock = str(tmp / "taod.sock")
    conf = tmp / "taod.conf"
    conf.write_text(f"[daemon]\ntick = 1s\n[control]\nsocket = {sock}\n"
                    f"[history]\npath = {tmp}/history.db\n")
    old_stats = STATS.read_text().strip()
    STATS.write_text("1")
    cgs = CgroupSet()
    daemon = subprocess.Popen([str(TAOD), "-c", str(conf)], stderr=subprocess.DEVNULL)
    try:
        while not os.path.exists(sock):
            time.sleep(0.1)
        time.sleep(1)
        before = {p["name"]: p for p in ctl_status(sock)["programs"]}
        cpu0 = cpu_seconds(daemon.pid)
        cg = cgs.make("bench")
        w = cgs.spawn(cg, WORKLOAD, "churn", duration)
        out, _ = w.communicate(timeout=duration + 60)
        time.sleep(2)
        cpu1 = cpu_seconds(daemon.pid)
        st = ctl_status(sock)
        rows = json.loads(subprocess.run([str(TAOCTL), "--socket", sock, "--json", "cgroups"],
                                         capture_output=True, text=True).stdout)
        row = next(r for r in rows if r["path"] == cgs.rel(cg))
        done = json.loads(out.strip().splitlines()[-1])
        print(f"workload: {duration} s churn, {done['faulted']} THPs faulted, "
              f"{done['partial']} split by partial munmap")
        print(f"taod counted: {row['thp_alloc']} THP allocations, {row['pmd_split']} splits, "
              f"{row['pmd_unmap_whole']} whole unmaps")
        print(f"{'program':<22}{'runs':>14}{'total ms':>12}{'ns/run':>10}")
        for p in st["programs"]:
            b = before.get(p["name"], {"run_cnt": 0, "run_time_ns": 0})
            runs = p["run_cnt"] - b["run_cnt"]
            ns = p["run_time_ns"] - b["run_time_ns"]
            per = ns / runs if runs else 0
            print(f"{p['name']:<22}{runs:>14}{ns / 1e6:>12.1f}{per:>10.0f}")
        print(f"taod CPU time over the run: {cpu1 - cpu0:.2f} s "
              f"({100 * (cpu1 - cpu0) / (duration + 2):.2f}% of one CPU), "
              f"last tick {st['last_tick_cost_us']} us for {st['cgroups_tracked']} cgroups")
    finally:
        daemon.terminate()
        daemon.wait()
        cgs.cleanup()
        STATS.write_text(old_stats)


if __name__ == "__main__":
    main()
