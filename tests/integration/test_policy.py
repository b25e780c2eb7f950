"""Policies and the decide stage on the real kernel: an abusing workload is
classed abuser within the configured windows while a well-behaved sibling
stays good; taoctl policy explains a match; reload (command and SIGHUP)
takes good configs and rejects broken ones with file:line."""
import signal
import time

from conftest import TIME_SCALE, judged, wait_for, host_only

WINDOW_S = 2
K = 2  # escalate_after


def policy_conf(base_rel):
    return (f"[policy default]\nwindow = 10s\n"
            f"[policy tests]\nmatch = {base_rel}/taodtest-*\n"
            f"window = {WINDOW_S}s\nmin_allocs = 8\nmax_split_ratio = 0.25\n"
            f"escalate_after = {K}\nrelax_after = 3\ncooldown = 1s\n"
            f"ladder = warn:1 restrict:3 shatter:5\n")


def good_steps(rounds):
    """Faults THPs and unmaps them whole: many allocations, no splits."""
    steps = []
    for _ in range(rounds):
        steps += ["fault", 8, "hold-ms", 400, "unmap-whole"]
    return steps


def test_abuser_classified_while_sibling_stays_good(daemon_factory, cgroups):
    d = daemon_factory(policy_conf(cgroups.rel(cgroups.base)))
    a, b = cgroups.make("abuse"), cgroups.make("good")
    rel_a, rel_b = cgroups.rel(a), cgroups.rel(b)
    start = time.time()
    pa = cgroups.workload(a, "abuse", 20)
    pb = cgroups.workload(b, *good_steps(40))

    row = wait_for(lambda: (r := judged(d, rel_a)) and r["class"] == "abuser" and r,
                   timeout=20, what="abuser class")
    took = time.time() - start
    # First window may start before the workload: K judged windows plus two.
    assert took <= ((K + 3) * WINDOW_S + 2) * TIME_SCALE, took  # slack for a loaded machine
    assert row["policy"] == "tests"
    ev = row["evidence"]
    assert ev["judged"] and ev["thp_alloc"] >= 8
    assert ev["split_ratio"] > 0.5 and ev["score"] > 2
    # Windows follow each other from the last one's newest sample: one window
    # long, plus however late its closing tick came (at most a tick).
    assert WINDOW_S * 1000 - 1000 * TIME_SCALE <= ev["window_ms"] <= (WINDOW_S + 1) * 1000 * TIME_SCALE
    # Hysteresis: the first abusive window did not flip the class.
    first_bad = next(h for h in row["history"] if h["level"] == "abuser")
    assert first_bad["class"] == "good"
    assert any(o["pid"] == pa.pid and o["pmd_split"] > 0 for o in row["offenders"])
    assert row["next_action"] is not None
    assert row["strikes"] >= 1 and row["last_action"]["action"] == "warn"

    assert d.ctl("status")["decide"]["abuser"] >= 1
    listed = {r["cgroup"] for r in d.ctl("abusers")}
    assert rel_a in listed and rel_b not in listed

    # The sibling keeps allocating, splits nothing, and stays good.
    d.wait_ticks(K * WINDOW_S * 5)
    rb = judged(d, rel_b)
    assert rb["class"] == "good"
    assert rb["evidence"]["judged"], rb
    assert rb["evidence"]["pmd_split"] == 0
    assert all(h["class"] == "good" for h in rb["history"])
    assert rb["offenders"] == []

    rc, out, _ = d.ctl_rc("abusers")
    assert rc == 0 and rel_a in out and "evidence:" in out and f"pid {pa.pid}" in out
    log = d.logtext()
    assert f"cgroup {rel_a} is now abuser (policy tests)" in log
    # decide's requests reach the act stage, which audits each one.
    acts = d.ctl("actions", "--cgroup", rel_a)
    warns = [a for a in acts if a["action"] == "warn" and a["pid"] == pa.pid]
    assert warns and warns[-1]["policy"] == "tests", acts
    for p in (pa, pb):
        p.kill()
        p.wait()


