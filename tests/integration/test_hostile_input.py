"""Hostile and odd input never hangs taod or taoctl, crashes them, eats
memory or acts on the wrong thing: what is at the socket path, drop-ins
that are not files, odd bytes in a config file or a request, a moved taod,
crafted history databases."""
import json
import os
import signal
import socket
import subprocess

from conftest import TAOD, attach_conf, wait_for


def base_conf(tmp_path, sock, extra=""):
    conf = tmp_path / "taod.conf"
    conf.write_text(attach_conf() + f"[daemon]\ntick = 200ms\n[control]\nsocket = {sock}\n"
                    f"[history]\npath = {tmp_path / 'history.db'}\n" + extra)
    return conf


def run_taod(*args, timeout=20):
    return subprocess.run([str(TAOD), *args], capture_output=True, text=True, timeout=timeout)


# The socket path -----------------------------------------------------------

def test_a_regular_file_at_the_socket_path_is_kept_and_refused(tmp_path):
    sock = tmp_path / "taod.sock"
    sock.write_text("the operator's notes\n")
    p = run_taod("-c", str(base_conf(tmp_path, sock)))
    assert p.returncode != 0, p.stderr
    assert f"control socket {sock}: a regular file is there, not a socket" in p.stderr, p.stderr
    assert sock.read_text() == "the operator's notes\n"


def test_a_directory_at_the_socket_path_is_refused_clearly(tmp_path):
    sock = tmp_path / "taod.sock"
    sock.mkdir()
    p = run_taod("-c", str(base_conf(tmp_path, sock)))
    assert p.returncode != 0, p.stderr
    assert f"control socket {sock}: a directory is there, not a socket" in p.stderr, p.stderr
    assert "Address already in use" not in p.stderr
    assert sock.is_dir()


def test_a_socket_another_program_listens_on_is_not_taken(tmp_path):
    sock = tmp_path / "taod.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as other:
        other.bind(str(sock))
        other.listen(1)
        p = run_taod("-c", str(base_conf(tmp_path, sock)))
        assert p.returncode != 0, p.stderr
        assert f"control socket {sock}: another program listens on it" in p.stderr, p.stderr
        assert sock.is_socket()


def test_a_stale_socket_is_replaced(daemon_factory, tmp_path):
    """What a killed taod leaves: a socket nobody listens on."""
    sock = tmp_path / "taod.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as old:
        old.bind(str(sock))
    d = daemon_factory()
    assert d.socket == str(sock)
    assert d.ctl("status")["ok"] is True


def test_check_config_refuses_a_socket_path_longer_than_sun_path(tmp_path):
    long_sock = "/run/" + "s" * 120 + ".sock"
    conf = base_conf(tmp_path, long_sock)
    p = run_taod("--check-config", "-c", str(conf))
    assert p.returncode == 1, p.stdout
    line = conf.read_text().splitlines().index(f"socket = {long_sock}") + 1
    assert f"{conf}:{line}: [control] socket" in p.stderr, p.stderr
    assert "at most 107 bytes" in p.stderr, p.stderr
    ok = base_conf(tmp_path, "/run/" + "s" * (107 - 5))
    p = run_taod("--check-config", "-c", str(ok))
    assert p.returncode == 0, p.stderr


# Drop-ins that are not files ----------------------------------------------

def limited_cgroup(cgroups, name, limit=1 << 30):
    """A test cgroup whose memory is capped: without the fixes some of these
    inputs ate memory until killed; here they end in an OOM kill instead."""
    cg = cgroups.make(name)
    (cg / ("memory.max" if cgroups.version == 2 else "memory.limit_in_bytes")).write_text(
        str(limit))
    return cg


def in_cgroup(cg):
    """A wrap= command for the Daemon fixture: taod joins @cg, then runs."""
    return ("sh", "-c", f'echo $$ > {cg / "cgroup.procs"} && exec "$@"', "sh")


def odd_dropins(dropins):
    """A FIFO, /dev/zero (a symlink to it) and a file over the size limit,
    each as a *.conf drop-in; the paths and what taod must say of each."""
    fifo, zero, big = dropins / "10-fifo.conf", dropins / "20-zero.conf", dropins / "30-big.conf"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    with open(big, "wb") as f:
        f.truncate(2 << 20)  # sparse: 2 MiB of NULs
    return [(fifo, "a FIFO, not a regular file"),
            (zero, "a character device, not a regular file"),
            (big, f"{2 << 20} bytes: a configuration file may hold at most {1 << 20}")]


