"""taoctl as an operator meets it: where a policy came from, durations and
sizes in taod.conf's units, threads named by their id, levers the kernel
lacks, help that matches the man page, -c CONFIG, a refusal's reason."""
import subprocess
import sys

from conftest import TAOCTL, wait_for


def taoctl(*args, **kw):
    return subprocess.run([str(TAOCTL), *map(str, args)], capture_output=True, text=True,
                          timeout=30, **kw)


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
    assert acts and acts[0]["bytes"] == 4 << 20, acts
    for bad in ("4X", "0", "-1", "M"):
        rc, out, err = d.ctl_rc("act", "shatter", "--cgroup", "/", "--bytes", bad)
        assert rc == 2 and f'--bytes "{bad}"' in err and "Usage" not in err, (bad, err)
    rc, out, err = d.ctl_rc("act", "warn", "--cgroup", "/", "--pid", "12x")
    assert rc == 2 and '--pid "12x"' in err, err
    rc, out, err = d.ctl_rc("top-tasks", "--limit", "0")
    assert rc == 2 and '--limit "0"' in err, err


THREAD = """
import threading, time
ready = threading.Event()
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


def test_zone_levers_are_unsupported_on_a_stock_kernel_even_in_observe_mode(daemon_factory,
                                                                            tmp_path):
    d = daemon_factory(f"[enforce]\nmode = observe\nbackend = stock\n"
                       f"audit_log = {tmp_path}/a.jsonl\n")
    rc, out, err = d.ctl_rc("act", "resize-zones")
    assert rc == 1, (out, err)
    assert "unsupported" in out and "would" not in out, out
