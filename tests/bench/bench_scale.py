#!/usr/bin/python3
"""What taod costs the machine it watches, in one run.

1. Fault path: `build/fault_bench` faults 4 KiB pages and 2 MiB THPs with
   taod detached, then attached; with kernel.bpf_stats_enabled=1 (counting
   runs only: the stats themselves cost time) the BPF program runs and ns
   per fault of each kind, summed over all taod programs.
2. Scale: taod's tick cost and RSS with N extra empty memory cgroups (made
   under our own memory cgroup and removed after), for each N given, once
   taod has walked them all (it walks new directories a budget a tick:
   how many ticks that took, and their maximum, are shown too).
3. Start-up on a busy host: taod started on a tree that already holds N
   cgroups (the first walk finds them all at once), tick cost and RSS.
4. Churn: the largest N made and removed twice while taod runs, each
   round long enough for a history batch of all N: every tick's cost
   meanwhile (median, maximum) and RSS before, at the peak and after (once
   taod has forgotten them).
Usage: bench_scale.py [N ...] (default 0 1000 10000).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from conftest import TAOD, CgroupSet, ctl_status  # noqa: E402

FAULT_BENCH = TAOD.parent / "fault_bench"
STATS = Path("/proc/sys/kernel/bpf_stats_enabled")
HISTORY_EVERY = 10  # ticks, as start_daemon's config says
KINDS = {"4 KiB": ("4k", 65536, 8), "2 MiB THP": ("2m", 64, 8)}


def fault_ns(kind, faults=True):
    mode, n, rounds = KINDS[kind]
    out = subprocess.run([str(FAULT_BENCH), mode, str(n if faults else 0), str(rounds)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def best_of(kind, times=3):
    return min(fault_ns(kind)["ns_per_fault"] for _ in range(times))


def bpf_totals(sock):
    return {p["name"]: (p["run_cnt"], p["run_time_ns"]) for p in ctl_status(sock)["programs"]}


def bpf_delta(sock, kind, faults):
    before = bpf_totals(sock)
    made = fault_ns(kind, faults)["faults"]
    after = bpf_totals(sock)
    return made, {k: (after[k][0] - before[k][0], after[k][1] - before[k][1]) for k in after}


def bpf_per_fault(sock, kind):
    """Runs and ns per fault of each program, less those of a run of the
    same process that makes no faults (exec, start-up, exit)."""
    STATS.write_text("1")
    try:
        _, idle = bpf_delta(sock, kind, False)
        faults, busy = bpf_delta(sock, kind, True)
    finally:
        STATS.write_text("0")
    return {k: ((busy[k][0] - idle[k][0]) / faults, (busy[k][1] - idle[k][1]) / faults)
            for k in busy}


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def tick_costs(sock, ticks):
    """last_tick_cost_us of the next @ticks ticks."""
    costs, last = [], ctl_status(sock)["ticks"]
    while len(costs) < ticks:
        time.sleep(0.25)
        st = ctl_status(sock)
        if st["ticks"] != last:
            last = st["ticks"]
            costs.append(st["last_tick_cost_us"])
    return costs


def make_children(parent, n):
    made = []
    for i in range(n):
        p = parent / f"c{i}"
        p.mkdir()
        made.append(p)
    return made


def remove(paths):
    for p in reversed(paths):
        for _ in range(50):
            try:
                p.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def start_daemon(tmp):
    tmp.mkdir(exist_ok=True)
    sock = str(tmp / "taod.sock")
    conf = tmp / "taod.conf"
    conf.write_text(f"[daemon]\ntick = 1s\n[control]\nsocket = {sock}\n"
                    f"[history]\npath = {tmp}/history.db\nevery = {HISTORY_EVERY}\n")
    daemon = subprocess.Popen([str(TAOD), "-c", str(conf)], stderr=subprocess.DEVNULL)
    while not os.path.exists(sock):
        time.sleep(0.1)
    tick_costs(sock, 2)
    return daemon, sock


def fault_path(sock_daemon):
    detached = {k: best_of(k) for k in KINDS}
    daemon, sock = sock_daemon()
    try:
        attached = {k: best_of(k) for k in KINDS}
        per = {k: bpf_per_fault(sock, k) for k in KINDS}
        mode = ctl_status(sock)["observation_mode"]
    finally:
        daemon.terminate()
        daemon.wait()
    print(f"fault path (observation mode: {mode})")
    print(f"{'fault':<12}{'BPF runs':>10}{'BPF ns':>10}{'detached ns':>14}"
          f"{'attached ns':>14}{'ratio':>8}")
    for k in KINDS:
        runs, ns = (sum(v[i] for v in per[k].values()) for i in (0, 1))
        print(f"{k:<12}{runs:>10.2f}{ns:>10.0f}{detached[k]:>14.0f}{attached[k]:>14.0f}"
              f"{attached[k] / detached[k]:>8.3f}")
        print("    " + ", ".join(f"{name} {r:.2f} runs {n:.0f} ns"
                                 for name, (r, n) in per[k].items() if r > 0.005))


def walked(sock):
    """Ticks until taod has walked every directory made (`tree_backlog`:
    those it walks a budget a tick); their costs."""
    costs = []
    while ctl_status(sock).get("tree_backlog", 0):
        costs += tick_costs(sock, 1)
    return costs


def scale(sock_daemon, counts):
    cgs = CgroupSet()
    parent = cgs.make("scale")
    daemon, sock = sock_daemon()
    print(f"{'cgroups':>8}{'tracked':>9}{'tick median us':>16}{'tick max us':>13}{'RSS MiB':>9}"
          f"{'walk ticks':>12}{'walk max us':>13}")
    try:
        for n in counts:
            made = make_children(parent, n)
            try:
                walk = tick_costs(sock, 1) + walked(sock)  # the walk that finds them
                tick_costs(sock, 3)  # settle
                costs = tick_costs(sock, 12)  # spans a history batch (every 10)
                st = ctl_status(sock)
                print(f"{n:>8}{st['cgroups_tracked']:>9}{statistics.median(costs):>16.0f}"
                      f"{max(costs):>13}{rss_kib(daemon.pid) / 1024:>9.1f}"
                      f"{len(walk):>12}{max(walk):>13}")
            finally:
                remove(made)
    finally:
        daemon.terminate()
        daemon.wait()
        cgs.cleanup()


def startup(sock_daemon, counts):
    cgs = CgroupSet()
    parent = cgs.make("startup")
    print(f"{'existing':>8}{'tracked':>9}{'tick median us':>16}{'tick max us':>13}{'RSS MiB':>9}")
    try:
        for n in counts:
            made = make_children(parent, n)
            try:
                daemon, sock = sock_daemon()
                try:
                    costs = tick_costs(sock, 12)
                    st = ctl_status(sock)
                    print(f"{n:>8}{st['cgroups_tracked']:>9}"
                          f"{statistics.median(costs):>16.0f}{max(costs):>13}"
                          f"{rss_kib(daemon.pid) / 1024:>9.1f}")
                finally:
                    daemon.terminate()
                    daemon.wait()
            finally:
                remove(made)
    finally:
        cgs.cleanup()


class TickLog:
    """Every tick's cost while a long task runs, polled in a thread."""

    def __init__(self, sock):
        import threading
        self.sock, self.costs, self.stop = sock, [], threading.Event()
        self.thread = threading.Thread(target=self.poll)

    def poll(self):
        last = ctl_status(self.sock)["ticks"]
        while not self.stop.is_set():
            time.sleep(0.05)
            st = ctl_status(self.sock)
            if st["ticks"] != last:
                last = st["ticks"]
                self.costs.append(st["last_tick_cost_us"])

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def churn(sock_daemon, n, rounds=2):
    cgs = CgroupSet()
    parent = cgs.make("churn")
    daemon, sock = sock_daemon()
    peak = before = rss_kib(daemon.pid)
    try:
        with TickLog(sock) as log:
            for _ in range(rounds):
                made = make_children(parent, n)
                # A history batch is due every 10 ticks (the bench's
                # config): each round holds one with all N cgroups.
                tick_costs(sock, HISTORY_EVERY + 2)
                peak = max(peak, rss_kib(daemon.pid))
                remove(made)
                tick_costs(sock, 2)
        # taod drops removed cgroups a budget a tick, and gives the heap
        # back once none went for two ticks.
        while ctl_status(sock).get("tree_gone_backlog", 0):
            tick_costs(sock, 1)
        tick_costs(sock, 3)
        after = rss_kib(daemon.pid)
        costs = log.costs
        print(f"churn: {n} cgroups made and removed {rounds} times, {len(costs)} ticks: "
              f"tick median {statistics.median(costs) / 1000:.1f} ms, "
              f"max {max(costs) / 1000:.1f} ms; RSS {before / 1024:.1f} MiB before, "
              f"{peak / 1024:.1f} MiB at the peak, {after / 1024:.1f} MiB after")
    finally:
        daemon.terminate()
        daemon.wait()
        cgs.cleanup()


def main():
    counts = [int(a) for a in sys.argv[1:]] or [0, 1000, 10000]
    tmp = Path(tempfile.mkdtemp(prefix="taod-bench-"))
    old_stats = STATS.read_text().strip()
    try:
        fault_path(lambda: start_daemon(tmp / "a"))
        scale(lambda: start_daemon(tmp / "b"), counts)
        startup(lambda: start_daemon(tmp / "c"), counts)
        if max(counts):
            churn(lambda: start_daemon(tmp / "d"), max(counts))
    finally:
        STATS.write_text(old_stats)


if __name__ == "__main__":
    main()
