"""Verdicts that cannot be escaped, on the real kernel: a tenant that splits
its THPs a window after faulting them, and one that hops between child
cgroups removing each, are classed abuser and shattered within two windows
of their splits; a tenant that keeps its THPs whole stays good; one that
starts wasting while small is classed at its first judged window; a server
that shut down is given no class and no action for its teardown."""
import os
import time

from conftest import (KVCACHE, TIME_SCALE, anon_huge_kib, collapse_all, cgroup_row,
                      enable_memory_below, finish, judged, one_kernel, rmdir_retry, vmstat,
                      wait_for)

THP_KIB = 2048
WINDOW_S = 2


def bomb_thps():
    """The issue's bomb is 512 THPs (1 GiB); the kernel lab's guests have 1 GiB."""
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            return 512 if int(line.split()[1]) > 8 * 2 ** 20 else 64
    return 64


def verdict_conf(tmp_path, base_rel, extra=""):
    return (f"[enforce]\nmode = enforce\nbackend = stock\nactions_per_minute = 60\n"
            f"shatter_bytes_per_minute = 1G\naudit_log = {tmp_path}/audit.jsonl\n"
            f"[policy default]\nwindow = 30s\n"
            f"[policy tests]\nmatch = {base_rel}/taodtest-*\nwindow = {WINDOW_S}s\n"
            f"min_allocs = 8\nmax_split_ratio = 0.25\nescalate_after = 2\n"
            f"ladder = shatter:1\ncooldown = 1s\ndry_run = no\n" + extra)


def shatters(d, rel):
    return [x for x in d.ctl("actions", "--cgroup", rel)
            if x["action"] == "shatter" and x["result"] == "done"]


