"""taod's output sinks on the real kernel: the audit log follows a rotation
(mv, with or without SIGHUP or `taoctl reload`, as the shipped logrotate
file does it), a full filesystem (a real tmpfs) loses
no record silently and taod recovers when space returns, a deleted history
directory is noticed and recreated, a foreign file at the history path is
refused untouched, and status and metrics show each sink's health, actions
by kind and result, each judged cgroup's class, and taod_up 0 at exit."""
import json
import os
import signal
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO, judged, wait_for, host_only

FAST = "[daemon]\ntick = 100ms\n[history]\nevery = 1\n"


def samples(text):
    """{(name, frozenset(labels)): value} via prometheus_client's parser."""
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def metrics(d):
    rc, text, err = d.ctl_rc("metrics")
    assert rc == 0, err
    return samples(text)


def sink_metric(d, name, sink):
    return metrics(d).get((name, frozenset({("sink", sink)})))


def sink(d, name):
    return d.ctl("status")["sinks"][name]


def warn_allowlisted(d):
    """One audited action that needs no cgroup: the root is always allowlisted."""
    rc, out, err = d.ctl_rc("--json", "act", "warn", "--cgroup", "/")
    assert rc == 1 and json.loads(out)["result"] == "allowlisted", (rc, out, err)
    return json.loads(out)["id"]


def audit_ids(path):
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


@host_only
@pytest.mark.parametrize("how", ["sighup", "reload", "nothing"])
def test_audit_log_follows_a_rotation(daemon_factory, tmp_path, how):
    audit, prom = tmp_path / "audit.jsonl", tmp_path / "taod.prom"
    d = daemon_factory(f"[enforce]\nmode = observe\naudit_log = {audit}\n"
                       f"[metrics]\ntextfile = {prom}\n")
    first = warn_allowlisted(d)
    wait_for(prom.exists, what="textfile")
    audit.rename(tmp_path / "audit.jsonl.1")
    prom.rename(tmp_path / "taod.prom.1")
    rotated = (tmp_path / "taod.prom.1").read_text()
    if how == "sighup":
        d.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "configuration reloaded" in d.logtext(), what="the reload")
    elif how == "reload":
        rc, out, err = d.ctl_rc("reload")
        assert rc == 0, err
    # "nothing": logrotate's rename alone (the shipped logrotate file sends
    # no signal); the next record sees the path name another file.
    second = warn_allowlisted(d)
    assert audit_ids(tmp_path / "audit.jsonl.1") == [first]
    assert audit_ids(audit) == [second]
    assert sink(d, "audit")["state"] == "ok"
    # The textfile is a new file at its path every tick; the rotated one stays as it was.
    wait_for(prom.exists, what="a new textfile")
    assert (tmp_path / "taod.prom.1").read_text() == rotated


