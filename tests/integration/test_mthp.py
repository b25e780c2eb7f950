"""Multi-size THP (issue 17): taod's per-cgroup, per-size counts against the
kernel's own per-size stats (hugepages-<N>kB/stats), which count machine-wide.

It turns sizes on (enabled = always), so it runs only in the kernel lab's
guests (tests/vm), never on a shared machine, and only where the kernel has
anonymous mTHP (6.8+; the lab's 6.1 has none) and fentry is allowed (the
per-size programs are fentry programs)."""
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import TAOCTL, anon_huge_kib, cgroup_row, finish, vmstat, wait_for

THP = Path("/sys/kernel/mm/transparent_hugepage")
SIZES_KB = (16, 64, 128)
STATS = {"fault_alloc": "anon_fault_alloc", "partial_unmap": "split_deferred", "split": "split"}


def in_lab_guest():
    return "TAOD_TEST_EXPECT_MODE" in os.environ  # set by tests/vm/guest-suite


def mthp_stat(kb, name):
    return int((THP / f"hugepages-{kb}kB/stats/{name}").read_text())


def kernel_stats():
    return {kb: {k: mthp_stat(kb, f) for k, f in STATS.items()} for kb in SIZES_KB}


@pytest.fixture
def mthp_sizes_always():
    """16, 64 and 128 KiB anonymous mTHP enabled = always, restored after."""
    if not in_lab_guest():
        pytest.skip("changes the machine's THP sizes: runs in the kernel lab only (make vmtest)")
    missing = [kb for kb in SIZES_KB if not (THP / f"hugepages-{kb}kB/stats/split_deferred").exists()]
    if missing:
        pytest.skip(f"kernel has no anonymous mTHP stats for {missing} KiB (6.1 has no mTHP; "
                    "split_deferred per size came in 6.12)")
    old = {}
    for kb in SIZES_KB:
        f = THP / f"hugepages-{kb}kB/enabled"
        old[f] = f.read_text().split("[", 1)[1].split("]", 1)[0]
        f.write_text("always")
    yield
    for f, mode in old.items():
        f.write_text(mode)


def sizes_of(row):
    return {s["size_kb"]: s for s in row["sizes"]}


