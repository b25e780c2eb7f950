"""taoctl as an operator meets it: where a policy came from, durations and
sizes in taod.conf's units, threads named by their id, levers the kernel
lacks, help that matches the man page, -c CONFIG, a refusal's reason."""
import re
import subprocess
import sys
import time

from conftest import REPO, TAOD, taoctl, wait_for, host_only

pytestmark = host_only
from test_control import HOG
from test_docs import complete, taoctl_help


def test_policy_names_the_default_sections_line_and_prints_units(daemon_factory):
    d = daemon_factory("[policy default]\nwindow = 30s\ncooldown = 5m\nhorizon = 1500ms\n"
                       "[policy web]\nmatch = /web/*\n")
    lines = d.conf.read_text().splitlines()
    line = lines.index("window = 30s") + 1  # the section's first key
    rc, out, err = d.ctl_rc("policy")
    assert rc == 0, err
    assert f"[policy default]  ({d.conf}:{line})" in out, out
    assert "(built-in)" not in out, out
    assert "  window             = 30s\n" in out, out
    assert "  cooldown           = 5m\n" in out, out
    assert "  horizon            = 1500ms\n" in out, out
    assert "ms\n" not in out.replace("1500ms\n", ""), out


def test_act_bytes_takes_sizes_and_names_a_bad_value(daemon_factory, tmp_path):
    d = daemon_factory(f"[enforce]\nmode = observe\naudit_log = {tmp_path}/a.jsonl\n")
    rc, out, err = d.ctl_rc("--json", "act", "shatter", "--cgroup", "/", "--bytes", "4M",
                            "--dry-run")
    assert rc in (0, 1) and out, err
    acts = d.ctl("actions")
    assert acts and acts[0]["asked_bytes"] == 4 << 20 and acts[0]["bytes"] == 0, acts
    for bad in ("4X", "0", "-1", "M"):
        rc, out, err = d.ctl_rc("act", "shatter", "--cgroup", "/", "--bytes", bad)
        assert rc == 2 and f'--bytes "{bad}"' in err and "Usage" not in err, (bad, err)
    rc, out, err = d.ctl_rc("act", "warn", "--cgroup", "/", "--pid", "12x")
    assert rc == 2 and '--pid "12x"' in err, err
    rc, out, err = d.ctl_rc("top-tasks", "--limit", "0")
    assert rc == 2 and '--limit "0"' in err, err


THREAD = """
import mmap, threading, time
# THP faults, so taod counts this process (explain has rows of it).
m = mmap.mmap(-1, 16 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.madvise(mmap.MADV_HUGEPAGE)
for off in range(0, 16 << 20, 4096):
    m[off] = 1
def run():
    print(threading.get_native_id(), flush=True)
    time.sleep(120)
threading.Thread(target=run, daemon=True).start()
time.sleep(120)
"""


def test_a_threads_id_names_its_process(daemon_factory, cgroups, tmp_path):
    """pidfd_open and the task rows know processes: a TID was "gone"."""
    d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = dry-run\n"
                       f"audit_log = {tmp_path}/a.jsonl\n")
    a = cgroups.make("threads")
    p = cgroups.spawn(a, sys.executable, "-c", THREAD)
    tid = int(p.stdout.readline())
    assert tid != p.pid
    rec = d.act("warn", "--cgroup", cgroups.rel(a), "--pid", str(tid))
    assert rec["result"] == "done", rec
    assert rec["pid"] == p.pid, rec
    wait_for(lambda: d.ctl_rc("explain", str(p.pid))[0] == 0, what="the process's THP faults")
    r = d.ctl("explain", str(tid))
    assert [t["pid"] for t in r["tasks"]] == [p.pid], r


def test_zone_levers_are_unsupported_on_a_stock_kernel_even_in_observe_mode(daemon_factory,
                                                                            tmp_path):
    d = daemon_factory(f"[enforce]\nmode = observe\nbackend = stock\n"
                       f"audit_log = {tmp_path}/a.jsonl\n")
    rc, out, err = d.ctl_rc("act", "resize-zones")
    assert rc == 1, (out, err)
    assert "unsupported" in out and "would" not in out, out


