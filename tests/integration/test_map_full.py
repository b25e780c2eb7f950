"""A full BPF counter map does not blind taod (issue 27 item 6): with
cg_counters sized small through the config and filled by many cgroups
that each fault one THP, a later abuser is still counted and judged (its
events go to the overflow LRU, which taod drains every tick), and the
drops are told in status and metrics."""
from conftest import finish, judged, wait_for

ENTRIES = 64
FILLERS = ENTRIES + 6


def test_abuser_judged_when_counter_map_is_full(daemon_factory, cgroups):
    base = cgroups.rel(cgroups.base)
    d = daemon_factory(f"[kernel]\ncgroup_map_entries = {ENTRIES}\n"
                       f"[policy tests]\nmatch = {base}/taodtest-*\nwindow = 2s\n"
                       f"min_allocs = 8\nmax_split_ratio = 0.25\nescalate_after = 2\n")
    assert d.ctl("status")["cgroup_maps"]["entries"] == ENTRIES
    # Side by side, 16 at a time: one process per filler started after
    # the last exited cost 70 process lifetimes in a row (7 s of a 13 s
    # test in an emulated guest).
    for first in range(0, FILLERS, 16):
        batch = [cgroups.workload(cgroups.make(f"fill{i}"), "fault", 1)
                 for i in range(first, min(first + 16, FILLERS))]
        for p in batch:
            finish(p)
    d.wait_ticks(2)
    assert d.ctl("status")["cgroup_maps"]["counters_full"] > 0, "the fillers overflowed it"

    a = cgroups.make("abuse")
    rel = cgroups.rel(a)
    cgroups.workload(a, "abuse", 20)
    row = wait_for(lambda: (r := judged(d, rel)) and r["class"] == "abuser" and r,
                   timeout=30, what="the abuser judged despite the full map")
    assert row["evidence"]["thp_alloc"] >= 8 and row["evidence"]["pmd_split"] > 0
    st = d.ctl("status")["cgroup_maps"]
    assert st["counters_full"] > 0
    rc, metrics, err = d.ctl_rc("metrics")
    assert rc == 0, err
    full = [ln for ln in metrics.splitlines()
            if ln.startswith('taod_bpf_map_full_total{map="cg_counters"}')]
    assert full and int(full[0].split()[1]) > 0, full
    rc, out, err = d.ctl_rc("status")
    assert "FULL" in out and "cgroup_map_entries" in out, out
