"""The act stage on the real (stock) kernel: split and collapse a test
workload's THPs through the safety gate, and refuse protected cgroups."""
import json
import os
from pathlib import Path

import pytest

from conftest import (anon_huge_kib, cgroup_row, debugfs_split_writable, exact_splits,
                      needs_thp_madvise, own_memory_cgroup, thp_chunks, wait_for, host_only,
                      any_mode)

N = 8
THP_KIB = 2048




@pytest.fixture
def enforcing(daemon_factory, tmp_path):
    audit = tmp_path / "audit" / "audit.jsonl"
    d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = stock\n"
                       f"actions_per_minute = 60\nshatter_bytes_per_minute = 1G\n"
                       f"allowlist = /*-keep\naudit_log = {audit}\n")
    d.audit = audit
    return d


def holding_thps(cgroups, name):
    cg = cgroups.make(name)
    # thp-off once faulted: khugepaged must not collapse back what a
    # shatter split before the test looks (one THP was back on 7.3).
    p = cgroups.workload(cg, "fault", N, "thp-off", "hold", 60)
    wait_for(lambda: anon_huge_kib(p.pid) >= N * THP_KIB, what="THPs faulted")
    return cg, p


def workload_where(p):
    """Where a workload is, for a failure's message."""
    pid = p.pid
    try:
        state = [ln for ln in open(f"/proc/{pid}/status") if ln.startswith("State")]
        stack = open(f"/proc/{pid}/stack").read().replace("\n", " | ")[:600]
        return f"pid {pid} {state} stack: {stack}"
    except OSError as e:
        return f"pid {pid}: {e} (exit {p.poll()})"


@any_mode
def test_shatter_gives_back_partly_mapped_thps(enforcing, cgroups):
    """THPs left mapped by one page each are invisible to smaps (no
    AnonHugePages) but pin 2 MiB each: the stock shatter finds them in the
    page tables and splits them, so the unmapped pages are freed."""
    cg = cgroups.make("keep1")
    # thp-off first: khugepaged would collapse the regions back (1 page of 512 mapped).
    p = cgroups.workload(cg, "fault", N, "thp-off", "keep1", N, "hold", 60)
    def state():  # (chunks mapping a THP page, PMD-mapped KiB)
        return thp_chunks(p.pid), anon_huge_kib(p.pid)
    try:
        wait_for(lambda: state() == (N, 0), what="THPs mapped by one page each")
    except AssertionError as e:
        raise AssertionError(f"{e}: (THP chunks, AnonHugePages kB) = {state()}; "
                             f"{workload_where(p)}") from None
    rel = cgroups.rel(cg)
    gauge = "partly mapped now" in enforcing.ctl("status")["mthp_observation"]
    if gauge:
        wait_for(lambda: cgroup_row(enforcing, rel)["partly_mapped_thps"] == N,
                 what=f"{N} THPs counted partly mapped")
    rec = enforcing.act("shatter", "--cgroup", rel, "--pid", str(p.pid))
    assert rec["result"] == "done", rec
    assert f"split {N} THPs ({N * THP_KIB * 1024} bytes, {N} partly mapped)" in rec["detail"], rec
    assert thp_chunks(p.pid) == 0
    if gauge:  # split, so off the kernel's deferred split queue: none left, p alive
        wait_for(lambda: cgroup_row(enforcing, rel)["partly_mapped_thps"] == 0,
                 what="none counted partly mapped once split")
        assert p.poll() is None


@host_only
def test_status_shows_backend(enforcing):
    st = enforcing.ctl("status")
    assert st["backend"] == "stock"
    assert st["act"]["mode"] == "enforce"


def own_split_exact(d):
    """Exact splits charged to taod's own cgroup (the test's)."""
    own = cgroup_row(d, own_memory_cgroup()[0])
    return own["split_exact"] if own else 0


