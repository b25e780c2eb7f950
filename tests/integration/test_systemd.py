"""systemd integration: readiness and watchdog notifications, socket
activation, and the unit files as installed."""
import os
import re
import socket
import subprocess
import time

from conftest import BUILD, REPO, TAOCTL, TAOD, wait_for, host_only

pytestmark = host_only


def write_conf(tmp_path, sock):
    conf = tmp_path / "taod.conf"
    conf.write_text(f"[daemon]\ntick = 200ms\n[control]\nsocket = {sock}\n")
    return conf


def test_notify_ready_status_and_watchdog(tmp_path):
    notify = tmp_path / "notify.sock"
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(str(notify))
    ns.settimeout(1)
    env = dict(os.environ, NOTIFY_SOCKET=str(notify), WATCHDOG_USEC="1000000")
    sock = tmp_path / "t.sock"
    p = subprocess.Popen([str(TAOD), "-c", str(write_conf(tmp_path, sock))], env=env,
                         stderr=subprocess.PIPE, text=True)
    msgs = []
    deadline = time.time() + 15
    try:
        while time.time() < deadline:
            try:
                msgs.append(ns.recv(4096).decode())
            except socket.timeout:
                pass
            joined = "\n".join(msgs)
            if "READY=1" in joined and "WATCHDOG=1" in joined and "STATUS=" in joined:
                break
    finally:
        p.terminate()
        p.wait(timeout=15)
    joined = "\n".join(msgs)
    assert "READY=1" in joined
    assert "STATUS=" in joined and "cgroups" in joined
    assert "WATCHDOG=1" in joined
    assert p.returncode == 0


def test_socket_activation(tmp_path):
    sock = tmp_path / "activated.sock"
    conf = write_conf(tmp_path, tmp_path / "unused.sock")
    p = subprocess.Popen(["systemd-socket-activate", "-l", str(sock), str(TAOD), "-c",
                          str(conf)], stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: sock.exists(), what="activation socket")
        # The first connection starts taod, which takes the listening fd.
        out = subprocess.run([str(TAOCTL), "--socket", str(sock), "--json", "status"],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        assert not (tmp_path / "unused.sock").exists(), "bound its own socket instead"
    finally:
        p.terminate()
        p.wait(timeout=15)
    assert "socket activated" in p.stderr.read()


def make_build_dir():
    """BUILD for make, relative to the repository where it is inside: the
    dependency files name their targets with it, and a plain make later
    (BUILD=build) would not see an absolute path's as its own, so a header
    change would no longer rebuild the objects."""
    try:
        return str(BUILD.resolve().relative_to(REPO.resolve()))
    except ValueError:
        return str(BUILD)


def test_install_and_verify_units(tmp_path):
    dest = tmp_path / "root"
    subprocess.run(["make", "-C", str(REPO), f"BUILD={make_build_dir()}", "install",
                    f"DESTDIR={dest}", "PREFIX=/usr"], check=True, capture_output=True)
    for f in ["usr/sbin/taod", "usr/bin/taoctl", "etc/taod.conf",
              "usr/lib/systemd/system/taod.service", "usr/lib/systemd/system/taod.socket",
              "usr/share/man/man8/taod.8", "usr/share/man/man8/taoctl.8",
              "usr/share/man/man5/taod.conf.5",
              "usr/share/bash-completion/completions/taoctl"]:
        assert (dest / f).exists(), f
    unit = (dest / "usr/lib/systemd/system/taod.service").read_text()
    assert "ExecStart=/usr/sbin/taod -c /etc/taod.conf" in unit
    assert "Type=notify" in unit and "WatchdogSec=" in unit
    # The installed config is the shipped one and checks clean.
    chk = subprocess.run([str(dest / "usr/sbin/taod"), "--check-config", "-c",
                          str(dest / "etc/taod.conf")], capture_output=True, text=True)
    assert chk.returncode == 0, chk.stderr
    units = dest / "usr/lib/systemd/system"
    v = subprocess.run(["systemd-analyze", "verify", "--man=no", str(units / "taod.service"),
                        str(units / "taod.socket")], capture_output=True, text=True)
    problems = [line for line in (v.stdout + v.stderr).splitlines()
                if line.strip() and "not executable" not in line]
    assert not problems, problems


def test_unit_exposure_stays_low(tmp_path):
    """systemd-analyze security on the installed unit: at most 2.0."""
    dest = tmp_path / "root"
    subprocess.run(["make", "-C", str(REPO), f"BUILD={make_build_dir()}", "install",
                    f"DESTDIR={dest}", "PREFIX=/usr"], check=True, capture_output=True)
    unit = dest / "usr/lib/systemd/system/taod.service"
    out = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--threshold=20",
                          str(unit)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    line = [x for x in out.stdout.splitlines() if "Overall exposure level" in x][0]
    exposure = float(line.split(":")[1].split()[0])
    assert exposure <= 2.0, line


def test_socket_activated_second_daemon_stops_at_the_lock(daemon, tmp_path):
    """Handed a socket by systemd, a second taod with a running one's config
    still exits at the lock, and the first keeps its socket."""
    sock = tmp_path / "second.sock"
    p = subprocess.Popen(["systemd-socket-activate", "-l", str(sock), str(TAOD), "-c",
                          str(daemon.conf)], stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: sock.exists(), what="activation socket")
        subprocess.run([str(TAOCTL), "--socket", str(sock), "status"], capture_output=True,
                       timeout=30)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.terminate()
            p.wait(timeout=15)
    assert p.returncode != 0
    assert f"another taod (pid {daemon.proc.pid}) holds {daemon.socket}.lock" in p.stderr.read()
    assert daemon.ctl("status")["ok"] is True


def unit_write_paths():
    """The directories taod.service lets taod write (ReadWritePaths, the
    optional '-' dropped)."""
    text = (REPO / "systemd/taod.service.in").read_text()
    return {p.lstrip("-") for line in text.splitlines() if line.startswith("ReadWritePaths=")
            for p in line.split("=", 1)[1].split()}


def test_the_unit_may_write_what_the_shipped_config_names():
    """ProtectSystem=strict makes every other path read-only (EROFS): the
    zones drop-in `taoctl zones --apply` writes and the metrics textfile in
    Debian's prometheus-node-exporter directory, which the shipped config
    suggests, are both writable under the unit."""
    conf = (REPO / "config/taod.conf").read_text()
    writable = unit_write_paths()
    dropin = re.search(r"^zone_cmdline_dropin = (\S+)$", conf, re.M).group(1)
    assert os.path.dirname(dropin) in writable, (dropin, writable)
    textfile = re.search(r"^#\s+textfile = (\S+)$", conf, re.M).group(1)
    assert textfile == "/var/lib/prometheus/node-exporter/taod.prom"
    assert os.path.dirname(textfile) in writable, (textfile, writable)