def test_fifo_and_devices_as_dropins_are_refused_at_start(tmp_path, cgroups):
    conf = base_conf(tmp_path, tmp_path / "taod.sock")
    dropins = tmp_path / "taod.conf.d"
    dropins.mkdir()
    want = odd_dropins(dropins)
    cg = limited_cgroup(cgroups, "dropins")
    for args in (["--check-config", "-c", str(conf)], ["-c", str(conf)]):
        p = subprocess.run([*in_cgroup(cg), str(TAOD), *args], capture_output=True, text=True,
                           timeout=20)
        assert p.returncode == 1, (args, p.returncode, p.stderr)
        for path, what in want:
            assert f"{path}: {what}" in p.stderr, p.stderr
        assert not (tmp_path / "taod.sock").exists()


def test_reload_refuses_fifo_and_device_dropins_and_keeps_running(daemon_factory, tmp_path,
                                                                  cgroups):
    d = daemon_factory("[policy web]\nmatch = /web/*\nwindow = 7s\n",
                       wrap=in_cgroup(limited_cgroup(cgroups, "reload")))
    dropins = tmp_path / "taod.conf.d"
    dropins.mkdir()
    (dropins / "05-ok.conf").write_text("[policy web]\nwindow = 9s\n")
    want = odd_dropins(dropins)
    rc, out, err = d.ctl_rc("reload")
    assert rc == 1, (out, err)
    for path, what in want:
        assert f"{path}: {what}" in err, err
    assert d.ctl("policy", "/web/x")["policy"]["window_ms"] == 7000  # the old config stays
    d.proc.send_signal(signal.SIGHUP)  # the same at SIGHUP, and SIGTERM still ends it
    wait_for(lambda: "reload rejected" in d.logtext(), what="rejected reload in the log")
    assert d.ctl("status")["ok"] is True
    d.stop()


# Requests ------------------------------------------------------------------

def test_a_nul_inside_any_request_string_is_refused_naming_the_field(daemon_factory, cgroups):
    """C reads a string up to its NUL: "/victim\\u0000/../elsewhere" would be
    acted on as /victim. No string of a request may hold one."""
    victim = cgroups.make("nulvictim")
    d = daemon_factory("[enforce]\nmode = enforce\nbackend = dry-run\n")
    cases = [
        ({"command": "act", "args": {"action": "warn",
                                     "cgroup": cgroups.rel(victim) + "\0/../elsewhere"}},
         "args.cgroup"),
        ({"command": "act", "args": {"action": "warn\0shatter", "cgroup": cgroups.rel(victim)}},
         "args.action"),
        ({"command": "status\0x"}, "command"),
        ({"command": "cgroups", "args": {"glob": "/*\0"}}, "args.glob"),
        ({"command": "status", "args": {"list": ["a", "b\0"]}}, "args.list[1]"),
        ("\0", "the request"),
    ]
    for req, field in cases:
        r = json.loads(d.request(json.dumps(req).encode() + b"\n").decode())
        assert r["ok"] is False, (req, r)
        assert r["error"] == f"{field}: a string holding a NUL byte (\\u0000) is refused", r
    assert d.ctl("status")["act"]["audited"] == 0  # nothing reached the gate


# A moved taod --------------------------------------------------------------

def test_taod_moved_to_another_cgroup_protects_that_one(cgroups, daemon_factory):
    """taod read its own cgroup once at start: moved (by an operator, a
    unit's Slice=), its new cgroup could be acted on. (cgroups before
    daemon_factory: taod stops before its cgroup is removed.)"""
    home = cgroups.make("newhome")
    d = daemon_factory("[enforce]\nmode = enforce\nbackend = dry-run\n")
    assert d.act("warn", "--cgroup", cgroups.rel(home))["result"] == "done"
    (home / "cgroup.procs").write_text(str(d.proc.pid))
    rec = d.act("warn", "--cgroup", cgroups.rel(home))
    assert rec["result"] == "allowlisted", rec
    assert f"{cgroups.rel(home)} holds taod itself" in rec["detail"], rec
    wait_for(lambda: f"taod moved from cgroup" in d.logtext(), what="the move in the log")
    assert f"to {cgroups.rel(home)}: that one and its ancestors are protected" in d.logtext()