def test_shatter_splits_a_tasks_thps(enforcing, cgroups):
    cg, p = holding_thps(cgroups, "shatter")
    sib, ps = holding_thps(cgroups, "sibling")
    rel = cgroups.rel(cg)

    rec = enforcing.act("shatter", "--cgroup", rel, "--pid", str(p.pid), "--dry-run")
    assert rec["result"] == "dry-run"
    assert anon_huge_kib(p.pid) == N * THP_KIB

    own_before = own_split_exact(enforcing)
    rec = enforcing.act("shatter", "--cgroup", rel, "--pid", str(p.pid))
    assert rec["result"] == "done", rec
    assert anon_huge_kib(p.pid) == 0
    # The record's bytes are what it split, not what was asked (no limit: 0).
    assert rec["bytes"] == rec["split"]["bytes"] == N * THP_KIB * 1024, rec
    assert rec["asked_bytes"] == 0, rec
    # debugfs split_huge_pages, or MADV_PAGEOUT where lockdown closes debugfs
    if debugfs_split_writable():
        assert "split_huge_pages" in rec["detail"], rec
    else:
        assert "MADV_PAGEOUT" in rec["detail"], rec

    assert anon_huge_kib(ps.pid) == N * THP_KIB  # the sibling is untouched

    acts = enforcing.ctl("actions", "--cgroup", rel)
    assert [a["result"] for a in acts] == ["done", "dry-run"]
    assert acts[0]["pid"] == p.pid and acts[0]["action"] == "shatter"
    lines = [json.loads(x) for x in enforcing.audit.read_text().splitlines()]
    assert [x["result"] for x in lines if x["cgroup"] == rel] == ["dry-run", "done"]

    # taod broke the THPs up on p's memory: the cgroup is charged, taod is not.
    def broken_up():
        r = cgroup_row(enforcing, rel)
        return r and r["pmd_split"] + r["pmd_unmap_whole"] >= N
    wait_for(broken_up, what="the splits counted for the cgroup")
    if exact_splits(enforcing):
        # fentry on the split functions charges the THP's memcg (on 6.1 the
        # folio split is given a page, maybe a tail), never taod's.
        try:
            wait_for(lambda: cgroup_row(enforcing, rel)["split_exact"] >= N,
                     what="exact splits charged to the cgroup")
        except AssertionError as e:
            raise AssertionError(f"{e}: {cgroup_row(enforcing, rel)}, "
                                 f"{enforcing.ctl('status')['events']}") from None
        # What taod's own cgroup had before the shatter is not the shatter's
        # (the guests' first taod start, on 6.1, once split a THP there).
        assert own_split_exact(enforcing) == own_before, cgroup_row(
            enforcing, own_memory_cgroup()[0])
    tasks = enforcing.ctl("top-tasks", "--limit", "8192")
    assert enforcing.proc.pid not in {t["pid"] for t in tasks}


