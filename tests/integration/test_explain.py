"""Why THPs split: per-task causes of PMD splits, and `taoctl explain`."""
import os
import subprocess
import re
import time

import pytest

from conftest import (KVCACHE, WORKLOAD, cgroup_row, collapse_all, vmstat, wait_for,
                      host_only)

BUILD_WORKLOAD = WORKLOAD.resolve()

THP_PATHS = "fentry (THP paths)"


def wait_splits(daemon, cgroups, cg, n, what):
    row = wait_for(lambda: (r := cgroup_row(daemon, cgroups.rel(cg))) and r["pmd_split"] >= n
                   and r, what=what)
    daemon.wait_ticks(2)
    return row


def test_explain_names_munmap_and_mprotect(daemon, cgroups):
    a, b = cgroups.make("XA"), cgroups.make("XB")
    pa = cgroups.workload(a, "fault", 4, "partial", 3, "hold", 60)
    pb = cgroups.workload(b, "fault", 4, "mprotect", 2, "hold", 60)
    wait_splits(daemon, cgroups, a, 3, "munmap splits")
    wait_splits(daemon, cgroups, b, 2, "mprotect splits")

    ra = daemon.ctl("explain", cgroups.rel(a))
    assert ra["cgroup"] == cgroups.rel(a)
    assert ra["pmd_split"] == 3
    assert ra["split_causes"] == {"munmap": 3}
    assert ra["top_cause"] == "munmap"
    [ta] = ra["tasks"]
    assert ta["pid"] == pa.pid and ta["alive"] is True
    assert ta["split_causes"] == {"munmap": 3} and ta["top_cause"] == "munmap"
    # thp_workload calls munmap itself: told so from its sampled splitting
    # call, or else (none sampled) its maps name glibc's malloc.
    if ta["stack"]:
        assert (ta["allocator"], ta["allocator_from"]) == ("the program itself", "stack"), ta
    else:
        assert (ta["allocator"], ta["allocator_from"]) == ("glibc malloc", "maps"), ta
        assert "glibc.malloc.trim_threshold=" in ta["advice"]

    rb = daemon.ctl("explain", str(pb.pid))
    assert "cgroup" not in rb or rb.get("split_causes") is None
    [tb] = rb["tasks"]
    assert tb["pid"] == pb.pid and tb["cgroup"] == cgroups.rel(b)
    assert tb["split_causes"] == {"mprotect": 2} and tb["top_cause"] == "mprotect"

    rc, text, err = daemon.ctl_rc("explain", cgroups.rel(a))
    assert rc == 0, err
    assert f"cgroup {cgroups.rel(a)}: 3 PMD splits, top cause munmap, 1 tasks" in text
    assert f"pid {pa.pid} thp_workload in {cgroups.rel(a)}: 3 PMD splits, top cause munmap" \
        in text
    assert "by cause: munmap 3" in text
    assert re.search(r"allocator: (glibc malloc|the program itself) \(from the ", text), text
    rc, text, err = daemon.ctl_rc("explain", str(pb.pid))
    assert rc == 0, err
    assert "top cause mprotect" in text and "by cause: mprotect 2" in text
    for p in (pa, pb):
        p.kill()
        p.wait()


def test_madvise_advice_is_told(daemon, cgroups):
    """MADV_DONTNEED of all but a page of a THP splits it; the advice is
    read from the syscall's arguments."""
    d = cgroups.make("XD")
    p = cgroups.workload(d, "fault", 3, "keep1", 2, "hold", 60)
    wait_splits(daemon, cgroups, d, 2, "MADV_DONTNEED splits")
    [t] = daemon.ctl("explain", str(p.pid))["tasks"]
    assert t["split_causes"] == {"madvise_dontneed": 2}
    assert t["top_cause"] == "madvise_dontneed"
    p.kill()
    p.wait()


# Each step splits 2 THPs under another call; what each kernel path counts.
ADVICE_STEPS = [("free1", "madvise_free"), ("pageout1", "madvise_pageout"),
                ("shrink", "mremap")]


