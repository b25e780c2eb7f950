"""The control socket keeps serving whatever clients send."""
import json
import socket
import subprocess
import threading
import time

from conftest import TAOCTL, TAOD, wait_for, host_only

pytestmark = host_only


def ok_status(d):
    st = d.ctl("status")
    assert st["ok"] is True
    return st


def reply(d, raw):
    return json.loads(d.request(raw).decode())


def test_garbage_gets_an_error_and_the_daemon_serves_on(daemon):
    cases = [
        (b"\x00\xff\xfe garbage\n", "malformed JSON"),
        (b"{\"command\": \n", "malformed JSON"),
        (b"[1, 2, 3]\n", "\"command\""),
        (b"{\"command\": 7}\n", "\"command\""),
        (b"{\"command\": \"status\", \"args\": []}\n", "\"args\""),
        (b"{\"command\": \"no-such-thing\"}\n", "unknown command"),
        (b"{\"command\": \"top-tasks\", \"args\": {\"limit\": \"ten\"}}\n", "args.limit"),
        (b"{\"command\": \"top-tasks\", \"args\": {\"limit\": -1}}\n", "args.limit"),
        (b"{\"command\": \"cgroups\", \"args\": {\"sort\": 5}}\n", "must be strings"),
        (b"{\"command\":\"x\",\"args\":{\"a\":" + b"[" * 100 + b"\n", "malformed JSON"),
        (b"\n", "empty request"),
    ]
    for raw, want in cases:
        r = reply(daemon, raw)
        assert r["ok"] is False, raw
        assert want in r["error"], (raw, r)
    ok_status(daemon)


def test_oversized_request_is_refused(daemon):
    big = b"{\"command\": \"status\", \"pad\": \"" + b"x" * (200 * 1024) + b"\"}\n"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(daemon.socket)
        try:
            s.sendall(big)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the daemon may close while we still send
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
    r = json.loads(data.decode().splitlines()[0])
    assert r["ok"] is False and "larger than 65536 bytes" in r["error"]
    ok_status(daemon)


def test_silent_and_half_open_clients_do_not_stall_it(daemon):
    idle = []
    for _ in range(20):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(daemon.socket)
        s.sendall(b"{\"command\": \"sta")  # never finished
        idle.append(s)
    t0 = time.time()
    ok_status(daemon)
    assert time.time() - t0 < 4, "a stalled client delayed others"  # they time out at 5 s
    # Abrupt disconnects mid-request.
    for s in idle:
        s.close()
    ok_status(daemon)


def test_many_concurrent_clients(daemon):
    errors = []

    def hammer():
        for _ in range(20):
            try:
                r = reply(daemon, b"{\"command\": \"cgroups\"}\n")
                assert r["ok"] is True
            except Exception as e:  # noqa: BLE001 - collected for the assert
                errors.append(e)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    ok_status(daemon)


def test_readers_root_refuses_other_users(daemon_factory, public_dir):
    d = daemon_factory("[control]\nreaders = root\n", socket_dir=public_dir)
    rc, out, err = d.ctl_rc("status", user="nobody")
    assert rc == 1
    assert "permission denied" in err and "needs root" in err
    assert d.ctl("status")["ok"]


def test_readers_all_serves_other_users(daemon_factory, public_dir):
    d = daemon_factory(socket_dir=public_dir)
    rc, out, err = d.ctl_rc("--json", "status", user="nobody")
    assert rc == 0, err
    assert json.loads(out)["ok"] is True


def test_socket_mode_denies_connect(daemon_factory, public_dir):
    d = daemon_factory("[control]\nsocket_mode = 0600\n", socket_dir=public_dir)
    rc, out, err = d.ctl_rc("status", user="nobody")
    assert rc == 4, (rc, err)
    assert "may not connect" in err


def test_taoctl_when_daemon_not_running(tmp_path):
    p = subprocess.run([str(TAOCTL), "--socket", str(tmp_path / "none.sock"), "status"],
                       capture_output=True, text=True)
    assert p.returncode == 3
    assert "taod is not running" in p.stderr