@any_mode
def test_shatter_of_a_whole_cgroup(enforcing, cgroups):
    cg = cgroups.make("whole")
    ps = [cgroups.workload(cg, "fault", N // 2, "hold", 60) for _ in range(2)]
    for p in ps:
        wait_for(lambda: anon_huge_kib(p.pid) >= N // 2 * THP_KIB, what="THPs faulted")
    rec = enforcing.act("shatter", "--cgroup", cgroups.rel(cg))
    assert rec["result"] == "done", rec
    assert [anon_huge_kib(p.pid) for p in ps] == [0, 0], rec


@any_mode
@needs_thp_madvise
def test_collapse_raises_coverage(enforcing, cgroups):
    cg = cgroups.make("collapse")
    p = cgroups.workload(cg, "smallfault", N, "hold", 60)
    rss = lambda: int(next(l.split()[1] for l in
                           Path(f"/proc/{p.pid}/smaps_rollup").read_text().splitlines()
                           if l.startswith("Anonymous:")))
    wait_for(lambda: rss() >= N * THP_KIB, what="base pages faulted")
    before = anon_huge_kib(p.pid)
    assert before < N * THP_KIB

    rec = enforcing.act("collapse", "--cgroup", cgroups.rel(cg))
    assert rec["result"] == "done", rec
    assert "MADV_COLLAPSE" in rec["detail"]
    assert rec["bytes"] >= (N // 2) * THP_KIB * 1024, rec  # what it collapsed
    after = anon_huge_kib(p.pid)
    print(f"AnonHugePages before {before} kB, after MADV_COLLAPSE {after} kB")
    assert after >= before + (N // 2) * THP_KIB


@any_mode
def test_protected_cgroups_are_refused(enforcing, cgroups):
    keep, pk = holding_thps(cgroups, "keep")
    rel_keep = cgroups.rel(keep)
    # Our own cgroup holds taod (it was started from here) and the test cgroups.
    own = cgroups.rel(cgroups.base)

    assert enforcing.act("shatter", "--cgroup", "/")["result"] == "allowlisted"
    assert enforcing.act("shatter", "--cgroup", own)["result"] == "allowlisted"
    rec = enforcing.act("shatter", "--cgroup", rel_keep, "--pid", str(pk.pid))
    assert rec["result"] == "allowlisted"
    assert "/*-keep" in rec["detail"]
    assert anon_huge_kib(pk.pid) == N * THP_KIB


@any_mode
def test_path_aliases_never_reach_protected_cgroups(enforcing, cgroups):
    keep, pk = holding_thps(cgroups, "keep")
    rel_keep = cgroups.rel(keep)
    own = cgroups.rel(cgroups.base)
    aliases = ["/.", "//", own + "/", "/" + own, own + "/.", rel_keep + "/",
               rel_keep.replace("/", "//", 1), own + "/../" + own.rsplit("/", 1)[1]]
    for alias in aliases:
        # taoctl refuses it before asking; taod refuses it from any client.
        rc, out, err = enforcing.ctl_rc("act", "shatter", "--cgroup", alias, "--pid", str(pk.pid))
        assert rc == 2, (alias, out, err)
        assert f'--cgroup "{alias}"' in err, (alias, err)
        req = {"command": "act", "args": {"action": "shatter", "cgroup": alias, "pid": pk.pid}}
        r = json.loads(enforcing.request(json.dumps(req).encode() + b"\n"))
        assert not r["ok"] and "args.cgroup" in r["error"], (alias, r)
    assert anon_huge_kib(pk.pid) == N * THP_KIB
    assert not any(x["result"] == "done" for x in enforcing.ctl("actions"))


@any_mode
def test_vanished_targets_and_foreign_tasks(enforcing, cgroups):
    a, pa = holding_thps(cgroups, "a")
    b = cgroups.make("b")
    # pa is not in b: never acted on through b, and it never was there.
    rc, out, err = enforcing.ctl_rc("act", "shatter", "--cgroup", cgroups.rel(b),
                                    "--pid", str(pa.pid))
    assert rc == 1 and f"task {pa.pid} is not in {cgroups.rel(b)}" in err, err
    rc, out, err = enforcing.ctl_rc("act", "shatter", "--cgroup", cgroups.rel(a) + "-gone")
    assert rc == 1 and f"no such cgroup {cgroups.rel(a)}-gone" in err, err
    assert anon_huge_kib(pa.pid) == N * THP_KIB


@any_mode
def test_act_exit_status_says_whether_it_was_done(enforcing, cgroups):
    """A script reads `taoctl act`'s status: 0 only when the action was done
    (or the dry run it asked for), 1 when the gate refused, whatever the
    reason, with the record still printed."""
    cg = cgroups.make("status")
    rel = cgroups.rel(cg)
    cases = [(["warn", "--cgroup", rel], 0, "done"),
             (["warn", "--cgroup", rel, "--dry-run"], 0, "dry-run"),
             (["warn", "--cgroup", "/"], 1, "allowlisted")]
    for args, want, result in cases:
        rc, out, err = enforcing.ctl_rc("act", *args)
        assert rc == want, (args, rc, out, err)
        assert f": {result} (" in out, (args, out)
    rc, out, err = enforcing.ctl_rc("act", "warn", "--cgroup", rel + "-gone")
    assert rc == 1 and "no such cgroup" in err and not out, (out, err)


@any_mode
def test_observe_mode_touches_nothing(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(f"[enforce]\nmode = observe\naudit_log = {tmp_path}/a.jsonl\n")
    cg, p = holding_thps(cgroups, "observe")
    rec = d.act("shatter", "--cgroup", cgroups.rel(cg), "--pid", str(p.pid))
    assert rec["result"] == "dry-run"
    assert "observe mode" in rec["detail"]
    # Not asked for: a refusal, which the exit status says.
    assert d.ctl_rc("act", "shatter", "--cgroup", cgroups.rel(cg))[0] == 1
    assert anon_huge_kib(p.pid) == N * THP_KIB


@pytest.fixture
def socket_reachable(tmp_path):
    """Lets other users reach the socket in pytest's private tmp dirs
    (group bits too: ctl_rc(user=) keeps gid 0)."""
    dirs = [p for p in [tmp_path, *tmp_path.parents] if str(p).startswith("/tmp/")]
    modes = {p: p.stat().st_mode for p in dirs}
    for p in dirs:
        os.chmod(p, modes[p] | 0o055)
    yield
    for p, m in modes.items():
        os.chmod(p, m)


@host_only
def test_act_needs_root(socket_reachable, enforcing):
    rc, out, err = enforcing.ctl_rc("act", "warn", "--cgroup", "/x", user="nobody")
    assert rc == 1, err
    assert "needs root" in err
    rc, out, err = enforcing.ctl_rc("actions", user="nobody")
    assert rc == 0, err


@host_only
def test_debugfs_taod_mounted_is_unmounted_at_exit(daemon_factory, cgroups, tmp_path):
    """Issue 41 item 1: a taod that mounted debugfs for split_huge_pages left
    it mounted. Expected, written before the run: in a mount namespace of
    its own without debugfs, taod in enforce mode mounts it at its first
    shatter (not before: observe would never need it), and at its exit
    unmounts it; a debugfs it found mounted is left as it was (the host's,
    every other test)."""
    after = tmp_path / "debugfs-after"
    # The shell keeps the namespace after taod exits, to look at it; SIGTERM
    # (the fixture's stop) goes on to taod.
    script = ('umount -R /sys/kernel/debug || exit 1; "$@" & pid=$!; '
              'trap \'kill -TERM $pid\' TERM; wait $pid; wait $pid; rc=$?; '
              f'grep -c " debugfs " /proc/self/mountinfo > {after}; exit $rc')
    wrap = ("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh")
    d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = stock\n"
                       f"audit_log = {tmp_path}/audit.jsonl\n", wrap=wrap)
    # The shell's child (procps' pgrep is not on a fresh Debian machine).
    pid = int(Path(f"/proc/{d.proc.pid}/task/{d.proc.pid}/children").read_text().split()[0])
    mounts = Path(f"/proc/{pid}/mountinfo")
    assert " debugfs " not in mounts.read_text(), "debugfs mounted before any shatter"
    cg, p = holding_thps(cgroups, "debugfs")
    enforcing_rec = d.act("shatter", "--cgroup", cgroups.rel(cg), "--pid", str(p.pid))
    assert enforcing_rec["result"] == "done", enforcing_rec
    assert " debugfs " in mounts.read_text(), "the shatter mounted debugfs"
    assert "mounted debugfs at /sys/kernel/debug" in d.logtext()
    d.stop()
    assert after.read_text().strip() == "0", "debugfs left mounted after taod exited"
    assert "unmounted debugfs at /sys/kernel/debug, which taod mounted" in d.logtext()
