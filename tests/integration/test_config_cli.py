"""taod's handling of its configuration file."""

from conftest import REPO, host_only, run_taod

pytestmark = host_only


def test_shipped_config_checks_ok():
    p = run_taod("--check-config", "-c", str(REPO / "config/taod.conf"))
    assert p.returncode == 0, p.stderr
    assert "configuration OK" in p.stdout


def test_bad_config_fails_with_file_and_line(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("[daemon]\ntick = 1s\n\n[control]\nsocket_mode = rw-rw-rw-\n"
                    "[kernel]\nattach = kprobe\n")
    p = run_taod("-c", str(conf))
    assert p.returncode == 1
    lines = p.stderr.strip().splitlines()
    assert f"{conf}:5: [control] socket_mode = \"rw-rw-rw-\"" in lines[0]
    assert f"{conf}:7: [kernel] attach = \"kprobe\": expected auto, fentry, tracepoint" \
        in lines[1]


def test_bad_dropin_named(tmp_path):
    conf = tmp_path / "taod.conf"
    conf.write_text("[daemon]\n")
    (tmp_path / "taod.conf.d").mkdir()
    (tmp_path / "taod.conf.d" / "10-x.conf").write_text("[daemon]\ntick = never\n")
    p = run_taod("--check-config", "-c", str(conf))
    assert p.returncode == 1
    assert f"{tmp_path}/taod.conf.d/10-x.conf:2:" in p.stderr


def test_missing_config(tmp_path):
    p = run_taod("-c", str(tmp_path / "absent.conf"))
    assert p.returncode == 1
    assert "absent.conf: cannot open" in p.stderr


def test_unknown_option():
    p = run_taod("--frobnicate")
    assert p.returncode == 2


def test_long_allowlist_line_is_applied_by_check_and_daemon(daemon_factory, cgroups, tmp_path):
    """A line longer than inih's buffer: --check-config and the daemon agree,
    and the last glob of the line still protects its cgroup."""
    keep = cgroups.make("longkeep")
    globs = " ".join(f"/never-{i:03d}/*" for i in range(60)) + " " + cgroups.rel(keep)
    extra = f"[enforce]\nmode = enforce\nbackend = dry-run\nallowlist = {globs}\n"
    conf = tmp_path / "long.conf"
    conf.write_text(extra)
    p = run_taod("--check-config", "-c", str(conf))
    assert p.returncode == 0, p.stderr
    d = daemon_factory(extra)
    rec = d.act("warn", "--cgroup", cgroups.rel(keep))
    assert rec["result"] == "allowlisted", rec
    assert cgroups.rel(keep) in rec["detail"]


def test_durations_and_sizes_past_their_range_are_refused(tmp_path):
    """2^64 ms used to pass --check-config and, reloaded, ticked every 384
    µs; a cooldown of 2^64-1 ms wrapped to "now"."""
    conf = tmp_path / "taod.conf"
    conf.write_text("[daemon]\ntick = 18446744073709552ms\n"
                    "[enforce]\nstock_restrict_for = 18446744073709551615ms\n"
                    "[policy p]\nmatch = /x\ncooldown = 18446744073709551615ms\n")
    p = run_taod("--check-config", "-c", str(conf))
    assert p.returncode == 1, p.stdout
    lines = p.stderr.strip().splitlines()
    assert f"{conf}:2: [daemon] tick = \"18446744073709552ms\": expected a duration " \
        "(500ms, 1s, 5m, 2h, 7d) from 10ms to 10m" in lines[0], lines
    assert f"{conf}:4: [enforce] stock_restrict_for" in lines[1] and "to 366d" in lines[1], lines
    assert f"{conf}:7:" in lines[2] and "cooldown" in lines[2] and "to 366d" in lines[2], lines
