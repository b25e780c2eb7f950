"""The Debian package (make deb): lintian finds no error or warning, it
installs into a scratch root with dpkg --root, enables and starts nothing,
the installed taod checks the installed conffile, the installed taoctl
prints the version the package names, and a purge leaves nothing behind."""
import shutil
import subprocess

import pytest

from conftest import DEB, REPO

pytestmark = pytest.mark.skipif(not DEB, reason="TAOD_DEB unset (make fleet-test sets it)")

FILES = ["usr/sbin/taod", "usr/bin/taoctl", "etc/taod.conf", "etc/taod.conf.d",
         "lib/systemd/system/taod.service", "lib/systemd/system/taod.socket",
         "usr/share/man/man8/taod.8.gz", "usr/share/man/man8/taoctl.8.gz",
         "usr/share/man/man5/taod.conf.5.gz", "usr/share/bash-completion/completions/taoctl",
         "usr/share/doc/taod/copyright", "usr/share/doc/taod/changelog.gz",
         "usr/share/doc/taod/README.md.gz", "usr/share/doc/taod/protocol.md",
         "usr/share/doc/taod/operations.md.gz", "usr/share/doc/taod/policies.md.gz",
         "usr/share/doc/taod/examples/taod-alerts.yml",
         "usr/share/doc/taod/examples/taod-dashboard.json", "etc/logrotate.d/taod"]