def long_options(text):
    """--name tokens of a help line or of man source (\\-\\-name)."""
    return set(re.findall(r"--([a-z][a-z-]*)", text.replace("\\-", "-")))


def man_sections(page):
    text = (REPO / "man" / page).read_text()
    return {m.group(1): m.group(2) for m in
            re.finditer(r'^\.SH "?([A-Z ]+)"?\n(.*?)(?=^\.SH |\Z)', text, re.M | re.S)}


def man_commands():
    """{command: the long options its taoctl(8) entry names}."""
    out = {}
    for entry in man_sections("taoctl.8")["COMMANDS"].split(".TP\n")[1:]:
        first = entry.splitlines()[0].replace("\\-", "-")
        # A one-line tag: a font macro (.B status) or inline fonts (\fBcgroups\fR [...]).
        name = re.match(r'(?:\.\w+\s+"?|\\fB)([a-z][a-z-]*)', first).group(1)
        out[name] = long_options(entry)
    return out


def test_help_man_page_completion_and_option_tables_agree():
    """--help is printed from the option tables the parser reads: taoctl(8)
    and the completion must name the same options, command by command."""
    helps = taoctl_help()
    man = man_commands()
    assert set(helps) == set(man), (set(helps) ^ set(man))
    for cmd, line in helps.items():
        assert long_options(line) == man[cmd], (cmd, line, man[cmd])
        if long_options(line):
            lead = ["warn"] if cmd == "act" else []  # act's options follow its ACTION
            assert {"--" + o for o in long_options(line)} <= complete(cmd, *lead, "--"), cmd
    usage = taoctl("--help").stdout.splitlines()[0]
    assert long_options(usage) == long_options(man_sections("taoctl.8")["SYNOPSIS"]), usage
    assert {"--" + o for o in long_options(usage)} <= complete("--")
    for opt in ("output", "db", "config"):  # the issue's: report -o/--db/-c
        assert f"--{opt}" in helps["report"]
    assert "--bytes SIZE" in helps["act"]


def test_taod_page_names_every_option_taod_takes():
    p = subprocess.run([str(TAOD), "--help"], capture_output=True, text=True, timeout=30)
    took = long_options(p.stdout)
    assert {"config", "dropin-dir", "check-config", "version", "help"} <= took, p.stdout
    page = long_options(man_sections("taod.8")["OPTIONS"])
    assert took == page, (took, page)
    for letter in re.findall(r"^  -(\w),", p.stdout, re.M):
        assert f"\\-{letter}" in man_sections("taod.8")["OPTIONS"], letter


def test_c_config_finds_the_socket(daemon, tmp_path):
    """taoctl -c FILE reads [control] socket with taod's parser (drop-ins too)."""
    rc, out, err = daemon.ctl_rc("status")
    assert rc == 0
    p = taoctl("-c", daemon.conf, "status")
    assert p.returncode == 0, p.stderr
    assert "taod" in p.stdout
    # An error in the socket's own line: taoctl cannot know where taod is.
    # (Errors elsewhere are warnings: test_taoctl_cli.py.)
    bad = tmp_path / "bad.conf"
    bad.write_text("[control]\nbogus = 1\nsocket = x.sock\n")
    p = taoctl("-c", bad, "status")
    assert p.returncode == 2 and f"{bad}:3" in p.stderr, p.stderr


def test_a_client_refused_for_want_of_a_slot_is_told_why(daemon_factory, public_dir):
    """taod writes its refusal before it closes: taoctl printed "Broken pipe"
    (the send met the close) or nothing readable, not the reason."""
    d = daemon_factory(socket_dir=public_dir)
    hog = subprocess.Popen(["/usr/bin/python3", "-c", HOG, d.socket, "80"], user="nobody",
                           stdout=subprocess.PIPE, text=True)
    try:
        assert 0 < int(hog.stdout.readline()) <= 16
        t0, n = time.time(), 0
        while n < 10 and (not n or time.time() - t0 < 1.5):  # the hog holds on for 3 s
            n += 1
            rc, out, err = d.ctl_rc("status", user="nobody")
            assert rc == 1, (rc, err)
            assert "taoctl: status: too many clients of this user" in err, err
            assert "Broken pipe" not in err and "no readable reply" not in err, err
    finally:
        hog.kill()
        hog.wait()
