"""Restrict on a stock kernel ([enforce] stock_restrict = yes): a cgroup's
memory.high (v2) or memory.soft_limit_in_bytes (v1) is lowered for a while
through the same safety gate as every action, and put back by grant, when
its time is up, when taod exits, and when taod starts again after being
killed. What was there is kept in stock_restrict_state before the write."""
import signal
import sys

from conftest import audit, wait_for, one_kernel

pytestmark = one_kernel

HOLD = """
import sys, time
m = bytearray(96 << 20)
for off in range(0, len(m), 4096):
    m[off] = 1
print("ready", flush=True)
time.sleep(300)
"""


def conf(tmp_path, extra=""):
    return (f"[enforce]\nmode = enforce\nbackend = stock\nactions_per_minute = 600\n"
            f"audit_log = {tmp_path}/audit.jsonl\n"
            f"stock_restrict = yes\nstock_restrict_percent = 50\n"
            f"stock_restrict_state = {tmp_path}/restricted\n" + extra)


def limit_file(cgroups):
    return "memory.high" if cgroups.version == 2 else "memory.soft_limit_in_bytes"


def limit(cgroups, cg):
    text = (cg / limit_file(cgroups)).read_text().strip()
    return None if text == "max" else int(text)


def holder(cgroups, name):
    cg = cgroups.make(name)
    p = cgroups.spawn(cg, sys.executable, "-c", HOLD)
    assert p.stdout.readline().strip() == "ready"
    return cg


def state_files(tmp_path):
    d = tmp_path / "restricted"
    return sorted(d.iterdir()) if d.is_dir() else []


def restricted(d, cgroups, cg):
    """Restricts @cg and checks the value lowered, the state kept, the record."""
    before = limit(cgroups, cg)
    rec = d.act("restrict", "--cgroup", cgroups.rel(cg))
    assert rec["result"] == "done", rec
    now = limit(cgroups, cg)
    usage = int((cg / ("memory.current" if cgroups.version == 2 else
                       "memory.usage_in_bytes")).read_text())
    assert now is not None and now % 4096 == 0 and now <= usage * 0.6, (now, usage, rec)
    assert before is None or now < before, (before, now)
    assert f"{limit_file(cgroups)} lowered to {now}" in rec["detail"], rec
    return before, rec


