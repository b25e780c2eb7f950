"""History, report and metrics on the real kernel: crash safety of the
database, reports that match the live counters, the HTML report in a real
browser, and the Prometheus exposition read by a real parser."""
import html
import html.parser
import json
import os
import random
import signal
import sqlite3
import subprocess
import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import TAOCTL, TIME_SCALE, Daemon, cgroup_row, report, wait_for, host_only

THP = 2 * 1024 * 1024
RUNS_KILLED = 8
FAST = "[daemon]\ntick = 100ms\n[history]\nevery = 1\n"


def report_json(db, *args):
    return json.loads(report(db, "--format", "json", *args))


def by_path(rep):
    out = {}
    for c in rep["cgroups"]:
        out.setdefault(c["path"], []).append(c)
    return out


def settle(daemon, rels, pred):
    """Waits until every cgroup's live row satisfies @pred, then 3 more ticks."""
    try:
        wait_for(lambda: all((r := cgroup_row(daemon, rel)) and pred(rel, r) for rel in rels),
                 what="live counters")
    except AssertionError as e:
        raise AssertionError(f"{e}: {[cgroup_row(daemon, rel) for rel in rels]}") from None
    daemon.wait_ticks(3)
    return {rel: cgroup_row(daemon, rel) for rel in rels}


@host_only
def test_kill_9_never_corrupts_and_history_continues(tmp_path, cgroups):
    db = tmp_path / "history.db"
    k = cgroups.make("K")
    rel_k = cgroups.rel(k)
    # Many cgroups make every batch a real transaction worth tearing.
    for i in range(20):
        cgroups.make(f"pad{i}")
    gone = cgroups.make("gone")
    rel_gone = cgroups.rel(gone)
    kills = []
    for run in range(RUNS_KILLED):
        d = Daemon(tmp_path, FAST)
        if run == 0:
            cgroups.workload(k, "fault", 8, "hold", 120)
            settle(d, [rel_k, rel_gone], lambda rel, r: rel != rel_k or r["thp_alloc"] == 8)
            gone.rmdir()
            cgroups.made.remove(gone)
            wait_for(lambda: cgroup_row(d, rel_gone) is None, what="gone cgroup dropped")
        d.wait_ticks(3)
        time.sleep(random.uniform(0, 0.1))  # land anywhere in a batch
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait(timeout=10)
        kills.append(time.time() * 1000)
        assert "ERROR: AddressSanitizer" not in d.logtext()
    final = Daemon(tmp_path, FAST)
    final.wait_ticks(3)
    live_report = report_json(db)  # read-only, next to the writing daemon
    assert rel_k in by_path(live_report)
    final.stop()

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == RUNS_KILLED + 1
    rows = con.execute("SELECT cg FROM cgroups WHERE path = ?", (rel_k,)).fetchall()
    assert len(rows) == 1, "the same cgroup continues across restarts"
    series = con.execute("SELECT t_ms, thp_alloc FROM samples WHERE cg = ? ORDER BY t_ms",
                         rows[0]).fetchall()
    allocs = [a for _, a in series]
    assert allocs == sorted(allocs) and allocs[-1] == 8, "cumulative series continuous"
    times = [t for t, _ in series]
    lags = [kill_ms - max(t for t in times if t <= kill_ms) for kill_ms in kills]
    print(f"last batch before each kill -9: {[round(x) for x in lags]} ms ago")
    # At most the batch being written is lost (100 ms batches; slack for ASan).
    assert max(lags) < 1500 * TIME_SCALE, lags
    con.close()

    rep = report_json(db)
    paths = by_path(rep)
    assert paths[rel_k][0]["thp_alloc"] == 8
    assert paths[rel_k][0]["thp_alloc_total"] == 8
    assert rel_gone in paths, "a removed cgroup keeps its history"
    assert paths[rel_gone][0]["present"] is False and paths[rel_k][0]["present"] is True
    assert len(rep["machine"]["daemon_starts_ms"]) == RUNS_KILLED + 1
    assert rep["machine"]["zones"], "zoneinfo recorded"


class SectionFinder(html.parser.HTMLParser):
    """Collects <section class="cgroup" data-cgroup=...>, its charts and their lines."""

    def __init__(self):
        super().__init__()
        self.sections = {}
        self.current = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "cgroup" in (a.get("class") or "").split():
            self.current = a["data-cgroup"]
            self.sections[self.current] = {"svg": 0, "polylines": []}
        elif self.current and tag == "svg" and "chart" in (a.get("class") or "").split():
            self.sections[self.current]["svg"] += 1  # the chart, not the per-size bars
        elif self.current and tag == "polyline":
            self.sections[self.current]["polylines"].append(a.get("points", "").strip())

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None


