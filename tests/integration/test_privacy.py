"""Privacy of the control socket: a reader who is neither root nor in
`[control] group` sees only the cgroups whose directory it owns, and of
other users' tasks in them never the comm, stack or allocator; root and the
group's members see everything (taod.conf(5), "Privacy")."""
import json
import os
import subprocess

import pytest

from conftest import TAOCTL, WORKLOAD, cgroup_row, host_only, one_kernel, wait_for

NOBODY = 65534
PRIVATE = ("comm", "stack", "allocator", "advice")


def ctl_as(d, setpriv, *args):
    """taoctl --json as another user (setpriv's credential options): rc, reply."""
    p = subprocess.run(["setpriv", *setpriv, str(TAOCTL), "--socket", d.socket, "--json",
                        *map(str, args)], capture_output=True, text=True, timeout=30)
    return p.returncode, json.loads(p.stdout) if p.returncode == 0 else p.stderr


AS_NOBODY = ["--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups"]


@pytest.fixture
def tenants(daemon_factory, public_dir, cgroups):
    """A daemon any user may connect to; cgroup `mine`, owned by nobody,
    with a task of nobody's and one of root's; cgroup `theirs` (root's)
    with one of root's. Each task split THPs, so each has rows."""
    d = daemon_factory("[control]\nsocket_mode = 0666\n", socket_dir=public_dir)
    mine, theirs = cgroups.make("MINE"), cgroups.make("THEIRS")
    os.chown(mine, NOBODY, -1)
    steps = ("fault", 4, "partial", 3, "hold", 60)
    # Joins as root (preexec), then runs as nobody.
    own = cgroups.spawn(mine, "setpriv", *AS_NOBODY, WORKLOAD.resolve(), *steps)
    roots = cgroups.workload(mine, *steps)
    other = cgroups.workload(theirs, *steps)
    for cg, splits in ((mine, 6), (theirs, 3)):
        wait_for(lambda: (r := cgroup_row(d, cgroups.rel(cg))) and r["pmd_split"] >= splits,
                 what=f"splits in {cg.name}")
    d.wait_ticks(2)
    return d, cgroups.rel(mine), cgroups.rel(theirs), own.pid, roots.pid, other.pid