@host_only
def test_shipped_logrotate_rotates_the_audit_log(daemon_factory, tmp_path):
    """logrotate itself, with config/debian/logrotate pointed at this test's
    audit log: the next record goes to a new file at the path."""
    audit = tmp_path / "audit.jsonl"
    d = daemon_factory(f"[enforce]\nmode = observe\naudit_log = {audit}\n")
    first = warn_allowlisted(d)
    shipped = (REPO / "config/debian/logrotate").read_text()
    assert "/var/lib/taod/audit.jsonl {" in shipped
    conf = tmp_path / "logrotate.conf"
    conf.write_text(shipped.replace("/var/lib/taod/audit.jsonl", str(audit)))
    p = subprocess.run(["logrotate", "--force", "--state", str(tmp_path / "state"), str(conf)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert not audit.exists() and audit_ids(tmp_path / "audit.jsonl.1") == [first]
    second = warn_allowlisted(d)
    assert audit_ids(audit) == [second]
    assert audit_ids(tmp_path / "audit.jsonl.1") == [first]
    assert audit.stat().st_mode & 0o777 == 0o600


@pytest.fixture
def small_fs():
    """A 16 MiB tmpfs of its own, unmounted after the test (the history's
    WAL takes a few MiB before its first checkpoint on a busy host)."""
    mnt = Path(tempfile.mkdtemp(prefix="taodtest-fs-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(mnt)],
                   check=True)
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], check=False)
    mnt.rmdir()


def fill(fs):
    """Fills @fs to the last byte (unbuffered writes), twice: a textfile taod
    was writing meanwhile frees its pages when its write fails or its rename
    replaces the old one. Returns the filler file."""
    filler = fs / "filler"
    for _ in range(2):
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (1 << 20, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\0" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)
        time.sleep(0.5)
    return filler


@host_only
def test_a_full_filesystem_loses_no_record_silently(daemon_factory, small_fs):
    audit, prom, db = small_fs / "audit.jsonl", small_fs / "taod.prom", small_fs / "h/history.db"
    d = daemon_factory(FAST + f"path = {db}\n[enforce]\nmode = observe\naudit_log = {audit}\n"
                       f"[metrics]\ntextfile = {prom}\n")
    warn_allowlisted(d)
    d.wait_ticks(3)
    assert all(sink(d, s)["state"] == "ok" for s in ("history", "audit", "textfile"))
    filler = fill(small_fs)

    # The file's last page still has room for a few lines: taod writes
    # until a line does not fit (a short write, cut off again), then loses.
    # Every record is in the file or counted lost (a textfile's temporary
    # file freed may let a line through now and then).
    issued = []
    for _ in range(64):
        issued.append(warn_allowlisted(d))
        if sink(d, "audit")["state"] == "failing":
            break
    issued += [warn_allowlisted(d) for _ in range(2)]
    a = sink(d, "audit")
    missing = set(issued) - set(audit_ids(audit))
    assert a["state"] == "failing" and len(missing) >= 3, (a, missing)
    assert a["records_lost"] == a["errors"] == len(missing), (a, missing)
    assert "No space left on device" in a["last_error"], a
    assert a["failing_since_ms"] > 0
    wait_for(lambda: sink(d, "textfile")["state"] == "failing", what="textfile failing")
    wait_for(lambda: sink(d, "history")["state"] == "failing", what="history failing")
    h = sink(d, "history")
    assert h["records_lost"] >= 1 and "full" in h["last_error"], h
    for s in ("audit", "textfile", "history"):
        assert sink_metric(d, "taod_sink_up", s) == 0, s
        assert sink_metric(d, "taod_sink_records_lost_total", s) >= 1, s
        assert sink_metric(d, "taod_sink_failing_since_seconds", s) > 0, s
    assert "taod_history_enabled 0" in d.ctl_rc("metrics")[1]
    rc, out, _ = d.ctl_rc("status")
    assert rc == 0 and "audit log:   failing since " in out, out
    assert f"{a['records_lost']} records lost" in out, out
    # Once per new error, not once per record or tick.
    log = d.logtext()
    assert log.count(f"audit log {audit}: write: No space left on device") == 1, log
    assert log.count(f"metrics textfile {prom}: No space left on device") == 1, log
    # The file holds whole lines only: a short write was cut off again.
    assert all(json.loads(line) for line in audit.read_text().splitlines())

    filler.unlink()
    last = warn_allowlisted(d)
    assert audit_ids(audit)[-1] == last
    wait_for(lambda: all(sink(d, s)["state"] == "ok" for s in ("history", "audit", "textfile")),
             what="every sink writes again")
    lost = a["records_lost"]
    a = sink(d, "audit")
    assert a["failing_since_ms"] == 0 and a["records_lost"] == lost, a
    assert sink_metric(d, "taod_sink_up", "audit") == 1
    assert sink_metric(d, "taod_sink_failing_since_seconds", "audit") == 0
    assert sink_metric(d, "taod_sink_records_lost_total", "audit") == lost
    assert "written again" in d.logtext()
    d.stop()


def batches(db):
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute("SELECT count(DISTINCT t_ms) FROM zone_samples").fetchone()[0]


@host_only
def test_a_deleted_history_directory_is_noticed_and_recreated(daemon_factory, tmp_path):
    db = tmp_path / "hist" / "history.db"
    d = daemon_factory(FAST + f"path = {db}\n")
    d.wait_ticks(3)
    # A file where the directory was: the database cannot be made, and says so.
    # taod stands still meanwhile: it would recreate the directory in between.
    os.kill(d.proc.pid, signal.SIGSTOP)
    try:
        subprocess.run(["rm", "-rf", str(db.parent)], check=True)
        db.parent.write_text("in the way\n")
    finally:
        os.kill(d.proc.pid, signal.SIGCONT)
    wait_for(lambda: sink(d, "history")["state"] == "failing", what="history failing")
    assert sink_metric(d, "taod_sink_up", "history") == 0
    assert "taod_history_enabled 0" in d.ctl_rc("metrics")[1]
    assert "removed or replaced" in d.logtext()
    db.parent.unlink()
    wait_for(lambda: sink(d, "history")["state"] == "ok", what="history recreated")
    wait_for(lambda: db.exists() and batches(db) >= 2, what="batches in the new database")
    h = sink(d, "history")
    assert h["errors"] >= 2 and h["path"] == str(db), h
    assert "taod_history_enabled 1" in d.ctl_rc("metrics")[1]
    d.stop()


@host_only
@pytest.mark.parametrize("kind", ["text", "other_user"])
def test_a_foreign_history_file_is_refused_untouched(daemon_factory, tmp_path, kind):
    db = tmp_path / "history.db"
    if kind == "text":
        db.write_text("not a database\n")
    else:
        sqlite3.connect(db).execute("CREATE TABLE t(x)").connection.commit()
        os.chown(db, 65534, 65534)
    db.chmod(0o644)
    before = db.read_bytes()
    d = daemon_factory(FAST)
    d.wait_ticks(3)
    assert db.stat().st_mode & 0o777 == 0o644
    assert db.read_bytes() == before
    h = sink(d, "history")
    assert h["state"] == "failing" and "refused" in h["last_error"], h
    assert not Path(str(db) + "-wal").exists()
    assert d.logtext().count("refused, left as it is") == 1


@host_only
def test_status_and_metrics_name_every_sink(daemon_factory, tmp_path):
    d = daemon_factory(f"[enforce]\naudit_log =\n[metrics]\ntextfile = {tmp_path}/taod.prom\n")
    s = d.ctl("status")["sinks"]
    assert s["audit"] == {"state": "off", "path": "", "failing_since_ms": 0, "last_error": "",
                          "errors": 0, "records_lost": 0}
    assert s["history"]["state"] == "ok" and s["history"]["path"] == str(tmp_path / "history.db")
    wait_for(lambda: sink(d, "textfile")["state"] == "ok", what="textfile written")
    m = metrics(d)
    assert ("taod_sink_up", frozenset({("sink", "audit")})) not in m
    assert m[("taod_sink_up", frozenset({("sink", "history")}))] == 1
    assert m[("taod_sink_errors_total", frozenset({("sink", "textfile")}))] == 0
    rc, out, _ = d.ctl_rc("status")
    assert "audit log:   off\n" in out and "history:     ok, " in out, out


def test_actions_and_judged_cgroups_in_metrics(daemon_factory, cgroups, tmp_path):
    base = cgroups.rel(cgroups.base)
    d = daemon_factory(f"[enforce]\nmode = observe\n[policy g]\nmatch = {base}/taodtest-*\n"
                       "window = 1s\nmin_allocs = 1\ncoverage_guarantee = 80\n")
    c = cgroups.make("judged")
    cgroups.workload(c, "fault", 4, "hold", 60)
    rel = cgroups.rel(c)
    for _ in range(2):
        warn_allowlisted(d)
    d.ctl_rc("act", "warn", "--cgroup", rel, "--dry-run")

    row = wait_for(lambda: (r := judged(d, rel)) and r["evidence"] and r, what="a judgement")
    m = metrics(d)
    assert m[("taod_actions_total", frozenset({("kind", "warn"), ("result", "allowlisted")}))] == 2
    assert m[("taod_actions_total", frozenset({("kind", "warn"), ("result", "dry-run")}))] == 1
    lab = frozenset({("cgroup", rel)})
    assert m[("taod_cgroup_class", lab | {("class", row["class"])})] == 1
    assert [k for k in m if k[0] == "taod_cgroup_class" and ("cgroup", rel) in k[1]] == \
        [("taod_cgroup_class", lab | {("class", row["class"])})]
    assert m[("taod_cgroup_guarantee_ratio", lab)] == pytest.approx(0.8)
    assert ("taod_cgroup_score", lab) in m


@host_only
def test_textfile_says_down_after_a_clean_exit(daemon_factory, tmp_path):
    prom = tmp_path / "taod.prom"
    d = daemon_factory(f"[metrics]\ntextfile = {prom}\n")
    wait_for(lambda: prom.exists() and "taod_up 1" in prom.read_text(), what="textfile")
    d.stop()
    got = samples(prom.read_text())
    assert got[("taod_up", frozenset())] == 0
