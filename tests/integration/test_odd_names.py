"""Cgroup names and trees are what their owner chose: whatever they hold, taod's
JSON, metrics textfile, audit log and journal lines stay valid and one
record per line."""
import json
import os
import re
import resource
import subprocess
import time
from pathlib import Path

from conftest import (TAOCTL, TAOD, TIME_SCALE, WORKLOAD, anon_huge_kib, cgroup_row,
                      enable_memory_below, wait_for,
                      host_only, any_mode, one_kernel)
from test_enforce import THP_KIB, WINDOW_S, enforce_conf

ODD = b'taodtest-odd-\xff"q\\z\ttab'  # the kernel refuses '\n' in cgroup names
ODD_NO_NL = b'taodtest-odd-\xfe"q\\z'


def utf8_ok(data: bytes):
    data.decode("utf-8")  # raises on ill-formed bytes


def test_odd_cgroup_names_leave_taod_well_formed(daemon_factory, cgroups, tmp_path):
    prom = tmp_path / "taod.prom"
    audit = tmp_path / "audit.jsonl"
    made = [os.path.join(os.fsencode(cgroups.base), n) for n in (ODD, ODD_NO_NL)]
    for m in made:
        os.mkdir(m)
    try:
        d = daemon_factory(f"[metrics]\ntextfile = {prom}\n"
                           f"[enforce]\nmode = observe\naudit_log = {audit}\n")
        root = b"/sys/fs/cgroup/memory" if cgroups.version == 1 else b"/sys/fs/cgroup"
        rel = b"/" + os.path.relpath(made[1], root)

        def listed():
            raw = subprocess.run([str(TAOCTL), "--socket", d.socket, "--json", "cgroups"],
                                 capture_output=True, timeout=30).stdout
            utf8_ok(raw)
            return [c["path"] for c in json.loads(raw) if "taodtest-odd-" in c["path"]]
        paths = wait_for(lambda: len(listed()) == 2 and listed(), what="odd cgroups listed")
        assert any("\ufffd" in p and "\t" in p for p in paths), paths

        wait_for(prom.exists, what="metrics textfile")
        text = prom.read_bytes()
        utf8_ok(text)
        for line in text.decode().splitlines():
            assert line.startswith("#") or line.startswith("taod_"), line

        rc = subprocess.run([os.fsencode(TAOCTL), b"--socket", os.fsencode(d.socket), b"act",
                             b"warn", b"--cgroup", rel], capture_output=True,
                            timeout=30).returncode
        assert rc == 1  # the gate's dry run, not asked for: not done
        wait_for(audit.exists, what="audit line")
        lines = audit.read_bytes().splitlines()
        assert len(lines) == 1
        utf8_ok(lines[0])
        rec = json.loads(lines[0])
        assert rec["result"] == "dry-run" and "\ufffd" in rec["cgroup"]
        # The journal notice: the value quoted, its quote, backslash and
        # invalid byte escaped, so the name cannot forge a field.
        escaped = rel.decode("latin-1").replace("\\", "\\\\").replace('"', '\\"')
        escaped = escaped.replace("\xfe", "\\xfe")
        assert f'kind=warn cgroup="{escaped}" pid=0 ' in d.logtext(), d.logtext()
    finally:
        for m in made:
            os.rmdir(m)


# A walk of cgroup v2's directories, no THP code: one guest in the lab.
@one_kernel
def test_a_tree_deeper_than_the_soft_fd_limit_is_seen_whole(daemon_factory, cgroups):
    """The walk holds a directory fd per level: a tenant nesting cgroups
    1100 deep under systemd's soft limit of 1024 fds hid its lower ones."""
    top = cgroups.make("deep")
    leaf = top
    for _ in range(1100):
        leaf = leaf / "d"
        leaf.mkdir()
    try:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        d = daemon_factory(wrap=("prlimit", f"--nofile=1024:{hard}"))
        rel = cgroups.rel(leaf)
        wait_for(lambda: any(c["path"] == rel for c in d.ctl("cgroups", rel)),
                 what="the deepest cgroup listed")
    finally:
        while leaf != top:
            leaf.rmdir()
            leaf = leaf.parent