def field(name):
    return subprocess.run(["dpkg-deb", "--field", DEB, name], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_lintian_clean():
    p = subprocess.run(["lintian", "--fail-on", "error,warning", "--pedantic", DEB],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert not [line for line in p.stdout.splitlines() if line[:2] in ("E:", "W:")], p.stdout


def test_control_fields():
    assert field("Package") == "taod"
    depends = field("Depends")
    for lib in ["libbpf", "libsystemd0", "libjson-c", "libsqlite3", "libinih", "libc6"]:
        assert lib in depends, depends
    listing = subprocess.run(["dpkg-deb", "--ctrl-tarfile", DEB], capture_output=True,
                             check=True).stdout
    assert b"./conffiles" in listing


def test_maintainer_scripts_enable_and_start_nothing():
    """Nothing is enabled or started; the one restart is postinst's
    try-restart on an upgrade, which leaves a stopped taod stopped."""
    try_restart = "deb-systemd-invoke try-restart taod.service >/dev/null || true"
    for s in ["postinst", "prerm", "postrm"]:
        text = (REPO / "config/debian" / s).read_text()
        code = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
        assert (try_restart in code) == (s == "postinst"), s
        code = code.replace(try_restart, "")
        for word in ["enable", "start", "deb-systemd-helper", "invoke-rc.d", "restart"]:
            assert word not in code, f"{s}: {word}"


@pytest.fixture
def scratch(tmp_path):
    """A scratch root: an empty dpkg database, a static busybox as /bin/sh
    (dpkg --root runs the maintainer scripts chrooted there; bookworm's dpkg
    has no --force-script-chroot-less), and fake systemctl,
    deb-systemd-invoke and deb-systemd-helper that log any call to /calls."""
    root = tmp_path / "root"
    # run/systemd/system: the scripts see a host booted with systemd.
    for d in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "bin", "usr/bin", "run/systemd/system"]:
        (root / d).mkdir(parents=True)
    # dev/null: a plain file does for the scripts' redirections.
    (root / "dev").mkdir()
    for f in ["var/lib/dpkg/status", "var/lib/dpkg/available", "dev/null"]:
        (root / f).touch()
    shutil.copy("/bin/busybox", root / "bin/busybox")
    for applet in ["sh", "rm", "echo", "grep"]:
        (root / "bin" / applet).symlink_to("busybox")
    for tool in ["systemctl", "deb-systemd-invoke", "deb-systemd-helper", "groupadd"]:
        (root / "usr/bin" / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> /calls\n')
        (root / "usr/bin" / tool).chmod(0o755)
    # groupadd adds the group, so an upgrade finds it there (getent).
    (root / "usr/bin/getent").write_text('#!/bin/sh\ngrep -q "^$2:" /etc/group\n')
    (root / "usr/bin/getent").chmod(0o755)
    (root / "etc").mkdir()
    (root / "usr/bin/groupadd").write_text('#!/bin/sh\necho "groupadd $*" >> /calls\n'
                                           'echo "taod:x:999:" >> /etc/group\n')
    return root, root / "calls"


def dpkg(root, *args):
    return subprocess.run(["dpkg", f"--root={root}", "--force-depends", "--log=/dev/null",
                           *args], capture_output=True, text=True, timeout=120)


def test_installs_into_a_scratch_root_and_runs(scratch):
    root, calls = scratch
    p = dpkg(root, "-i", DEB)
    assert p.returncode == 0, p.stdout + p.stderr
    for f in FILES:
        assert (root / f).exists(), f
    assert (root / "etc/taod.conf").read_text() == (REPO / "config/taod.conf").read_text()
    conffiles = (root / "var/lib/dpkg/info/taod.conffiles").read_text().split()
    assert conffiles == ["/etc/logrotate.d/taod", "/etc/taod.conf"]
    unit = (root / "lib/systemd/system/taod.service").read_text()
    assert "ExecStart=/usr/sbin/taod -c /etc/taod.conf" in unit
    # Shipped disabled: no wants/ link anywhere; systemd is only told
    # that unit files changed.
    assert not (root / "etc/systemd").exists()
    # The readers' group, created empty (taod.socket's SocketGroup).
    assert calls.read_text() == "groupadd --system taod\nsystemctl --system daemon-reload\n"
    assert "taod:" in (root / "etc/group").read_text()
    status = subprocess.run(["dpkg-query", f"--admindir={root}/var/lib/dpkg", "-W",
                             "-f", "${Status} ${Version}", "taod"], capture_output=True,
                            text=True)
    assert status.stdout.startswith("install ok installed "), status.stdout + status.stderr
    version = status.stdout.split()[-1]

    chk = subprocess.run([str(root / "usr/sbin/taod"), "--check-config", "-c",
                          str(root / "etc/taod.conf")], capture_output=True, text=True,
                         timeout=60)
    assert chk.returncode == 0, chk.stdout + chk.stderr
    v = subprocess.run([str(root / "usr/bin/taoctl"), "--version"], capture_output=True,
                       text=True, timeout=60)
    assert v.returncode == 0, v.stderr
    name, built = v.stdout.split()
    assert name == "taoctl"
    # The package version is 0.1+gitCOUNT.HASH; taoctl names HASH (maybe -dirty).
    assert built.split("-")[0] == version.rsplit(".", 1)[1], (built, version)
    d = subprocess.run([str(root / "usr/sbin/taod"), "-V"], capture_output=True, text=True)
    assert d.stdout == f"taod {built}\n"


def test_an_upgrade_restarts_a_running_taod(scratch):
    """Installing over an installed taod (postinst configure OLD-VERSION)
    try-restarts it, so a running taod runs the new binary."""
    root, calls = scratch
    assert dpkg(root, "-i", DEB).returncode == 0
    calls.unlink()
    p = dpkg(root, "-i", DEB)
    assert p.returncode == 0, p.stdout + p.stderr
    assert calls.read_text().splitlines() == ["systemctl --system daemon-reload",
                                              "deb-systemd-invoke try-restart taod.service"]


def test_purge_leaves_nothing(scratch):
    root, calls = scratch
    assert dpkg(root, "-i", DEB).returncode == 0
    (root / "var/lib/taod").mkdir(parents=True)
    (root / "var/lib/taod/history.db").write_text("x")
    calls.unlink()
    p = dpkg(root, "--purge", "taod")
    assert p.returncode == 0, p.stdout + p.stderr
    for f in FILES + ["var/lib/taod"]:
        assert not (root / f).exists(), f
    # A removed taod is stopped (not disabled: that is the operator's).
    assert calls.read_text().splitlines() == ["deb-systemd-invoke stop taod.service taod.socket",
                                              "systemctl --system daemon-reload"]