@pytest.mark.parametrize("step,cause", ADVICE_STEPS)
def test_each_call_is_told(daemon, cgroups, step, cause):
    """MADV_FREE or MADV_PAGEOUT of part of a THP, or an mremap that
    shrinks it, splits it (the kernel's thp_split_pmd counts each); the
    split is charged to the task with that call as its cause. MADV_FREE and
    MADV_PAGEOUT split the whole folio, whose PMD goes as in a whole unmap
    (both NR_ANON_* drop): the memcg modes tell it by the advice."""
    d = cgroups.make("XC")
    before = vmstat().get("thp_split_pmd", 0)
    p = cgroups.workload(d, "fault", 3, step, 2, "hold", 60)
    wait_for(lambda: vmstat().get("thp_split_pmd", 0) - before >= 2, what="the kernel's splits")
    wait_splits(daemon, cgroups, d, 2, f"{step} splits")
    [t] = daemon.ctl("explain", str(p.pid))["tasks"]
    assert t["pmd_split"] == 2 and t["pmd_unmap_whole"] == 0, t
    assert t["split_causes"] == {cause: 2} and t["top_cause"] == cause, t
    p.kill()
    p.wait()


@host_only
def test_explain_refuses_bad_targets(daemon, cgroups):
    rc, _, err = daemon.ctl_rc("explain", "/no/such/cgroup/taodtest")
    assert rc == 1 and "not a memory cgroup taod tracks" in err
    rc, _, err = daemon.ctl_rc("explain", "nonsense")
    assert rc == 2 and "CGROUP (a path from /) or PID" in err
    rc, _, err = daemon.ctl_rc("explain", "999999999")
    assert rc == 1 and "no such process 999999999" in err, err
    quiet = subprocess.Popen(["sleep", "30"])  # a process with no THP fault
    try:
        rc, _, err = daemon.ctl_rc("explain", str(quiet.pid))
        assert rc == 1 and "no THP event" in err, err
    finally:
        quiet.kill()
        quiet.wait()


def test_cow_after_fork_split_is_counted(daemon, cgroups):
    """A parent's write to THPs it shares with its child after fork splits
    the parent's PMDs (the child's stay): vmstat thp_split_pmd counts each
    then. In THP paths mode taod counts them then too, with cause cow, and
    the child's PMD mappings, the last ones, are whole unmaps when it exits.
    The memcg modes see no trace of a split that leaves another PMD mapping:
    they count it when the child's last PMD mapping goes while the parent
    still maps the other pages (cause exit). Once the child is gone, the
    cgroup's pmd_split is the kernel's count either way (docs/architecture.md,
    "Why THPs split")."""
    n = 6
    c = cgroups.make("COW")
    mode = daemon.ctl("status")["observation_mode"]
    before = vmstat().get("thp_split_pmd", 0)
    p = cgroups.workload(c, "fault", n, "fork-cow", n, "wait-signal", "end-child", "hold", 60)
    wait_for(lambda: (r := cgroup_row(daemon, cgroups.rel(c))) and r["thp_alloc"] >= n,
             what="THP faults")
    wait_for(lambda: vmstat().get("thp_split_pmd", 0) - before >= n, what="the kernel's COW splits")
    kernel = vmstat().get("thp_split_pmd", 0) - before
    daemon.wait_ticks(3)
    row = cgroup_row(daemon, cgroups.rel(c))
    # thp_split_pmd is machine-wide: other splits may add to it.
    if mode == THP_PATHS:
        assert row["pmd_split"] == n <= kernel, f"taod {row['pmd_split']}, kernel {kernel}"
        [t] = daemon.ctl("explain", str(p.pid))["tasks"]
        assert t["split_causes"] == {"cow": n} and t["top_cause"] == "cow"
        assert t["pmd_unmap_whole"] == 0
    else:
        assert row["pmd_split"] == 0, f"{mode}: taod {row['pmd_split']}, kernel {kernel}"
    os.kill(p.pid, 10)  # SIGUSR1: the child exits, the parent holds its PTEs
    # THP paths: the child's PMD mappings, the last ones, go whole; the
    # memcg modes: each goes as the split the kernel counted at the fault.
    key = "pmd_unmap_whole" if mode == THP_PATHS else "pmd_split"
    row = wait_for(lambda: (r := cgroup_row(daemon, cgroups.rel(c))) and r[key] >= n and r,
                   what=f"the child's exit counted (the kernel's splits: {kernel})")
    daemon.wait_ticks(2)
    row = cgroup_row(daemon, cgroups.rel(c))
    assert row["pmd_split"] == n <= kernel, f"{mode}: taod {row['pmd_split']}, kernel {kernel}"
    assert row["pmd_unmap_whole"] == (n if mode == THP_PATHS else 0), row
    r = daemon.ctl("explain", cgroups.rel(c))
    assert r["split_causes"] == ({"cow": n} if mode == THP_PATHS else {"exit": n}), (mode, r)
    p.kill()
    p.wait()