def test_taoctl_usage_errors(daemon):
    rc, out, err = daemon.ctl_rc("frobnicate")
    assert rc == 2 and "unknown command" in err
    rc, out, err = daemon.ctl_rc("top-tasks", "--limit", "zero")
    assert rc == 2


# Opens N connections and sends nothing; counts the ones taod refuses (a
# "too many clients" reply) until none has come for a second, prints how
# many it holds, then holds them for 3 s.
HOG = r"""
import json, select, socket, sys, time
held, refused = [], 0
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    held.append(s)
waiting, quiet_until = set(held), time.time() + 2
while waiting and time.time() < quiet_until:
    ready, _, _ = select.select(list(waiting), [], [], quiet_until - time.time())
    for s in ready:
        waiting.discard(s)
        head = s.recv(256)
        if head:  # one JSON object, like any reply
            reply = json.loads(head)
            refused += not reply["ok"] and reply["error"].startswith("too many clients")
            quiet_until = time.time() + 1
print(len(held) - refused, flush=True)
time.sleep(3)
"""


def test_other_users_cannot_take_every_slot(daemon_factory, public_dir):
    d = daemon_factory(socket_dir=public_dir)
    hog = subprocess.Popen(["/usr/bin/python3", "-c", HOG, d.socket, "80"], user="nobody",
                           stdout=subprocess.PIPE, text=True)
    try:
        admitted = int(hog.stdout.readline())
        assert 0 < admitted <= 16, admitted  # per-uid cap
        ok_status(d)  # root is served while nobody holds its share
        rc, out, err = d.ctl_rc("--json", "status", user="nobody")
        assert rc != 0, "a user over its cap was admitted"
    finally:
        hog.kill()
        hog.wait()
    ok_status(d)


def test_many_users_together_cannot_lock_root_out(daemon_factory, public_dir):
    """Five users at their cap would hold 80 slots: they share 56, and the
    8 kept for root still serve it."""
    d = daemon_factory(socket_dir=public_dir)
    hogs = [subprocess.Popen(["/usr/bin/python3", "-c", HOG, d.socket, "20"], user=uid,
                             stdout=subprocess.PIPE, text=True)
            for uid in (65534, 60001, 60002, 60003, 60004)]
    try:
        admitted = [int(h.stdout.readline()) for h in hogs]
        assert all(a <= 16 for a in admitted), admitted
        assert sum(admitted) == 56, admitted
        ok_status(d)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    ok_status(d)


def test_an_idle_client_is_dropped_after_the_timeout(daemon):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(20)
        s.connect(daemon.socket)
        s.sendall(b"{\"command\": \"sta")  # and nothing more
        t0 = time.time()
        assert s.recv(256) == b""  # closed by taod, not by us
        assert 4 < time.time() - t0 < 10


def test_tables_stay_aligned_with_long_paths(daemon, cgroups):
    cg = cgroups.make("a-very-long-cgroup-name-" + "x" * 60)
    rel = cgroups.rel(cg)

    def table():
        rc, out, err = daemon.ctl_rc("cgroups", "--all", rel)  # idle: only with --all
        assert rc == 0, err
        return out.splitlines()
    lines = wait_for(lambda: len(table()) == 2 and table(), what="long cgroup listed")
    header, row = lines
    assert row.startswith(rel + " ")
    # SCORE is right-aligned: it ends where its header ends; WORKLOAD
    # follows (one word: "-", or the unit the test runs in).
    score_end = row.rstrip().rsplit(" ", 1)[0]
    assert header.index("SCORE") + len("SCORE") == len(score_end.rstrip())
    assert header.endswith("  WORKLOAD")
    # The audit table sizes its cgroup column the same way.
    assert daemon.act("warn", "--cgroup", rel, "--dry-run")
    rc, out, err = daemon.ctl_rc("actions", "--cgroup", rel)
    assert rc == 0, err
    header, row = out.splitlines()[:2]
    assert row[header.index("CGROUP"):].startswith(rel + " ")
    assert row.index(" warn ") + 1 == header.index("ACTION"), out