@host_only
def test_policy_explains_the_match(daemon_factory):
    d = daemon_factory("[policy broad]\nmatch = /a/*\n"
                       "[policy narrow]\nmatch = /zzz /a/b*\ncoverage_guarantee = 50\n")
    r = d.ctl("policy", "/a/bc")
    assert r["policy"]["name"] == "narrow"
    assert r["policy"]["coverage_guarantee"] == 50
    assert "coverage_guarantee" not in r["policy"]["from_default"]
    assert {(m["policy"], m["glob"], m["won"]) for m in r["matched"]} == {
        ("broad", "/a/*", False), ("narrow", "/a/b*", True)}
    assert r["reason"] == ("policy narrow wins: glob /a/b* has 4 literal characters, "
                           "policy broad's /a/* has 3")
    assert d.ctl("policy", "/elsewhere")["policy"]["name"] == "default"
    rc, out, _ = d.ctl_rc("policy", "/a/bc")
    assert rc == 0 and "why: policy narrow wins" in out
    names = [p["name"] for p in d.ctl("policy")["policies"]]
    assert names == ["default", "broad", "narrow"]
    rc, _, err = d.ctl_rc("policy", "relative")
    assert rc == 1 and "starting with /" in err


@host_only
def test_reload_rejects_broken_dropin_and_keeps_policy(daemon_factory):
    d = daemon_factory("[policy web]\nmatch = /web/*\nmax_split_ratio = 0.5\n")
    dropins = d.conf.parent / "taod.conf.d"
    dropins.mkdir()
    bad = dropins / "50-bad.conf"
    bad.write_text("[policy web]\nmax_split_ratio = 0.1\nladder = shatter:1 warn:2\n")

    rc, _, err = d.ctl_rc("reload")
    assert rc == 1
    assert f"{bad}:3: [policy web] ladder" in err
    r = d.ctl("policy", "/web/x")
    assert r["policy"]["max_split_ratio"] == 0.5  # the running config stays

    bad.write_text("[policy web]\nmax_split_ratio = 0.1\nladder = warn:1 shatter:2\n")
    rc, out, _ = d.ctl_rc("reload")
    assert rc == 0 and "2 policies" in out
    r = d.ctl("policy", "/web/x")
    assert r["policy"]["max_split_ratio"] == 0.1
    assert r["policy"]["ladder"] == "warn:1 shatter:2"


@host_only
def test_sighup_picks_up_a_changed_policy(daemon_factory):
    d = daemon_factory("[policy web]\nmatch = /web/*\n")
    d.conf.write_text(d.conf.read_text() + "[policy db]\nmatch = /db/*\nwindow = 7s\n")
    d.proc.send_signal(signal.SIGHUP)
    r = wait_for(lambda: (r := d.ctl("policy", "/db/1"))["policy"]["name"] == "db" and r,
                 what="reloaded policy")
    assert r["policy"]["window_ms"] == 7000

    d.conf.write_text(d.conf.read_text().replace("window = 7s", "window = never"))
    d.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "reload rejected" in d.logtext(), what="rejected reload in the log")
    assert f"{d.conf}:" in d.logtext() and 'window = "never"' in d.logtext()
    assert d.ctl("policy", "/db/1")["policy"]["window_ms"] == 7000


@host_only
def test_reload_names_the_changes_only_a_restart_applies(daemon_factory, tmp_path):
    """`taoctl reload` says which changed settings wait for a restart, and
    says it again at the next reload while they still wait; rc stays 0."""
    d = daemon_factory()
    assert d.ctl("reload")["restart_needed"] == []
    dropins = d.conf.parent / "taod.conf.d"
    dropins.mkdir()
    (dropins / "50-restart.conf").write_text(
        f"[daemon]\ntick = 300ms\n[control]\nsocket = {tmp_path}/other.sock\n"
        "[kernel]\nunmap_pair_window = 7ms\n[enforce]\nbackend = dry-run\n")
    pending = ["[control] socket", "[kernel] unmap_pair_window", "[enforce] backend"]

    rc, out, err = d.ctl_rc("reload")
    assert rc == 0, err
    assert "not applied until taod restarts: " + ", ".join(pending) in out, out
    assert d.ctl("reload")["restart_needed"] == pending
    assert not (tmp_path / "other.sock").exists()
    assert "[enforce] backend changed: takes effect at the next restart" in d.logtext()