def chromium(tmp_path, *args):
    p = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={tmp_path / 'chromium'}", *args],
                       capture_output=True, text=True, timeout=90 * TIME_SCALE)
    assert p.returncode == 0, p.stderr
    return p.stdout


def live_history(daemon_factory, cgroups, tmp_path):
    """A history of two cgroups, A splitting 5 of 12 THPs and B unmapping
    its 12 whole: (database, A's path, B's path, their live rows)."""
    d = daemon_factory(FAST)
    a, b = cgroups.make("A"), cgroups.make("B")
    cgroups.workload(a, "fault", 12, "partial", 5, "hold", 60)
    cgroups.workload(b, "fault", 6, "unmap-whole", "fault", 6, "dontneed-whole", "hold", 60)
    rel_a, rel_b = cgroups.rel(a), cgroups.rel(b)
    live = settle(d, [rel_a, rel_b], lambda rel, r: r["pmd_split"] >= 5 if rel == rel_a
                  else r["pmd_unmap_whole"] >= 12)
    d.stop()  # the report needs no daemon
    return tmp_path / "history.db", rel_a, rel_b, live


def test_report_matches_live_counters(daemon_factory, cgroups, tmp_path):
    db, rel_a, rel_b, live = live_history(daemon_factory, cgroups, tmp_path)
    rep = by_path(report_json(db, "--cgroup", "*taodtest-*"))
    for rel in (rel_a, rel_b):
        (row,) = rep[rel]
        for key in ("thp_alloc", "pmd_split", "pmd_unmap_whole", "thp_bytes", "anon_bytes"):
            assert row[key] == live[rel][key], (rel, key, row[key], live[rel][key])
        assert row["split_ratio"] == pytest.approx(live[rel]["split_ratio"])
        assert row["coverage_now_pct"] == pytest.approx(live[rel]["coverage_pct"])
    assert rep[rel_a][0]["pmd_split"] == 5 and rep[rel_a][0]["thp_alloc"] == 12

    # Without --db: the [history] path of the daemon's own configuration.
    p = subprocess.run([str(TAOCTL), "report", "-c", str(tmp_path / "taod.conf"), "--format",
                        "json", "--cgroup", rel_b], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert [c["path"] for c in json.loads(p.stdout)["cgroups"]] == [rel_b]

    csv_lines = report(db, "--format", "csv", "--cgroup", rel_a).splitlines()
    assert len(csv_lines) == 2 and csv_lines[1].startswith(f"{rel_a},")
    table = report(db)
    assert rel_a in table and "THP allocations" in table


# Chromium takes over a minute per page in an emulated guest, and what the
# page shows of the counters the test above proves in every guest.
@host_only
def test_report_renders_a_page_with_charts(daemon_factory, cgroups, tmp_path):
    db, rel_a, rel_b, _ = live_history(daemon_factory, cgroups, tmp_path)
    # The page reads guarantees from the policies of -c: A is promised 99%.
    conf = tmp_path / "report.conf"
    conf.write_text(f"[history]\npath = {db}\n[policy promised]\nmatch = {rel_a}\n"
                    "coverage_guarantee = 99\n")
    out = tmp_path / "report.html"
    report(db, "--format", "html", "-o", str(out), "-c", str(conf))
    png = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={png}", "--window-size=1200,2000", out.as_uri())
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
    dom = chromium(tmp_path, "--dump-dom", out.as_uri())
    finder = SectionFinder()
    finder.feed(dom)
    for rel in (rel_a, rel_b):
        sec = finder.sections[rel]
        assert sec["svg"] == 1
        assert len(sec["polylines"]) == 2 and sec["polylines"][0], sec
    # Concern first: A misses its guarantee, B does not have one.
    assert dom.index(f'data-cgroup="{rel_a}"') < dom.index(f'data-cgroup="{rel_b}"')
    assert "guarantee 99% missed by" in dom
    # The machine's free blocks by order, one line per order with points.
    frag = dom.split('<svg class="fragmentation"')[1].split("</svg>")[0]
    assert frag.count("<polyline") >= 10 and 'data-order="9"' in frag
    assert all(len(pl.split('points="')[1].split('"')[0].split()) >= 2
               for pl in frag.split("<polyline")[1:])


def metric_samples(text):
    """{(name, frozenset(labels)): value} via prometheus_client's parser."""
    out, families = {}, {}
    for fam in text_string_to_metric_families(text):
        families[fam.name] = fam.type
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out, families


def test_metrics_parse_and_textfile_is_atomic(daemon_factory, cgroups, tmp_path):
    prom = tmp_path / "textfile" / "taod.prom"
    prom.parent.mkdir()
    d = daemon_factory(f"[metrics]\ntextfile = {prom}\n")
    c = cgroups.make("M")
    cgroups.workload(c, "fault", 4, "partial", 1, "hold", 60)
    rel = cgroups.rel(c)
    live = settle(d, [rel], lambda _, r: r["pmd_split"] >= 1)[rel]

    rc, text, err = d.ctl_rc("metrics")
    assert rc == 0, err
    samples, families = metric_samples(text)
    assert families["taod_cgroup_thp_allocations"] == "counter"
    assert families["taod_cgroup_thp_bytes"] == "gauge"
    lab = frozenset({("cgroup", rel)})
    assert samples[("taod_cgroup_thp_allocations_total", lab)] == live["thp_alloc"] == 4
    assert samples[("taod_cgroup_pmd_splits_total", lab)] == live["pmd_split"] == 1
    assert samples[("taod_cgroup_pmd_whole_unmaps_total", lab)] == live["pmd_unmap_whole"]
    assert samples[("taod_cgroup_thp_bytes", lab)] == live["thp_bytes"] == 3 * THP
    assert samples[("taod_cgroup_thp_coverage_ratio", lab)] == pytest.approx(
        live["coverage_pct"] / 100)
    assert samples[("taod_up", frozenset())] == 1
    assert samples[("taod_ticks_total", frozenset())] >= 3
    # The program that saw the splits: lruvec updates, or the THP paths in that fentry mode.
    assert any(n == "taod_bpf_events_total" and dict(l)["program"] in ("lruvec", "thp_path")
               and v > 0
               for (n, l), v in samples.items())

    # The collector must never see a half-written file: every read parses
    # whole, and the file is a new inode after each tick.
    inodes = set()
    deadline = time.time() + 3
    while time.time() < deadline:
        inodes.add(os.stat(prom).st_ino)
        got, _ = metric_samples(prom.read_text())
        assert got[("taod_up", frozenset())] == 1
        assert got[("taod_cgroup_thp_allocations_total", lab)] == 4
    assert len(inodes) >= 3


@host_only
def test_textfile_error_is_logged_once_and_a_symlink_is_replaced(daemon_factory, tmp_path):
    """Whoever can write the textfile directory cannot flood the journal
    (a directory planted at the path fails every tick) nor have a file
    overwritten through a symlink planted at the path."""
    prom = tmp_path / "textfile" / "taod.prom"
    prom.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    d = daemon_factory(f"[metrics]\ntextfile = {prom}\n")
    d.wait_ticks(10)
    assert d.logtext().count(f"metrics textfile {prom}: ") == 1, d.logtext()
    prom.rmdir()
    prom.symlink_to(victim)
    wait_for(lambda: "written again" in d.logtext(), what="textfile written again")
    assert not prom.is_symlink() and "taod_up 1" in prom.read_text()
    assert victim.read_text() == "precious\n"


@host_only
def test_daemon_runs_on_without_a_usable_database(daemon_factory):
    d = daemon_factory("[history]\npath = /dev/null/history.db\n")
    d.wait_ticks(2)
    assert "running without history" in d.logtext()
    rc, text, _ = d.ctl_rc("metrics")
    assert rc == 0 and "taod_history_enabled 0" in text


# A host of 1,000 cgroups over the last hour: 5 abusers acted on 60 times
# each (every result), 30 busy, 20 busy but removed, the rest idle.
RESULTS = ("done", "dry-run", "unsupported", "failed", "rate-limited")


def sample_row(cols, values):
    """A samples row of @cols: @values by name, 0 in the other NOT NULL columns, else NULL."""
    return tuple(values.get(name, 0 if notnull else None) for name, notnull in cols)


def thousand_cgroup_history(daemon_factory, tmp_path):
    """taod's own database (its schema, whatever the version), then the
    1,000 cgroups written into it: (database, the abusers' paths)."""
    d = daemon_factory(FAST)
    d.wait_ticks(3)
    d.stop()
    db = tmp_path / "history.db"
    con = sqlite3.connect(db)
    cols = [(r[1], r[3]) for r in con.execute("PRAGMA table_info(samples)")]
    run = con.execute("SELECT max(run) FROM runs").fetchone()[0]
    first = con.execute("SELECT coalesce(max(cg), 0) FROM cgroups").fetchone()[0] + 1
    step, now = 10_000, int(time.time() * 1000)
    times = [now - (299 - k) * step for k in range(300)]  # the last batch: these
    rows, actions, abusers = [], [], []
    for i in range(1000):
        cg, path = first + i, f"/r28/tenant-{i:04d}"
        busy, removed = i < 55, 35 <= i < 55
        cls = "abuser" if i < 5 else "good"
        seen = times[:100] if removed else times if busy else [times[0], times[-1]]
        con.execute("INSERT INTO cgroups VALUES (?, ?, ?, ?, ?, ?)",
                    (cg, path, 10**6 + i, seen[0], seen[-1], cls))
        for k, t in enumerate(seen):
            rows.append(sample_row(cols, {
                "cg": cg, "t_ms": t, "run": run, "interval_ms": step, "anon_bytes": 64 << 20,
                "thp_bytes": (k % 32) << 21, "coverage_pct": 100.0 * (k % 32) / 32,
                "class": cls, "d_thp_alloc": (i % 7 + 1) if busy else 0,
                "d_pmd_split": (k % 3) if busy else 0}))
        if i < 5:
            abusers.append(path)
            actions += [(times[k * 5], cg, path, 10**6 + i, "shatter", RESULTS[k % 5], 0,
                         1000 + k, THP, 0, "default", "{}", f"split {k} THPs", run)
                        for k in range(60)]
    con.executemany(f"INSERT INTO samples({', '.join(n for n, _ in cols)}) VALUES "
                    f"({', '.join('?' * len(cols))})", rows)
    con.executemany("INSERT INTO actions(t_ms, cg, cgroup, cgroup_id, kind, result, err, pid,"
                    " bytes, dry_run, policy, evidence, detail, run) VALUES"
                    " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", actions)
    con.commit()
    con.close()
    return db, abusers


@host_only
def test_a_thousand_cgroups_give_a_small_page_that_leads_with_attention(daemon_factory,
                                                                         tmp_path):
    db, abusers = thousand_cgroup_history(daemon_factory, tmp_path)
    out = tmp_path / "report.html"
    report(db, "--format", "html", "-o", str(out))
    page = out.read_text()
    assert len(page.encode()) < 300 * 1024, len(page.encode())
    finder = SectionFinder()
    finder.feed(page)
    shown = list(finder.sections)
    assert shown[:5] == sorted(abusers, key=lambda p: shown.index(p)), shown[:8]
    assert set(shown[:5]) == set(abusers), shown[:8]
    assert "/r28/tenant-0999" not in page, "idle: left out"
    assert "/r28/tenant-0040" not in page, "removed: left out"
    assert "cgroups left out: idle, removed, or quieter than the 20 busiest" in page
    # Each abuser: marks of every result, and a table of its last 20 actions.
    sec = page.split(f'data-cgroup="{abusers[0]}"')[1].split("</section>")[0]
    for result in ("done", "dry-run", "unsupported", "failed", "other"):
        assert f'data-result="{result}"' in sec, result
    assert sec.count("<td class=\"detail\">") == 20
    assert "40 earlier ones" in sec
    # --all: every cgroup in the table (the page still draws at most 50 charts).
    table = report(db, "--all", "--cgroup", "/r28/*")
    assert sum(line.startswith("/r28/tenant-") for line in table.splitlines()) == 1000
    table = report(db, "--cgroup", "/r28/*")
    assert sum(line.startswith("/r28/tenant-") for line in table.splitlines()) == 25
    assert "(975 of 1000 cgroups left out" in table


# Run in the page by Chromium: how wide the document is against the window,
# and each legend entry's text size and its contrast against white (WCAG).
PROBE = """<script>
(() => {
  const lum = c => {
    const [r, g, b] = c.match(/[0-9.]+/g).slice(0, 3).map(v => {
      v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const keys = [...document.querySelectorAll(".legend > span")].map(s => {
    const st = getComputedStyle(s);
    return {text: s.textContent, px: parseFloat(st.fontSize),
            contrast: 1.05 / (lum(st.color) + 0.05),
            right: s.getBoundingClientRect().right};
  });
  const out = {scrollWidth: document.documentElement.scrollWidth,
               innerWidth: window.innerWidth, keys};
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


@host_only
def test_the_page_renders_without_overflow_and_a_legible_legend(daemon_factory, tmp_path):
    db, abusers = thousand_cgroup_history(daemon_factory, tmp_path)
    out = tmp_path / "report.html"
    report(db, "--format", "html", "-o", str(out))
    png = tmp_path / "report.png"
    chromium(tmp_path, f"--screenshot={png}", "--window-size=1024,4000", out.as_uri())
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
    assert int.from_bytes(data[16:20], "big") == 1024, "the window's width"
    probed = tmp_path / "probed.html"
    probed.write_text(out.read_text().replace("</body>", PROBE + "</body>"))
    dom = chromium(tmp_path, "--window-size=1024,4000", "--dump-dom", probed.as_uri())
    got = json.loads(html.unescape(dom.split('<pre id="probe">')[1].split("</pre>")[0]))
    assert got["innerWidth"] == 1024, got["innerWidth"]
    assert got["scrollWidth"] <= got["innerWidth"], "the page scrolls sideways"
    texts = " ".join(k["text"] for k in got["keys"])
    for words in ("order 0", "order 9", "done", "dry-run", "unsupported", "failed",
                  "PMD splits/s"):
        assert words in texts, words
    for k in got["keys"]:
        assert k["px"] >= 12, k
        assert k["contrast"] >= 4.5, k
        assert k["right"] <= got["innerWidth"], k