def sampled_splitter(daemon, cgroups, step):
    """A workload running @step for a minute in a cgroup of its own, and
    its explain task once a split stack of it is sampled."""
    c = cgroups.make("XS")
    p = cgroups.workload(c, step, 60)
    wait_splits(daemon, cgroups, c, 3, f"{step} splits")

    def sampled():
        [t] = daemon.ctl("explain", str(p.pid))["tasks"]
        return t["stack"] and t["stack"]["frames"] and t

    return p, wait_for(sampled, what="a sampled split stack")


def test_top_offender_split_stack_is_sampled(daemon, cgroups):
    """The top offenders' splits are sampled with their user stack; explain
    names the frames' files and taoctl their functions."""
    p, t = sampled_splitter(daemon, cgroups, "abuse")
    assert t["stack"]["cause"] == "munmap" and t["stack"]["samples"] >= 1
    files = [f["file"] for f in t["stack"]["frames"]]
    assert str(BUILD_WORKLOAD) in files, files
    # Issue 26: its own munmap (libc's wrapper, called from the program) is
    # the program's doing, not glibc malloc's, told from the frames.
    assert t["allocator"] == "the program itself", t
    assert t["allocator_from"] == "stack" and "munmap or madvise" in t["advice"], t
    rc, text, err = daemon.ctl_rc("explain", str(p.pid))
    assert rc == 0, err
    assert "last split stack" in text
    assert "allocator: the program itself (from the splitting call's frames)" in text, text
    assert re.search(rf"#\d+ {re.escape(str(BUILD_WORKLOAD))}\+0x[0-9a-f]+ \w+\+0x", text), text
    p.kill()
    p.wait()


# make check builds the workload with ASan, whose allocator replaces glibc's.
asan_workload = pytest.mark.skipif(b"__asan_init" in WORKLOAD.read_bytes(),
                                   reason="the workload's malloc is ASan's, not glibc's")


@asan_workload
def test_glibc_trim_is_told_from_its_frames(daemon, cgroups):
    """Issue 26: glibc's malloc trimming its heap (its own brk, from free)
    is glibc malloc's, told from the frames, with glibc's switch that
    stops it: trim_threshold."""
    p, t = sampled_splitter(daemon, cgroups, "heap-trim")
    assert t["allocator"] == "glibc malloc", t
    assert t["allocator_from"] == "stack", t
    assert "glibc.malloc.trim_threshold=" in t["advice"], t
    p.kill()
    p.wait()