def test_socket_directories_are_made(daemon_factory, tmp_path):
    """The socket's missing parent directories are made, as for the history
    and the audit log (one make_parent_dirs)."""
    d = daemon_factory(socket_dir=tmp_path / "run" / "taod")
    ok_status(d)
    assert (tmp_path / "run" / "taod").stat().st_mode & 0o777 & ~0o755 == 0


# Sends one request on each of N connections and reads no more than each
# reply's head (a budgeted reply stays held until its client goes); prints
# what each reply starts with, {"ok": ...} or the busy error, then holds the
# connections until a line comes on stdin.
SILENT = r"""
import json, socket, sys
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)
    s.connect(sys.argv[1])
    s.sendall(b'{"command": "metrics"}\n')
    held.append(s)
kinds = []
for s in held:
    head = s.recv(200)
    kinds.append("busy" if b"busy" in head else "ok" if head.startswith(b'{"ok":true') else
                 head[:80].decode(errors="replace"))
print(json.dumps(kinds), flush=True)
sys.stdin.readline()
"""


def silent_clients(d, n):
    """Starts a client of user nobody holding n unread replies; returns the
    process and what each reply was."""
    proc = subprocess.Popen(["/usr/bin/python3", "-c", SILENT, d.socket, str(n)], user="nobody",
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line, f"silent client died: rc {proc.wait()}"
    return proc, json.loads(line)


def release(proc):
    proc.stdin.write("\n")
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


KIDS = 1500  # cgroups: a metrics reply of a few hundred KiB (v2) to 1 MiB (v1)


def test_unread_replies_of_other_users_have_a_memory_budget(daemon_factory, public_dir, cgroups):
    """Clients that never read cannot pin taod's memory: past [control]
    reply_memory the replies waiting for them become a short busy error,
    while root is always served."""
    parent = cgroups.make("replies")
    for i in range(KIDS):
        (parent / f"k{i}").mkdir()
        cgroups.made.append(parent / f"k{i}")
    probe = daemon_factory(socket_dir=public_dir)
    wait_for(lambda: probe.ctl("status")["cgroups_tracked"] >= KIDS, what="cgroups tracked")
    size = len(probe.request(b'{"command": "metrics"}\n'))
    probe.stop()
    # Far more than a Unix socket takes unread (its send buffer).
    wmem = int(open("/proc/sys/net/core/wmem_default").read())
    assert size > 2 * wmem, (size, wmem)

    # The silent clients run as nobody with gid 0 (Popen's user= keeps it):
    # with group root they are readers who may see metrics (taod.conf(5), Privacy).
    d = daemon_factory(f"[control]\nreply_memory = {size * 3 // 2}\ngroup = root\n",
                       socket_dir=public_dir)
    wait_for(lambda: d.ctl("status")["cgroups_tracked"] >= KIDS, what="cgroups tracked")
    proc, kinds = silent_clients(d, 3)
    try:
        # The first reply fits the budget and waits; the next ones would not.
        assert sorted(kinds) == ["busy", "busy", "ok"], kinds
        # Root is served whole while the budget is taken.
        reply = d.request(b'{"command": "metrics"}\n', timeout=60)
        assert reply.startswith(b'{"ok":true') and len(reply) > size * 3 // 4, reply[:200]
    finally:
        release(proc)

    # Once the silent client is gone (taod has seen it hang up), its budget
    # is free again.
    def one_fits():
        proc, kinds = silent_clients(d, 1)
        release(proc)
        return kinds == ["ok"] or print("still held:", kinds)
    wait_for(one_fits, what="the budget freed after the client went")


def test_a_second_daemon_with_the_same_config_exits_and_the_first_serves_on(daemon):
    """A second taod would take over the socket and write the same history
    database: it stops at the lock and names who holds it."""
    second = subprocess.run([str(TAOD), "-c", str(daemon.conf)], capture_output=True, text=True,
                            timeout=30)
    assert second.returncode != 0, second.stderr
    assert f"another taod (pid {daemon.proc.pid}) holds {daemon.socket}.lock" in second.stderr, \
        second.stderr
    assert daemon.proc.poll() is None
    ok_status(daemon)
    rc, out, err = daemon.ctl_rc("status")
    assert rc == 0, err