def test_mthp_counts_equal_kernel_per_size_stats(mthp_sizes_always, daemon_factory, cgroups):
    d = daemon_factory()
    sizes_mode = d.ctl("status")["mthp_observation"]
    if not sizes_mode.startswith("fentry: fault allocations"):
        pytest.skip(f"per-size programs not attached here: {sizes_mode}")
    # status lists every program loaded (their costs are measured from it)
    names = {p["name"] for p in d.ctl("status")["programs"]}
    assert {"on_new_anon_rmap", "on_deferred_split", "on_size_split_enter",
            "on_size_split_exit"} <= names, names
    a = cgroups.make("mthp")
    rel = cgroups.rel(a)
    # The kernel's stats are machine-wide: taod's own heap (trimmed by its
    # allocator, a partial unmap of a large folio) would count there too,
    # so it is stopped while the workload runs. Its BPF programs are not.
    d.proc.send_signal(signal.SIGSTOP)
    try:
        before = kernel_stats()
        # 64 KiB: 32 faulted, 8 left partially mapped by munmap, 8 stranded
        # across two mappings by mprotect, 4 split by MADV_PAGEOUT of a
        # page; 16 and 128 KiB likewise, fewer.
        w = finish(cgroups.workload(a, "mthp-size", 64, "mthp-fault", 32, "mthp-partial", 8,
                                    "mthp-mprotect", 8, "mthp-pageout", 4,
                                    "mthp-size", 16, "mthp-fault", 8, "mthp-partial", 2,
                                    "mthp-size", 128, "mthp-fault", 8, "mthp-pageout", 2,
                                    "mthp-partial", 3))
        after = kernel_stats()
    finally:
        d.proc.send_signal(signal.SIGCONT)
    assert w["mthp_faulted"] == 48 and w["mthp_partial"] == 13 and w["mthp_pageout"] == 6
    want = {kb: {k: after[kb][k] - before[kb][k] for k in STATS} for kb in SIZES_KB}
    # The kernel gave 64 KiB folios where asked: the workload's own figures.
    assert want[64]["fault_alloc"] >= 32 and want[64]["partial_unmap"] >= 8, want
    assert want[64]["split"] >= 4, want

    def got():
        row = cgroup_row(d, rel)
        have = sizes_of(row) if row else {}
        return {kb: {k: have.get(kb, {}).get(k, 0) for k in STATS} for kb in SIZES_KB}

    try:
        wait_for(lambda: got() == want, timeout=20, what="taod's per-size counts")
    except AssertionError:
        pass
    d.wait_ticks(3)  # and no more
    assert got() == want, f"taod {got()}, kernel {want}"
    row = sizes_of(cgroup_row(d, rel))
    assert row[64]["order"] == 4 and row[16]["order"] == 2 and row[128]["order"] == 5

    # taoctl cgroups --sizes: the same figures, a line per cgroup and size.
    view = {r["path"]: r["sizes"] for r in d.ctl("cgroups", "--sizes")}
    assert {s["size_kb"]: s for s in view[rel]} == row
    rc, out, _ = d.ctl_rc("cgroups", "--sizes")
    line = next(ln for ln in out.splitlines() if ln.startswith(rel + " ") and "64.0 KiB" in ln)
    f = want[64]
    c = row[64]["collapse"]  # khugepaged's, if it collapsed any of this tenant's
    broken = 100.0 * (f["partial_unmap"] + f["split"]) / (f["fault_alloc"] + c)
    assert line.split()[3:8] == [str(f["fault_alloc"]), str(f["partial_unmap"]),
                                 str(f["split"]), str(c), f"{broken:.1f}%"], line

    # Metrics: one counter per cgroup, size and event.
    rc, text, _ = d.ctl_rc("metrics")
    for k in STATS:
        assert (f'taod_cgroup_mthp_folios_total{{cgroup="{rel}",size_kb="64",event="{k}"}} '
                f'{want[64][k]}') in text.splitlines(), k

    # The history has them, and `taoctl report` shows them (JSON, CSV --sizes).
    d.wait_ticks(12)  # a history batch every 10 ticks
    db = str(d.dir / "history.db")
    p = subprocess.run([str(TAOCTL), "report", "--db", db, "--since", "1h", "--format", "json",
                        "--cgroup", rel], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rep = {s["size_kb"]: s for s in json.loads(p.stdout)["cgroups"][0]["sizes"]}
    assert {kb: {k: rep.get(kb, {}).get(k, 0) for k in STATS} for kb in SIZES_KB} == want
    p = subprocess.run([str(TAOCTL), "report", "--db", db, "--since", "1h", "--format", "csv",
                        "--sizes", "--cgroup", rel], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    f = want[64]
    prefix = f"{rel},{cgroup_row(d, rel)['id']},64,{f['fault_alloc']}," \
             f"{f['partial_unmap']},{f['split']},"
    assert any(ln.startswith(prefix) for ln in p.stdout.splitlines()), p.stdout

    # The task that did it, below the PMD order.
    tasks = d.ctl("top-tasks", "--limit", "200")
    mine = [t for t in tasks if t["pid"] == w["pid"]]
    if mine:  # top-tasks ranks PMD offenders first; this task may be past the limit
        t = mine[0]
        assert t["mthp_fault_alloc"] == sum(want[kb]["fault_alloc"] for kb in SIZES_KB)
        assert t["mthp_partial_unmap"] == sum(want[kb]["partial_unmap"] for kb in SIZES_KB)
        # ... and its size mix: the faults and partial maps per size are all its own
        mix = {s["size_kb"]: s for s in t["sizes"]}
        for kb in SIZES_KB:
            assert mix[kb]["fault_alloc"] == want[kb]["fault_alloc"], (kb, mix)
            assert mix[kb]["partial_unmap"] == want[kb]["partial_unmap"], (kb, mix)
        rc, out, _ = d.ctl_rc("top-tasks", "--limit", "200")
        ln = next(x for x in out.splitlines() if x.split()[0] == str(w["pid"]))
        f = mix[64]
        assert (f"64K:{f['fault_alloc']}/{f['partial_unmap']}/{f['split']}/{f['collapse']}"
                in ln.split()), ln


def nr_anon():
    return {kb: mthp_stat(kb, "nr_anon") for kb in SIZES_KB}


def test_mthp_mapped_bytes_equal_kernel_nr_anon(mthp_sizes_always, daemon_factory, cgroups):
    """Bytes held per size (added at map, moved at split, removed at free)
    against the kernel's own count of anonymous folios per size (nr_anon)
    times the size, for a single tenant; and nothing left once it exits."""
    d = daemon_factory()
    if "folios held" not in d.ctl("status")["mthp_observation"]:
        pytest.skip(f"held folios not counted here: {d.ctl('status')['mthp_observation']}")
    names = {p["name"] for p in d.ctl("status")["programs"]}
    assert {"on_uncharge", "on_uncharge_folios"} <= names, names
    a = cgroups.make("held")
    rel = cgroups.rel(a)
    d.proc.send_signal(signal.SIGSTOP)  # its heap would count machine-wide (see above)
    try:
        before = nr_anon()
        # Faulted, some left partially mapped (still held whole, as the
        # kernel counts them until split), some split by MADV_PAGEOUT, some
        # faulted and unmapped whole (freed: no longer held).
        w = cgroups.workload(a, "mthp-size", 64, "mthp-fault", 32, "mthp-partial", 8,
                             "mthp-mprotect", 4, "mthp-pageout", 4,
                             "mthp-size", 16, "mthp-fault", 8, "mthp-partial", 2,
                             "mthp-size", 128, "mthp-fault", 8, "mthp-pageout", 2,
                             "ready", "wait-signal")
        line = w.stdout.readline()
        assert json.loads(line) == {"ready": True}, (line, w.stderr.read() if w.poll() else "")
        after = nr_anon()
    finally:
        d.proc.send_signal(signal.SIGCONT)
    want = {kb: (after[kb] - before[kb]) * kb * 1024 for kb in SIZES_KB}
    assert want[64] >= (32 - 4) * 64 * 1024, (before, after)

    def held():
        row = cgroup_row(d, rel)
        have = sizes_of(row) if row else {}
        return {kb: have.get(kb, {}).get("mapped_bytes", 0) for kb in SIZES_KB}

    try:
        wait_for(lambda: held() == want, timeout=20, what="taod's bytes per size")
    except AssertionError:
        pass
    assert held() == want, f"taod {held()}, kernel nr_anon x size {want}"
    # One row for both: the share needs the cgroup's memory.stat, read by a
    # tick of its own (a 7.3 guest asked between the two and got null).
    wait_for(lambda: sizes_of(cgroup_row(d, rel))[64]["coverage_pct"] is not None,
             what="the cgroup's memory.stat read")
    full = cgroup_row(d, rel)
    row, anon = sizes_of(full), full["anon_bytes"]
    cov = row[64]["coverage_pct"]
    assert cov == pytest.approx(min(100.0, 100.0 * want[64] / anon), abs=1.0), (cov, anon)

    # taoctl cgroups --sizes: MAPPED and COVERAGE columns; metrics by size_kb.
    rc, out, _ = d.ctl_rc("cgroups", "--sizes")
    ln = next(x for x in out.splitlines() if x.startswith(rel + " ") and "64.0 KiB" in x)
    assert ln.split()[-1] == f"{cov:.1f}%", ln
    rc, text, _ = d.ctl_rc("metrics")
    assert (f'taod_cgroup_mthp_mapped_bytes{{cgroup="{rel}",size_kb="64"}} {want[64]}'
            in text.splitlines()), text
    assert f'taod_cgroup_mthp_coverage_ratio{{cgroup="{rel}",size_kb="64"}} ' in text

    # Its exit frees every folio: none held any more.
    w.send_signal(signal.SIGUSR1)
    finish(w)
    wait_for(lambda: held() == {kb: 0 for kb in SIZES_KB}, timeout=20,
             what="held bytes back to zero after the exit")


def test_mthp_shatter_splits_a_tasks_small_folios_and_leaves_pmd_thps(
        mthp_sizes_always, daemon_factory, cgroups):
    """A shatter for a tenant judged under `sizes = mthp` (here asked by the
    operator, `--sizes mthp`): the stock split aims at the task's folios
    below the PMD size, a debugfs write per mapping with no PMD THP, and
    leaves its PMD THPs; the audit record says what the kernel split per
    size."""
    d = daemon_factory("[enforce]\nmode = enforce\nbackend = stock\nactions_per_minute = 60\n"
                       "shatter_bytes_per_minute = 1G\n")
    a = cgroups.make("mshatter")
    rel = cgroups.rel(a)
    w = cgroups.workload(a, "mthp-size", 64, "mthp-fault", 32, "fault", 4, "ready",
                         "wait-signal")
    line = w.stdout.readline()
    assert json.loads(line) == {"ready": True}, (line, w.stderr.read() if w.poll() else "")
    thp_kib = anon_huge_kib(w.pid)
    assert thp_kib >= 2048, "the workload's PMD THPs"

    before = mthp_stat(64, "split")
    rec = d.act("shatter", "--cgroup", rel, "--pid", str(w.pid), "--sizes", "mthp")
    assert rec["result"] == "done", rec
    split = mthp_stat(64, "split") - before
    assert split >= 32, (split, rec)
    # a write per chunk (each its own mapping), and per other anonymous
    # mapping the task has (heap, stack) that holds no PMD THP
    writes = re.search(r"below the PMD: (\d+) mapping write\(s\), split", rec["detail"])
    assert writes and int(writes.group(1)) >= 32, rec
    assert f"64K {split}" in rec["detail"], rec
    assert "split 0 THPs" in rec["detail"], rec  # PMD THPs left alone
    assert anon_huge_kib(w.pid) == thp_kib
    # taod's own figures agree: none of that size held any more
    wait_for(lambda: (r := cgroup_row(d, rel)) and
             {s["size_kb"]: s for s in r["sizes"]}.get(64, {}).get("mapped_bytes") == 0,
             what="64 KiB folios no longer held")
    acts = d.ctl("actions", "--cgroup", rel)
    assert "below the PMD" in acts[0]["detail"], acts
    rc, _, err = d.ctl_rc("act", "shatter", "--cgroup", rel, "--sizes", "some")
    assert rc == 2 and '--sizes "some": expected pmd, mthp or all' in err, err
    w.send_signal(signal.SIGUSR1)
    finish(w)


def test_mthp_sizes_view_lists_each_cgroup(daemon, cgroups):
    """Runs anywhere: `cgroups --sizes` gives every cgroup with its sizes,
    empty where nothing large below the PMD was seen."""
    a = cgroups.make("plain")
    cgroups.workload(a, "hold", 30)
    rel = cgroups.rel(a)
    wait_for(lambda: cgroup_row(daemon, rel), what="the cgroup")
    view = {r["path"]: r for r in daemon.ctl("cgroups", "--sizes")}
    assert set(view[rel]) == {"id", "path", "sizes"}
    assert view[rel]["sizes"] == cgroup_row(daemon, rel)["sizes"]
    rc, out, err = daemon.ctl_rc("cgroups", "--sizes")
    assert rc == 0, err
    assert out.split()[:8] == ["CGROUP", "SIZE", "FAULTS", "PARTIAL", "SPLITS", "COLLAPSES",
                               "BROKEN", "PGALLOC"]
    assert "mthp_observation" in daemon.ctl("status")


KHUGEPAGED = THP / "khugepaged"


@pytest.fixture
def khugepaged_fast():
    """khugepaged scanning every 100 ms, and collapsing only fully mapped
    ranges (max_ptes_none 0: no other process's sparse memory collapses
    while the kernel's machine-wide count is compared), restored after."""
    keys = {"scan_sleep_millisecs": "100", "alloc_sleep_millisecs": "100",
            "pages_to_scan": "4096", "max_ptes_none": "0"}
    old = {k: (KHUGEPAGED / k).read_text().strip() for k in keys}
    for k, v in keys.items():
        (KHUGEPAGED / k).write_text(v)
    yield
    for k, v in old.items():
        (KHUGEPAGED / k).write_text(v)


def set_enabled(sizes):
    for kb, mode in sizes.items():
        (THP / f"hugepages-{kb}kB/enabled").write_text(mode)


def test_mthp_collapse_per_size_equals_kernel_collapse_alloc(
        mthp_sizes_always, khugepaged_fast, daemon_factory, cgroups):
    """khugepaged collapses a tenant's base pages into 64 KiB folios (7.3+:
    collapse_huge_page takes an order): taod's per-cgroup `collapse` of
    that size equals the kernel's collapse_alloc delta, and the PMD THP
    counts (thp_collapse_alloc, PMD-mapped pages) do not move."""
    if not (THP / "hugepages-64kB/stats/collapse_alloc").exists():
        pytest.skip("kernel has no per-size collapse_alloc (khugepaged collapses to the PMD "
                    "size only before 7.x)")
    d = daemon_factory()
    seen = d.ctl("status")["mthp_observation"]
    if "collapses" not in seen:
        pytest.skip(f"collapses per size not counted here (the collapse tracepoint has no "
                    f"order, or not THP paths mode): {seen}")
    assert "on_collapse_order" in {p["name"] for p in d.ctl("status")["programs"]}
    a = cgroups.make("collapse")
    rel = cgroups.rel(a)
    regions = 2
    def everywhere():
        """Per cgroup, the 64 KiB collapses taod saw since @base: the
        kernel's count is machine-wide."""
        return {r["path"]: c - base.get(r["path"], 0) for r in d.ctl("cgroups")
                if (c := sizes_of(r).get(64, {}).get("collapse", 0)) != base.get(r["path"], 0)}

    set_enabled({16: "never", 64: "never", 128: "never"})
    # Sizes were enabled since taod started: khugepaged may have collapsed
    # other memory (pytest's own) into 64 KiB meanwhile, which taod counted
    # and the kernel's baseline below holds (seen: 2 more in a 7.3 guest).
    # Both baselines once that has settled and taod has ticked.
    time.sleep(2)
    base = {}  # everywhere() counts from it: first from nothing
    base = everywhere()
    vm_before = vmstat().get("thp_collapse_alloc", 0)
    d.proc.send_signal(signal.SIGSTOP)  # the kernel's counts are machine-wide (see above)
    try:
        before = mthp_stat(64, "collapse_alloc")
        # Base pages (no size enabled; THP "enabled" is madvise and there is
        # no advice: no PMD THP either), every page of 2 MiB regions.
        w = cgroups.workload(a, "smallfault", regions, "ready", "wait-signal",
                             "smallfault", 1, "ready", "hold", 300)
        assert json.loads(w.stdout.readline()) == {"ready": True}
        # 64 KiB only: khugepaged's one size to collapse into. A new
        # mapping makes khugepaged take this mm on.
        set_enabled({64: "always"})
        w.send_signal(signal.SIGUSR1)
        assert json.loads(w.stdout.readline()) == {"ready": True}
        want = regions * 512 // 16
        wait_for(lambda: mthp_stat(64, "collapse_alloc") - before >= want, timeout=120,
                 what=f"the kernel's 64 KiB collapse_alloc up by {want}")
        # khugepaged goes on trying ranges it collapsed already (each try
        # allocates, and counts): 64 KiB off stops it, then both counts
        # hold still and are compared.
        set_enabled({64: "never"})
        time.sleep(2)
        delta = mthp_stat(64, "collapse_alloc") - before
        time.sleep(1)
        assert mthp_stat(64, "collapse_alloc") - before == delta, "khugepaged stopped"
    finally:
        d.proc.send_signal(signal.SIGCONT)
    assert vmstat().get("thp_collapse_alloc", 0) == vm_before, "no PMD collapse anywhere"

    def collapsed():
        row = cgroup_row(d, rel)
        return row and sizes_of(row).get(64, {}).get("collapse", 0)

    try:
        wait_for(lambda: sum(everywhere().values()) == delta, timeout=20,
                 what="taod's 64 KiB collapses")
    except AssertionError:
        pass
    assert sum(everywhere().values()) == delta, \
        f"taod {everywhere()}, kernel collapse_alloc delta {delta}"
    # The tenant's own, every 64 KiB range of its regions at least once;
    # equal to the kernel's delta where no other process's memory was
    # collapsed meanwhile.
    assert collapsed() >= want, everywhere()
    row = cgroup_row(d, rel)
    assert row["thp_collapse_alloc"] == 0 and row["pmd_mapped_pages"] == 0, row
    assert all(s["collapse"] == 0 for s in row["sizes"] if s["size_kb"] != 64), row["sizes"]
    # the same figure in the metrics and taoctl cgroups --sizes
    rc, text, _ = d.ctl_rc("metrics")
    assert (f'taod_cgroup_mthp_folios_total{{cgroup="{rel}",size_kb="64",event="collapse"}} '
            f'{collapsed()}') in text.splitlines()
    rc, out, _ = d.ctl_rc("cgroups", "--sizes")
    ln = next(x for x in out.splitlines() if x.startswith(rel + " ") and "64.0 KiB" in x)
    assert ln.split()[6] == str(collapsed()), ln
    # the owner's own per-size counts (khugepaged owns none of it)
    tasks = [t for t in d.ctl("top-tasks", "--limit", "8192") if t["pid"] == w.pid]
    if tasks:
        mix = {s["size_kb"]: s for s in tasks[0]["sizes"]}
        assert mix[64]["collapse"] == collapsed(), mix
    w.kill()




def test_mthp_strander_judged_under_sizes_mthp_while_good_user_stays_good(
        mthp_sizes_always, daemon_factory, cgroups):
    """A policy with sizes = mthp: 64 KiB folios left partially mapped are
    waste by the bytes they break; PMD THPs are left alone."""
    base = cgroups.rel(cgroups.base)
    d = daemon_factory("[policy default]\nwindow = 10s\n"
                       f"[policy small]\nmatch = {base}/taodtest-*\nsizes = mthp\n"
                       "window = 2s\nmin_allocs = 1\nmax_split_ratio = 0.25\n"
                       "escalate_after = 1\nrelax_after = 3\n")
    if not d.ctl("status")["mthp_observation"].startswith("fentry: fault allocations"):
        pytest.skip("per-size programs not attached here")
    bad, good = cgroups.make("strand"), cgroups.make("good")
    rel_bad, rel_good = cgroups.rel(bad), cgroups.rel(good)
    # 1024 folios of 64 KiB (64 MiB, 32 THPs' worth); the strander leaves
    # 768 partially mapped (waste 0.75, score 3) and mprotects a page of the
    # rest; the good tenant keeps its folios whole, and splits every PMD
    # THP it has, which this policy does not judge.
    cgroups.workload(bad, "mthp-size", 64, "mthp-fault", 1024, "mthp-partial", 768,
                     "mthp-mprotect", 256, "hold", 300)
    cgroups.workload(good, "fault", 8, "partial", 8, "mthp-size", 64, "mthp-fault", 1024,
                     "hold", 300)

    def row(rel):
        return next((r for r in d.ctl("abusers", "--all") if r["cgroup"] == rel), None)

    r = wait_for(lambda: (x := row(rel_bad)) and x["class"] in ("misuser", "abuser") and x,
                 timeout=30, what="the strander classed misuser or abuser")
    ev = r["evidence"]
    assert r["policy"] == "small" and ev["sizes"] == "mthp"
    mix = {s["size_kb"]: s for s in ev["size_mix"]}
    assert mix[64]["fault_alloc"] >= 1024 and mix[64]["partial_unmap"] >= 768, mix
    assert ev["mthp_broken_bytes"] >= 768 * 64 * 1024
    assert ev["waste"] == pytest.approx(0.75, abs=0.05), ev

    g = wait_for(lambda: (x := row(rel_good)) and x["evidence"] and x["evidence"]["judged"] and x,
                 timeout=30, what="the good tenant judged")
    d.wait_ticks(15)  # a few more windows
    g = row(rel_good)
    assert g["class"] == "good", g
    assert g["evidence"]["waste"] == 0
    assert cgroup_row(d, rel_good)["pmd_split"] >= 8  # its PMD splits were seen, not judged


def test_policy_with_sizes_mthp_shatters_the_strander_only(
        mthp_sizes_always, daemon_factory, cgroups, tmp_path):
    """decide's own shatter under `sizes = mthp`: the strander's 64 KiB
    folios are split by the kernel (its per-size split stat moves), its PMD
    THPs stay, and the tenant that keeps its folios whole is never acted on."""
    base = cgroups.rel(cgroups.base)
    d = daemon_factory("[enforce]\nmode = enforce\nbackend = stock\nactions_per_minute = 60\n"
                       f"shatter_bytes_per_minute = 1G\naudit_log = {tmp_path}/audit.jsonl\n"
                       "[policy default]\nwindow = 30s\n"
                       f"[policy small]\nmatch = {base}/taodtest-*\nsizes = mthp\n"
                       "window = 2s\nmin_allocs = 1\nmax_split_ratio = 0.25\n"
                       "escalate_after = 1\nrelax_after = 3\ncooldown = 1s\n"
                       "ladder = shatter:1\ndry_run = no\n")
    if not d.ctl("status")["mthp_observation"].startswith("fentry: fault allocations"):
        pytest.skip("per-size programs not attached here")
    bad, good = cgroups.make("pstrand"), cgroups.make("pgood")
    rel_bad, rel_good = cgroups.rel(bad), cgroups.rel(good)
    before = mthp_stat(64, "split")
    w = cgroups.workload(bad, "fault", 4, "mthp-size", 64, "mthp-fault", 1024,
                         "mthp-partial", 768, "hold", 300)
    cgroups.workload(good, "mthp-size", 64, "mthp-fault", 1024, "hold", 300)
    thp_kib = wait_for(lambda: anon_huge_kib(w.pid) >= 4 * 2048 and anon_huge_kib(w.pid),
                       what="the strander's PMD THPs")

    def done():
        return [r for r in d.ctl("actions", "--cgroup", rel_bad)
                if r["action"] == "shatter" and r["result"] == "done"]

    rec = wait_for(done, timeout=60, what="decide's shatter of the strander")[-1]
    assert rec["policy"] == "small" and "below the PMD" in rec["detail"], rec
    assert "split 0 THPs" in rec["detail"], rec  # PMD THPs left alone
    said = re.search(r"64K (\d+)", rec["detail"])
    assert said and int(said.group(1)) > 0, rec
    assert mthp_stat(64, "split") - before >= int(said.group(1)), rec
    assert anon_huge_kib(w.pid) == thp_kib
    assert not [r for r in d.ctl("actions", "--cgroup", rel_good) if r["action"] != "warn"]