def test_split_a_window_after_faulting_is_abuse(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(verdict_conf(tmp_path, cgroups.rel(cgroups.base)))
    bomb, citizen = cgroups.make("bomb"), cgroups.make("citizen")
    # N THPs faulted, held intact for two windows (judged good), then
    # every one split: no allocation in the window of the splits.
    n = bomb_thps()
    pb = cgroups.workload(bomb, "fault", n, "wait-signal", "partial", n, "hold", 60)
    pc = cgroups.workload(citizen, "fault", 16, "hold", 60)
    wait_for(lambda: anon_huge_kib(pb.pid) >= n * THP_KIB and
             anon_huge_kib(pc.pid) >= 16 * THP_KIB, what="THPs faulted")
    rel_b, rel_c = cgroups.rel(bomb), cgroups.rel(citizen)
    wait_for(lambda: (r := judged(d, rel_b)) and len(r["history"]) >= 2,
             timeout=6 * WINDOW_S, what="two windows judged before the splits")
    assert judged(d, rel_b)["class"] == "good"
    t0 = time.time()
    os.kill(pb.pid, 10)  # SIGUSR1: split them all
    done = wait_for(lambda: shatters(d, rel_b), timeout=10 * WINDOW_S,
                    what="the lagged split bomb to be shattered")
    took = time.time() - t0
    # Two windows (escalate_after = 2), one tick each side, and slack for
    # the splits themselves (1 GiB) on a loaded host: 8.1 s was seen beside
    # the kernel lab. The old, window-bound verdict never shattered at all.
    assert took <= (3 * WINDOW_S + 4) * TIME_SCALE, took
    assert done[0]["pid"] == pb.pid, done
    row = judged(d, rel_b)
    assert row["class"] == "abuser", row
    ev = row["evidence"]
    assert ev["broken_thps"] >= 0.95 * n and ev["given_thps"] >= 0.95 * n, ev
    assert ev["waste"] > 0.9 and ev["score"] > 2, ev
    assert "waste" in done[0]["evidence"], done[0]
    # What broke them: munmap of a page inside each (the owner's call).
    assert done[0]["top_cause"] == "munmap", done[0]
    assert f"top cause munmap ({n} of {n} splits of its tasks)" in done[0]["evidence"], done[0]
    assert ev["top_cause"] == "munmap" and ev["top_cause_splits"] == n, ev
    rc, text, err = d.ctl_rc("abusers", "--all")
    assert rc == 0, err
    assert f"top cause: munmap ({n} of {n} splits of its tasks" in text, text
    assert f"offender: pid {pb.pid} thp_workload, {n} splits, top cause munmap; {n} THP " \
        "faults of its own (collapses: the tenant's given)" in text, text
    # The citizen: good, untouched.
    assert anon_huge_kib(pc.pid) == 16 * THP_KIB
    assert d.ctl("actions", "--cgroup", rel_c) == []
    assert judged(d, rel_c)["class"] == "good"


def test_a_hopper_is_judged_in_the_cgroup_it_hops_under(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(verdict_conf(tmp_path, cgroups.rel(cgroups.base)))
    tenant = cgroups.make("hopper")
    enable_memory_below(tenant, cgroups.version)
    hop = tenant / "hop0"
    hop.mkdir()
    p = cgroups.workload(hop, "abuse", 60)
    rel = cgroups.rel(tenant)
    # Every half window: a new child, the hopper moved there, the old one
    # removed: no child lives a window.
    deadline = time.time() + 12 * WINDOW_S * TIME_SCALE
    n = 0
    try:
        while time.time() < deadline and not shatters(d, rel):
            time.sleep(WINDOW_S / 2)
            n += 1
            new = tenant / f"hop{n}"
            new.mkdir()
            (new / "cgroup.procs").write_text(str(p.pid))
            assert rmdir_retry(hop, pause=0.05)
            hop = new
        done = shatters(d, rel)
        assert done, d.ctl("abusers", "--all")
        assert done[0]["pid"] == p.pid, done
        row = judged(d, rel)
        assert row["class"] == "abuser", row
        assert row["evidence"]["broken_thps"] >= 8, row
        assert row["evidence"]["top_cause"] == "munmap", row
        assert done[0]["top_cause"] == "munmap", done
        # The children were never judged on their own: the tenant was.
        assert not [r for r in d.ctl("abusers", "--all") if r["cgroup"].startswith(rel + "/")]
        cg = next(r for r in d.ctl("cgroups") if r["path"] == rel)
        assert cg["verdict"]["tenant"] == rel and cg["verdict"]["class"] == "abuser", cg
        # The removed children's splits are the parent's now.
        assert cg["folded"]["pmd_split"] >= 8, cg
    finally:
        p.kill()
        p.wait()
        rmdir_retry(hop)


def test_a_child_made_and_removed_between_ticks_counts_to_its_parent(daemon_factory, cgroups):
    """A hopper that makes a fresh child per burst of faults and splits and
    removes it before the next tick: no walk ever sees the child, yet its
    events count to the parent (BPF noted the child's ancestry when it was
    first charged). Bursts the walk happened to see fold too; the test goes
    on until one was never seen."""
    tick_s = 2
    d = daemon_factory(f"[daemon]\ntick = {tick_s}s\n")
    tenant = cgroups.make("burst")
    enable_memory_below(tenant, cgroups.version)
    rel = cgroups.rel(tenant)
    wait_for(lambda: cgroup_row(d, rel), what="the tenant walked")
    bursts, unseen = 0, []
    while not unseen and bursts < 4:
        child = tenant / f"b{bursts}"
        child.mkdir()
        t0 = time.time()
        p = cgroups.workload(child, "fault", 8, "partial", 8)
        assert finish(p)["partial"] == 8
        assert rmdir_retry(child, pause=0.01)
        life = time.time() - t0
        bursts += 1
        d.wait_ticks(1)  # the burst's first reading: the grace walk
        if child.name not in d.logtext() and life < tick_s:
            unseen.append(child.name)
    assert unseen, f"every one of {bursts} bursts was walked: the machine is too slow"
    row = wait_for(lambda: (r := cgroup_row(d, rel)) and r["folded"]["pmd_split"] >= 8 * bursts
                   and r, timeout=6 * tick_s, what="the bursts' splits folded into the parent")
    assert row["folded"]["pmd_split"] == 8 * bursts, row
    assert row["folded"]["thp_alloc"] == 8 * bursts, row
    assert row["folded"]["pmd_split_pages"] == 8 * bursts * 512, row
    # The child was gone before any walk: its removal names no path.
    assert not [c for c in d.ctl("cgroups") if c["path"].startswith(rel + "/")]
    assert "cgroup ? (id" in d.logtext()


def test_a_late_abuser_is_classed_at_its_first_judged_window(daemon_factory, cgroups, tmp_path):
    """Issue 26 item 4: a tenant that held fewer THPs than min_allocs for
    windows, then strands them and more: the window its waste began, too
    small to judge, counts toward escalate_after, so it is classed abuser at
    the first judged window after it, within two windows of its first waste
    (before, it waited two judged windows)."""
    d = daemon_factory(verdict_conf(tmp_path, cgroups.rel(cgroups.base)))
    late = cgroups.make("late")
    p = cgroups.workload(late, "fault", 4, "wait-signal", "partial", 4, "hold", 2 * WINDOW_S + 0.5,
                         "fault", 8, "partial", 8, "hold", 60)
    rel = cgroups.rel(late)
    wait_for(lambda: anon_huge_kib(p.pid) >= 4 * THP_KIB, what="4 THPs faulted")
    wait_for(lambda: (r := judged(d, rel)) and len(r["history"]) >= 2,
             timeout=6 * WINDOW_S, what="two windows judged before the waste")
    before = len(judged(d, rel)["history"])
    assert judged(d, rel)["class"] == "good"
    os.kill(p.pid, 10)  # SIGUSR1: the waste begins
    row = wait_for(lambda: (r := judged(d, rel)) and r["class"] != "good" and r,
                   timeout=8 * WINDOW_S, what="the late abuser classed")
    since = row["history"][before:]
    first = next((i for i, h in enumerate(since) if h["judged"]), None)
    # Classed at its first judged window: the unjudged window of its first
    # waste (4 of 4 stranded, below min_allocs = 8) was the streak's first.
    assert first is not None and since[first]["class"] != "good", since
    assert any(not h["judged"] and h["score"] > 2 for h in since[:first]), since
    wait_for(lambda: judged(d, rel)["class"] == "abuser", timeout=4 * WINDOW_S,
             what="abuser")


@one_kernel
def test_a_shutdown_gets_no_class_and_no_action(daemon_factory, cgroups, tmp_path):
    """Issue 26 item 3: a glibc cache server (kvcache, 4 worker threads,
    each in its own arena) whose heaps hold THPs frees its caches at exit:
    each heap trim splits a THP that the next trim or the exit frees within
    the second. Once it holds no task and no anon memory taod gives it no
    new class and decides no action. What decide and the gate do with a
    tenant that shut down is the same on every kernel and attach mode, once
    cgroup v2's memory.stat says it holds no anon memory (one_kernel); the
    splits' counting per kernel and mode is the other tests'."""
    d = daemon_factory(verdict_conf(tmp_path, cgroups.rel(cgroups.base)))
    srv = cgroups.make("server")
    rel = cgroups.rel(srv)
    # Stretched like the waits: in an emulated guest the collapse of its
    # heaps under four busy workers took longer than the run's last fifth.
    run_s = 5 * WINDOW_S * TIME_SCALE
    t0 = time.time()
    p = cgroups.spawn(srv, KVCACHE, 96, run_s, 4)
    time.sleep(max(0.0, t0 + 0.8 * run_s - time.time()))
    before = vmstat().get("thp_collapse_alloc", 0)
    if p.poll() is None:
        collapse_all(p.pid, max_bytes=16 << 20)  # 8 THPs a heap: quick in a guest too
    thps = vmstat().get("thp_collapse_alloc", 0) - before
    assert thps >= 8, f"only {thps} THPs collapsed"
    out = finish(p)
    assert out["threads"] == 4 and out["live_mib"] == 0, out
    gone = time.time()
    at_exit = judged(d, rel)
    cls_at_exit = at_exit["class"] if at_exit else "good"
    wait_for(lambda: (r := judged(d, rel)) and len(r["history"]) >= 3 and
             r["history"][-3]["ago_ms"] < (time.time() - gone) * 1000,
             timeout=6 * WINDOW_S, what="three windows judged after the exit")
    row = judged(d, rel)
    splits = cgroup_row(d, rel)["pmd_split"]
    assert splits >= 4, f"the teardown split {splits} THPs: nothing to prove"
    assert row["class"] == cls_at_exit, row
    assert "not judged (no live task, no anon memory)" in row["evidence"]["text"], row
    assert not [a for a in d.ctl("actions", "--cgroup", rel)
                if a["time_ms"] >= gone * 1000], d.ctl("actions", "--cgroup", rel)