def test_per_thread_arena_trims_are_told_glibc_malloc(daemon, cgroups):
    """Issue 26 item 5: a glibc cache server's workers (kvcache, 4 threads,
    each in its own arena) split THPs from glibc's own frees and trims,
    never calling munmap or madvise themselves: glibc's malloc, with its
    trim_threshold advice, not the program itself (libc keeps no frame
    pointers, so a sampled stack may show the program right below libc's
    wrapper; the program's imports tell, unit tests test_elf_file.c)."""
    c = cgroups.make("arenas")
    p = cgroups.spawn(c, KVCACHE, 96, 60, 4)
    time.sleep(1)  # filled
    assert collapse_all(p.pid) >= 8
    wait_splits(daemon, cgroups, c, 1, "its heaps' frees split THPs")

    def told():
        t = max(daemon.ctl("explain", cgroups.rel(c))["tasks"], key=lambda t: t["pmd_split"])
        return t["allocator"] and t

    t = wait_for(told, what="an allocator told")
    assert t["allocator"] == "glibc malloc", t
    assert "glibc.malloc.trim_threshold=" in t["advice"], t
    p.kill()
    p.wait()


def hostile_elf(path, nsec=65535):
    """A 64-bit ELF of @nsec section headers, all there, and section names
    (section 1) that none of them has: a reader walks every header."""
    import struct
    names = b"\0.shstrtab\0"
    data = 64 + 64 * nsec
    eh = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack(
        "<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, 64, 0, 64, 0, 0, 64, nsec, 1)
    strtab = struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, data, len(names), 0, 0, 1, 0)
    path.write_bytes(eh + b"\0" * 64 + strtab + b"\0" * (64 * (nsec - 2)) + names)


@host_only
def test_explain_of_a_hostile_tenant_never_stalls_taod(daemon, cgroups, tmp_path, monkeypatch):
    """Issue 27: a FIFO at a deleted mapping's name hung taod's loop in
    open(); ELF files of 65,535 section headers mapped 100 times held it
    26 s. explain now answers with the files it could look up within its
    budget, and ping is answered within 100 ms all the while."""
    import socket as so
    import threading
    import time

    scratch = tmp_path / "hostile"
    scratch.mkdir()
    for name in ("a.so", "b.so"):
        hostile_elf(scratch / name)
    monkeypatch.setenv("TAOD_WORKLOAD_SCRATCH", str(scratch))
    s = cgroups.make("hostile")
    # MADV_DONTNEED splits, one THP at a time: their frames carry build-ids
    # (munmap's hold mmap_lock: bare IPs), which taod matches to files.
    p = cgroups.workload(s, "fifo-deleted", 4, "map-scratch", 50,
                         *["fault", 1, "keep1", 1, "hold-ms", 100] * 300)
    wait_splits(daemon, cgroups, s, 3, "the hostile tenant's splits")
    wait_for(lambda: daemon.ctl("explain", str(p.pid))["tasks"][0]["stack"],
             what="a sampled split stack")
    assert (scratch / "heap0 (deleted)").is_fifo()

    replies, slowest, stop = [], [0.0], threading.Event()

    def explain_again():
        while not stop.is_set():
            t0 = time.monotonic()
            replies.append((daemon.request(
                f'{{"command": "explain", "args": {{"pid": {p.pid}}}}}\n'.encode(), timeout=20),
                time.monotonic() - t0))

    def ping_once():
        with so.socket(so.AF_UNIX, so.SOCK_STREAM) as c:
            c.settimeout(10)
            t0 = time.monotonic()
            c.connect(daemon.socket)
            c.sendall(b'{"command": "ping"}\n')
            assert b'"ok":true' in c.recv(65536)
            return time.monotonic() - t0

    worker = threading.Thread(target=explain_again)
    worker.start()
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            slowest[0] = max(slowest[0], ping_once())
            time.sleep(0.01)
    finally:
        stop.set()
        worker.join(30)
    assert not worker.is_alive(), "explain never returned"
    assert len(replies) >= 3, replies
    import json
    for raw, took in replies:
        rep = json.loads(raw)
        assert rep["ok"] and took < 1.0, (took, rep)
        assert rep["file_lookups"]["opened"] <= 64, rep["file_lookups"]
        files = [f["file"] for f in rep["tasks"][0]["stack"]["frames"]]
        assert not any(f and f.endswith(" (deleted)") for f in files), files
    assert slowest[0] < 0.1, f"ping took {slowest[0] * 1000:.0f} ms during explain"
    p.kill()