@one_kernel
def test_other_users_see_only_their_own(tenants):
    d, mine, theirs, own, roots, other = tenants
    rc, r = ctl_as(d, AS_NOBODY, "cgroups", "--all")
    assert rc == 0, r
    assert [c["path"] for c in r] == [mine]

    rc, tasks = ctl_as(d, AS_NOBODY, "top-tasks", "--limit", 8192)
    assert rc == 0, tasks
    by_pid = {t["pid"]: t for t in tasks}
    assert set(by_pid) == {own, roots}, by_pid
    assert by_pid[own]["comm"] == "thp_workload"
    assert by_pid[roots]["comm"] is None and by_pid[roots]["pmd_split"] == 3

    rc, r = ctl_as(d, AS_NOBODY, "explain", mine)
    assert rc == 0, r
    by_pid = {t["pid"]: t for t in r["tasks"]}
    assert set(by_pid) == {own, roots}
    assert by_pid[own]["allocator"] == "glibc malloc"
    assert all(by_pid[roots][k] is None for k in PRIVATE), by_pid[roots]
    # Another user's cgroup or task gets the answer a missing one gets,
    # before any work (issue 37 item 3): neither the reply nor its time
    # tells which it was.
    rc, err = ctl_as(d, AS_NOBODY, "explain", theirs)
    rc2, err2 = ctl_as(d, AS_NOBODY, "explain", theirs + "-none")
    assert rc == rc2 == 1 and "no memory cgroup of uid 65534's" in err, err
    assert err.replace(theirs, "X") == err2.replace(theirs + "-none", "X"), (err, err2)
    rc, err = ctl_as(d, AS_NOBODY, "explain", other)
    assert rc == 1 and f"no process {other} of uid 65534's" in err, err
    rc, err = ctl_as(d, AS_NOBODY, "explain", 4194000)  # above pid_max: no such
    assert rc == 1 and "no process 4194000 of uid 65534's" in err, err

    rc, err = ctl_as(d, AS_NOBODY, "policy", theirs)
    assert rc == 1 and "no memory cgroup of uid 65534's" in err, err
    rc, err = ctl_as(d, AS_NOBODY, "metrics")
    assert rc == 1 and "permission denied" in err and "[control] group" in err, err
    # Text output copes with the fields removed.
    p = subprocess.run(["setpriv", *AS_NOBODY, str(TAOCTL), "--socket", d.socket, "explain",
                        mine], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and f"pid {roots} " in p.stdout, p.stdout + p.stderr
    assert p.stdout.count("thp_workload") == 1, p.stdout

    # Root sees every row and field.
    assert theirs in [c["path"] for c in d.ctl("cgroups", "--all")]
    tasks = {t["pid"]: t for t in d.ctl("top-tasks", "--limit", "8192")}
    assert tasks[other]["comm"] == tasks[roots]["comm"] == "thp_workload"


@one_kernel
def test_actions_and_abusers_show_only_own_cgroups(tenants):
    d, mine, theirs, *_ = tenants
    for cg in (mine, theirs):
        d.act("warn", "--cgroup", cg, "--dry-run")
    rc, acts = ctl_as(d, AS_NOBODY, "actions", "--limit", 1024)
    assert rc == 0, acts
    assert [a["cgroup"] for a in acts] == [mine]
    assert {a["cgroup"] for a in d.ctl("actions")} >= {mine, theirs}
    rc, r = ctl_as(d, AS_NOBODY, "abusers", "--all")
    assert rc == 0, r
    assert all(t["cgroup"] == mine for t in r), r


@host_only
def test_the_group_sees_everything(daemon_factory, public_dir):
    """[control] group's members, by primary or supplementary group, see what
    root sees, and the socket is theirs to open at mode 0660."""
    d = daemon_factory("[control]\nsocket_mode = 0660\ngroup = nogroup\n",
                       socket_dir=public_dir)
    st = os.stat(d.socket)
    assert (st.st_mode & 0o777, st.st_gid) == (0o660, NOBODY)
    for creds in (["--reuid", "1", "--regid", str(NOBODY), "--clear-groups"],
                  ["--reuid", "1", "--regid", "1", "--groups", str(NOBODY)]):
        rc, r = ctl_as(d, creds, "cgroups", "--all")
        assert rc == 0, (creds, r)
        assert len(r) >= 2, (creds, r)  # taod's own cgroup and those above it
        rc, r = ctl_as(d, creds, "metrics")
        assert rc == 0, r
    rc, err = ctl_as(d, ["--reuid", "1", "--regid", "1", "--clear-groups"], "status")
    assert rc == 4, err


@host_only
def test_shipped_socket_is_private(daemon_factory, public_dir):
    """Without a socket_mode of its own taod's socket is 0660: other users
    cannot connect, and a missing group leaves it root's alone."""
    d = daemon_factory("[control]\ngroup = taod-test-no-such-group\n", socket_dir=public_dir)
    assert os.stat(d.socket).st_mode & 0o777 == 0o660
    rc, err = ctl_as(d, AS_NOBODY, "status")
    assert rc == 4, err
    assert "only root sees every tenant's rows" in d.logtext()


@host_only
def test_other_users_requests_cost_taod_nothing_in_its_loop(tenants, cgroups):
    """Issue 37 item 3: with thousands of cgroups, `cgroups --all` from a
    reader who does not see all cost taod half a second of its loop to
    answer "[]", and 16 such clients left 8 ticks in 27 s. Expected,
    written before the run: with 3,000 cgroups and 4 of nobody's clients
    asking without pause for 4 s, root's pings answer within 100 ms, ticks
    keep their 200 ms interval, and each of nobody's replies is its own
    rows or "busy" (one request at a time, 500 ms a second)."""
    import socket
    import threading
    import time
    d, mine, *_ = tenants
    parent = cgroups.make("many")
    from conftest import enable_memory_below
    enable_memory_below(parent, cgroups.version)
    made = []
    try:
        for i in range(3000):
            (parent / f"c{i}").mkdir()
            made.append(parent / f"c{i}")
        wait_for(lambda: d.ctl("status")["tree_backlog"] == 0, timeout=60,
                 what="the cgroups walked")
        stop, replies = threading.Event(), []

        def ask():
            while not stop.is_set():
                replies.append(ctl_as(d, AS_NOBODY, "cgroups", "--all"))

        askers = [threading.Thread(target=ask) for _ in range(4)]
        ticks0, t0, worst = d.ctl("status")["ticks"], time.monotonic(), 0.0
        for a in askers:
            a.start()
        while time.monotonic() - t0 < 4:
            p0 = time.monotonic()
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(10)
                s.connect(d.socket)
                s.sendall(b'{"command": "ping"}\n')
                assert b'"ok":true' in s.recv(4096).replace(b" ", b"")
            worst = max(worst, time.monotonic() - p0)
            time.sleep(0.05)
        stop.set()
        for a in askers:
            a.join(60)
        took = time.monotonic() - t0
        ticks = d.ctl("status")["ticks"] - ticks0
        assert worst < 0.1, f"ping took {worst * 1000:.0f} ms"
        assert ticks >= took / 0.2 * 0.5, (ticks, took)
        ok = [r for rc, r in replies if rc == 0]
        assert ok and all([c["path"] for c in r] == [mine] for r in ok), ok[:2]
        assert all("busy" in r for rc, r in replies if rc != 0), replies[:3]
    finally:
        for c in reversed(made):
            c.rmdir()