def shown(name: str):
    """A name as taoctl's tables print it: control characters as \\xNN, a C1
    control (U+0080..U+009F) as the two bytes of its UTF-8."""
    def one(c):
        if ord(c) < 0x20 or ord(c) == 0x7f:
            return f"\\x{ord(c):02x}"
        if 0x80 <= ord(c) <= 0x9f:
            return "".join(f"\\x{b:02x}" for b in c.encode())
        return c
    return "".join(one(c) for c in name)


def terminal_safe(out: bytes):
    """No byte that drives a terminal: C0 but newline, DEL, C1 as UTF-8."""
    text = out.decode("utf-8", errors="surrogateescape")
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
           or 0xdc80 <= ord(c) <= 0xdcff]
    return not bad


def test_a_name_with_tab_and_esc_is_judged_shattered_and_printed_escaped(daemon_factory, cgroups,
                                                                          tmp_path):
    """The kernel allows control characters in a cgroup name: such a cgroup
    is acted on like any other (it used to end "vanished, EINVAL"), JSON
    carries its bytes, and only taoctl's tables escape them."""
    d = daemon_factory(enforce_conf(tmp_path, cgroups.rel(cgroups.base),
                                    "min_allocs = 8\nmax_split_ratio = 0.25\n"
                                    "ladder = shatter:1\n"))
    a = cgroups.make("tab\there-esc\x1bm-c1\x9b31m")
    rel = cgroups.rel(a)
    # Any task may name itself: its comm (the exec'd name) holds ESC and BEL.
    comm = "w\x1b]0;x\x07\x9b"
    (tmp_path / comm).symlink_to(WORKLOAD)
    p = cgroups.spawn(a, tmp_path / comm, "fault", 8, "abuse", 40)
    assert Path(f"/proc/{p.pid}/comm").read_text().rstrip("\n") == comm
    wait_for(lambda: anon_huge_kib(p.pid) >= 8 * THP_KIB, what="THPs faulted")
    splits_from = time.time()  # "abuse" starts splitting once the 8 are faulted

    def shattered():
        return any(x["action"] == "shatter" and x["result"] == "done" and x["pid"] == p.pid
                   for x in d.ctl("actions", "--cgroup", rel))

    wait_for(shattered, timeout=10 * WINDOW_S, what="the abuser to be shattered")
    # Judged abuser in the first window of its splits (escalate_after = 1),
    # shattered by the next tick: two windows, with a tick of slack for load.
    took = time.time() - splits_from
    assert took <= (2 * WINDOW_S + 2) * TIME_SCALE, took
    wait_for(lambda: anon_huge_kib(p.pid) < 2 * THP_KIB, timeout=10 * WINDOW_S,
             what="the abuser's THPs to be split")
    assert next(r for r in d.ctl("abusers") if r["cgroup"] == rel)["class"] == "abuser"

    assert any(t["comm"] == comm for t in d.ctl("top-tasks"))  # JSON: the bytes as they are
    def in_history():
        out = subprocess.run([str(TAOCTL), "report", "--db", tmp_path / "history.db", "--json"],
                             capture_output=True, text=True, timeout=30).stdout
        return any(c["path"] == rel for c in json.loads(out)["cgroups"])
    wait_for(in_history, what="the cgroup in the history")
    for cmd in (["cgroups"], ["actions"], ["abusers"], ["top-tasks"], ["explain", rel],
                ["explain", str(p.pid)], ["report", "--db", str(tmp_path / "history.db")]):
        out = subprocess.run([str(TAOCTL), "--socket", d.socket, *cmd], capture_output=True,
                             timeout=30).stdout
        assert terminal_safe(out), (cmd, out)
        assert shown(rel).encode() in out, (cmd, out)
        if cmd[0] in ("top-tasks", "abusers", "explain"):
            assert shown(comm).encode() in out, (cmd, out)