def test_restrict_lowers_the_limit_and_grant_puts_it_back(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(conf(tmp_path, "stock_restrict_for = 10m\n"))
    cg = holder(cgroups, "restricted")
    before, rec = restricted(d, cgroups, cg)
    assert [f.name for f in state_files(tmp_path)] == [str(cg.stat().st_ino)]
    recs = [r for r in audit(tmp_path) if r["cgroup"] == cgroups.rel(cg)]
    assert [(r["action"], r["result"]) for r in recs] == [("restrict", "done")], recs
    rec = d.act("grant", "--cgroup", cgroups.rel(cg))
    assert rec["result"] == "done" and "put " + limit_file(cgroups) + " back" in rec["detail"], rec
    assert limit(cgroups, cg) == before
    assert state_files(tmp_path) == []
    # Nothing left to give back: done, and nothing written.
    rec = d.act("grant", "--cgroup", cgroups.rel(cg))
    assert "nothing to give back" in rec["detail"], rec


def test_restriction_is_put_back_when_its_time_is_up(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(conf(tmp_path, "stock_restrict_for = 2s\n"))
    cg = holder(cgroups, "expires")
    before, _ = restricted(d, cgroups, cg)
    wait_for(lambda: limit(cgroups, cg) == before, timeout=15, what="the limit put back")
    assert state_files(tmp_path) == []
    put = wait_for(lambda: [r for r in audit(tmp_path) if r["action"] == "grant"],
                   what="the put-back audited")
    assert put[0]["policy"] == "(time up)" and put[0]["result"] == "done", put


def test_restriction_is_put_back_after_kill_and_restart(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(conf(tmp_path, "stock_restrict_for = 10m\n"))
    cg = holder(cgroups, "crash")
    before, _ = restricted(d, cgroups, cg)
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(timeout=20)
    lowered = limit(cgroups, cg)
    assert lowered != before and len(state_files(tmp_path)) == 1
    d2 = daemon_factory(conf(tmp_path, "stock_restrict_for = 10m\n"))
    d.proc = d2.proc  # the first one is gone: its teardown stops the second
    wait_for(lambda: limit(cgroups, cg) == before, what="the restart to put the limit back")
    assert state_files(tmp_path) == []
    put = wait_for(lambda: [r for r in audit(tmp_path) if r["action"] == "grant"],
                   what="the put-back audited")
    assert put[0]["policy"] == "(taod start or exit)", put


def test_restriction_is_put_back_when_taod_exits(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(conf(tmp_path, "stock_restrict_for = 10m\n"))
    cg = holder(cgroups, "exit")
    before, _ = restricted(d, cgroups, cg)
    d.stop()
    assert limit(cgroups, cg) == before
    assert state_files(tmp_path) == []


def test_dry_run_and_observe_write_nothing(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(conf(tmp_path))
    cg = holder(cgroups, "dry")
    before = limit(cgroups, cg)
    rec = d.act("restrict", "--cgroup", cgroups.rel(cg), "--dry-run")
    assert rec["result"] == "dry-run" and "would restrict" in rec["detail"], rec
    assert limit(cgroups, cg) == before and state_files(tmp_path) == []
    d.stop()
    d = daemon_factory(conf(tmp_path).replace("mode = enforce", "mode = observe"))
    rec = d.act("restrict", "--cgroup", cgroups.rel(cg))
    assert rec["result"] == "dry-run", rec
    assert limit(cgroups, cg) == before and state_files(tmp_path) == []


def test_allowlisted_cgroup_is_not_restricted(daemon_factory, cgroups, tmp_path):
    cg = holder(cgroups, "protected")
    d = daemon_factory(conf(tmp_path, f"allowlist = ={cgroups.rel(cg)}\n"))
    before = limit(cgroups, cg)
    rec = d.act("restrict", "--cgroup", cgroups.rel(cg))
    assert rec["result"] == "allowlisted", rec
    assert limit(cgroups, cg) == before and state_files(tmp_path) == []
    assert [r["result"] for r in audit(tmp_path)] == ["allowlisted"]


def test_stock_restrict_is_off_by_default(daemon_factory, cgroups, tmp_path):
    d = daemon_factory(conf(tmp_path).replace("stock_restrict = yes\n", ""))
    cg = holder(cgroups, "off")
    before = limit(cgroups, cg)
    for kind in ("restrict", "grant"):
        rec = d.act(kind, "--cgroup", cgroups.rel(cg), "--dry-run")
        assert rec["result"] == "unsupported" and "stock_restrict = yes" in rec["detail"], rec
    assert limit(cgroups, cg) == before and state_files(tmp_path) == []


def test_reload_keeps_the_state_directory_the_restrictions_are_in(daemon_factory, cgroups,
                                                                   tmp_path):
    """A reload pointing stock_restrict_state elsewhere orphaned what was
    saved under the old one: still lowered after its time."""
    d = daemon_factory(conf(tmp_path, "stock_restrict_for = 3s\n"))
    cg = holder(cgroups, "reloaded")
    before, _ = restricted(d, cgroups, cg)
    d.conf.write_text(d.conf.read_text().replace(f"{tmp_path}/restricted",
                                                 f"{tmp_path}/elsewhere"))
    rc, out, err = d.ctl_rc("reload")
    assert rc == 0, err
    wait_for(lambda: limit(cgroups, cg) == before, timeout=15, what="the limit put back")
    assert state_files(tmp_path) == []
    assert "stock_restrict_state" in out, out  # takes effect at the next restart


def test_restriction_follows_a_renamed_cgroup(daemon_factory, cgroups, tmp_path):
    """A v1 cgroup renamed keeps its inode: its restriction is put back
    there, not given up as vanished. (v2 cannot rename a cgroup.)"""
    d = daemon_factory(conf(tmp_path, "stock_restrict_for = 3s\n"))
    cg = holder(cgroups, "before-rename")
    before, _ = restricted(d, cgroups, cg)
    renamed = cg.with_name(cg.name + "-renamed")
    try:
        cg.rename(renamed)
    except OSError as e:
        assert cgroups.version == 2, e
        return
    cgroups.made[cgroups.made.index(cg)] = renamed
    wait_for(lambda: limit(cgroups, renamed) == before, timeout=15,
             what="the renamed cgroup's limit put back")
    put = wait_for(lambda: [r for r in audit(tmp_path) if r["action"] == "grant"],
                   what="the put-back audited")
    assert put[0]["result"] == "done" and put[0]["cgroup"] == cgroups.rel(renamed), put