def test_a_cgroup_deeper_than_path_max_is_tracked_and_acted_on(daemon_factory, cgroups, tmp_path):
    """25 levels of 200-byte names: no path of it fits PATH_MAX, so only
    openat relative to its parent reaches it. It used to be left out of the
    walk, and an action on it could not be asked for."""
    top = cgroups.make("pathmax")
    names = [f"{i:02d}" + "p" * 198 for i in range(25)]
    rel = cgroups.rel(top) + "".join("/" + n for n in names)
    assert len(rel) > 4096
    base = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    fds, p = [base], None
    try:
        for n in names:
            enable_memory_below(fds[-1], cgroups.version)
            os.mkdir(n, dir_fd=fds[-1])
            fds.append(os.open(n, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
        leaf = fds[-1]

        def join():
            procs = os.open("cgroup.procs", os.O_WRONLY, dir_fd=leaf)
            os.write(procs, str(os.getpid()).encode())
            os.close(procs)
        # thp-off once faulted: khugepaged must not collapse back what the
        # shatter split before the test looks.
        p = subprocess.Popen([str(WORKLOAD), "fault", "8", "thp-off", "hold", "60"],
                             preexec_fn=join,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(leaf,))
        cgroups.procs.append(p)
        d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = stock\n"
                           f"actions_per_minute = 60\nshatter_bytes_per_minute = 1G\n"
                           f"audit_log = {tmp_path}/audit.jsonl\n")
        wait_for(lambda: anon_huge_kib(p.pid) >= 8 * THP_KIB, what="THPs faulted")
        # Listed, and its memory.stat read through the chain of directories.
        wait_for(lambda: (r := cgroup_row(d, rel)) and r["anon_bytes"] >= 8 * 2 ** 21,
                 what="the deep cgroup listed with its memory.stat")
        # --all: its THPs came before taod did, so the table counts it idle.
        out = subprocess.run([str(TAOCTL), "--socket", d.socket, "cgroups", "--all"],
                             capture_output=True, text=True, timeout=30).stdout
        assert rel in out

        rec = d.act("shatter", "--cgroup", rel, "--dry-run")
        assert rec["result"] == "dry-run", rec
        rec = d.act("shatter", "--cgroup", rel)
        assert rec["result"] == "done", rec
        assert rec["cgroup"] == rel
        # What it says it split is what the page tables show gone (6.1's
        # debugfs split passes over a THP whose page lock is held).
        split = int(re.search(r"split (\d+) THPs", rec["detail"])[1])
        assert split >= 1 and anon_huge_kib(p.pid) == (8 - split) * THP_KIB, rec["detail"]
    finally:
        if p:
            p.kill()
            p.wait()
        for i in range(len(names) - 1, -1, -1):
            if i + 1 < len(fds):
                os.close(fds[i + 1])
                for _ in range(50):
                    try:
                        os.rmdir(names[i], dir_fd=fds[i])
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.1)
        os.close(base)


@any_mode
def test_allowlisting_a_parent_protects_its_subtree_and_eq_one_cgroup_alone(daemon_factory,
                                                                           cgroups, tmp_path):
    """A child of an allowlisted cgroup was shattered: an entry now protects
    the cgroups it matches and everything below them; "=PATH" protects that
    cgroup alone."""
    guard, only = cgroups.make("guard"), cgroups.make("only")
    guard_child, only_child = guard / "child", only / "child"
    for c in (guard_child, only_child):
        c.mkdir()
        cgroups.made.append(c)
    rg, ro = cgroups.rel(guard), cgroups.rel(only)
    d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = dry-run\n"
                       f"allowlist = {rg} ={ro}\naudit_log = {tmp_path}/audit.jsonl\n")

    def warn(rel):
        return d.act("warn", "--cgroup", rel)
    rec = warn(cgroups.rel(guard_child))
    assert rec["result"] == "allowlisted", rec
    assert f'"{rg}" (subtree of {rg})' in rec["detail"], rec
    rec = warn(ro)
    assert rec["result"] == "allowlisted" and f'"={ro}" (exact)' in rec["detail"], rec
    rec = warn(rg)
    assert rec["result"] == "allowlisted" and "(the cgroup)" in rec["detail"], rec
    rec = warn(cgroups.rel(only_child))
    assert rec["result"] == "done", rec


@host_only
def test_a_bare_eq_in_the_allowlist_is_refused_with_file_and_line(tmp_path):
    conf = tmp_path / "eq.conf"
    conf.write_text("[enforce]\nmode = enforce\nallowlist = /a.slice = /b\n")
    p = subprocess.run([str(TAOD), "--check-config", "-c", str(conf)], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 1
    assert f'{conf}:3: [enforce] allowlist = "/a.slice = /b"' in p.stderr, p.stderr
    assert '"=GLOB"' in p.stderr, p.stderr
