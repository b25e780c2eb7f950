"""taod on the real TAO kernel (make vmtest-tao boots it once per zone
profile; tests/vm/README.md). Every expectation is read from the kernel
itself: /proc/zoneinfo, /proc/vmstat, memory.stat, /proc/cmdline, dmesg.

Profiles select tests with -k: the `bytes` profile runs the whole daemon
tests (status, counting, shatter, zones); the others the status test
(sizes in percent, orders 2..9), the refused profile its own, and the
boot with taod's recommended command line the zones it said it would make."""
import json
import os
import random
import re
import subprocess

from conftest import (EXPECT_ZONES, MIB, PAGE, asked_bytes, audit, boot_zones, cgroup_row,
                      console, finish, memstat, taoctl, vmstat, wait_for, zoneinfo)

# The abuser's policy acts on need (act_when's default); a watermark of free
# 2 MiB blocks above the guest's puts the machine under contiguity pressure.
POLICY = """[policy tao-abuser]
match = {glob}
window = 4s
min_allocs = 8
max_split_ratio = 0.25
escalate_after = 1
cooldown = 1s
ladder = shatter:1
act_when = need
dry_run = no
[pressure]
free_pmd_blocks_some = 1000000000
"""


def test_status_shows_the_real_zones_features_and_levers(taod):
    d = taod()
    st = d.ctl("status")
    k, zi, asked = st["kernel"], zoneinfo(), boot_zones()
    assert k["kind"] == "tao", k
    feats = {f["name"]: f for f in k["features"]}
    assert feats["boot_zones"]["present"] and feats["boot_zones"]["probe"] == "/proc/zoneinfo"
    # Each feature on its real file: none of these exist on this kernel.
    assert not os.path.exists("/sys/devices/system/memory")
    assert not feats["hotplug_zones"]["present"], feats["hotplug_zones"]
    assert "/sys/devices/system/memory unreadable" in feats["hotplug_zones"]["why"]
    for name, file in (("memcg_thp_zones", "memory.thp_zones"),
                       ("memcg_thp_shatter", "memory.thp_shatter")):
        path = feats[name]["why"].split()[0]
        assert not feats[name]["present"] and path.endswith(file), feats[name]
        assert not os.path.exists(path) and os.path.isdir(os.path.dirname(path)), path
    assert not feats["hvo_counter"]["present"] and "thp_hvo_page" not in vmstat()
    assert st["observation_mode"] == "fentry (THP paths)", st["observation_reason"]
    levers = {l["action"]: l["how"] for l in k["levers"]}
    assert levers == {
        "restrict": "unsupported: the ladder's next rung acts instead",
        "grant": "unsupported: rewards collapse instead",
        "shatter": "through the split path: the kernel shatters THPs in the zones",
        "resize-zones": "unsupported: the zones are sized at boot (taoctl zones)"}, levers
    act = st["act"]
    assert act["backend"] == "tao"
    assert act["nosplit_bytes"] == zi["NoSplit"]["present"] * PAGE
    assert act["nomerge_bytes"] == zi["NoMerge"]["present"] * PAGE

    z = d.ctl("zones")
    assert z["sizing"] == "boot", z
    shown = {r["name"]: r for r in z["zones"]}
    for name in ("NoSplit", "NoMerge"):
        size, order = asked[name]
        r = shown[name]
        # The kernel's zone: the order asked, the size asked rounded up to
        # MAX_ORDER_NR_PAGES (4 MiB), less a hole at the top of memory.
        assert r["order"] == zi[name]["order"] == order, (name, r, zi[name])
        assert r["present_bytes"] == zi[name]["present"] * PAGE, (name, r)
        want = -(-asked_bytes(size) // (4 * MIB)) * 4 * MIB
        slack = 4 * MIB if size.endswith("%") else MIB  # % of which total: the kernel's
        assert want - slack <= zi[name]["spanned"] * PAGE <= want + slack, (name, size, zi[name])
        vs = vmstat()
        assert (r["allocstall"], r["pgskip"]) == (vs[f"allocstall_{name.lower()}"],
                                                 vs[f"pgskip_{name.lower()}"]), (r, vs)
        boot = z["boot_" + name.lower()]
        assert boot["order"] == order, boot
    rc, out, _ = d.ctl_rc("status")
    assert rc == 0 and "(sized at boot: taoctl zones)" in out, out
    # A fresh guest, no tenant holding THPs: no evidence the zones are too
    # big, so the recommendation keeps the boot sizes (it used to shrink
    # them to the few MiB they held), or grows a full one.
    assert z["held_bytes"] == z["peak_bytes"] == 0, z
    if not any(size.endswith("%") for size, _ in asked.values()):
        rec = z["recommendation"]
        for name, (size, _) in asked.items():
            said = rec[name.lower()]
            assert said["bytes"] >= asked_bytes(size) and "boot size kept" in said["why"], rec


def test_counts_per_cgroup_equal_the_kernels(taod, cgroups):
    """A workload whose sizes the test does not use: taod's counts per
    cgroup against the kernel's (memory.stat), and their sum against
    /proc/vmstat's deltas."""
    d = taod()
    rnd = random.Random(os.getpid())
    a, b = cgroups.make("count-a"), cgroups.make("count-b")
    n1, n2 = rnd.randint(6, 20), rnd.randint(6, 20)
    m1 = rnd.randint(1, n1 - 1)
    before = vmstat()
    finish(cgroups.workload(a, "fault", n1, "partial", m1, "hold", 1))
    finish(cgroups.workload(b, "fault", n2, "mprotect", rnd.randint(1, n2), "unmap-whole"))
    after = vmstat()
    delta = {k: after[k] - before.get(k, 0) for k in after}
    rows = lambda: [cgroup_row(d, cgroups.rel(c)) for c in (a, b)]  # noqa: E731

    def settled():
        r = rows()
        return all(r) and sum(x["thp_alloc"] for x in r) >= delta["thp_fault_alloc"] + \
            delta["thp_collapse_alloc"] and sum(x["pmd_split"] for x in r) >= \
            delta["thp_split_pmd"] and r

    wait_for(settled, what="taod's counts to reach the kernel's")
    d.wait_ticks(2)
    r = rows()
    assert sum(x["thp_fault_alloc"] for x in r) == delta["thp_fault_alloc"], (r, delta)
    assert sum(x["thp_collapse_alloc"] for x in r) == delta["thp_collapse_alloc"], (r, delta)
    assert sum(x["pmd_split"] for x in r) == delta["thp_split_pmd"], (r, delta)
    for c, x in zip((a, b), r):
        ms = memstat(c)
        assert x["thp_fault_alloc"] == ms["thp_fault_alloc"], (x, ms)
        assert x["thp_collapse_alloc"] == ms["thp_collapse_alloc"], (x, ms)
    # Which allocations the zones serve: every PMD THP came from a zone,
    # NoMerge where its order is 9, else NoSplit (its order is at most 9).
    thps = delta["thp_fault_alloc"] + delta["thp_collapse_alloc"]
    assert delta["pgalloc_nomerge"] + delta["pgalloc_nosplit"] >= 512 * thps, delta
    if zoneinfo()["NoMerge"]["order"] == 9:
        assert delta["pgalloc_nomerge"] >= 512 * thps, delta


def test_decide_shatters_a_real_abuser_through_the_split_path(taod, cgroups, tmp_path):
    ab = cgroups.make("abuser")
    glob = f"{cgroups.rel(cgroups.base)}/taodtest-*-abuser"
    d = taod(POLICY.format(glob=glob))
    rel = cgroups.rel(ab)
    before = vmstat()
    # Each THP keeps one 4 KiB page mapped; thp-off keeps khugepaged away.
    p = cgroups.workload(ab, "fault", 32, "keep1", 32, "thp-off", "hold", 300)
    rec = wait_for(lambda: next((r for r in audit(tmp_path) if r["cgroup"] == rel
                                 and r["action"] == "shatter" and r["result"] == "done"), None),
                   timeout=60, what="decide's shatter of the abuser")
    after = vmstat()
    console("TAO_SHATTER_RECORD=" + json.dumps(rec))  # the lab's log keeps it
    s = rec["shatter"]
    delta = {k: after[k] - before[k] for k in
             ("thp_shatter_page", "thp_shatter_page_failed", "thp_shatter_page_discarded",
              "thp_split_page")}
    assert rec["pid"] == p.pid and "split_huge_pages" in rec["detail"], rec
    assert (s["shattered"], s["failed"], s["discarded"], s["split"]) == (
        delta["thp_shatter_page"], delta["thp_shatter_page_failed"],
        delta["thp_shatter_page_discarded"], delta["thp_split_page"]), (rec, delta)
    asked, partial = map(int, re.search(r"(\d+) THPs \((\d+) partly mapped\) asked",
                                        rec["detail"]).groups())
    # The kernel counts each THP asked once: shattered where it lives in a
    # zone, split where it does not.
    assert s["shattered"] + s["split"] == asked >= 1 and s["failed"] == 0, rec
    # A shattered THP discards the 511 base pages it no longer mapped; a
    # whole one (taken after the partly mapped, budget left) discards none.
    if asked == partial:
        assert s["discarded"] == 511 * s["shattered"], rec
    assert s["discarded"] % 511 == 0 and s["discarded"] <= 511 * partial, rec
    # Compaction runs only where some THP was split rather than shattered.
    if s["split"]:
        assert "; compacted memory" in rec["detail"], json.dumps(rec)
    else:
        assert f"shattered {s['shattered']}, failed 0, discarded {s['discarded']} pages, " \
            "split 0 (vmstat); no compaction: every THP shattered" in rec["detail"], rec
    # Where the zones hold every THP, nothing is split: NoMerge of order 9
    # serves PMD THPs alone (where NoSplit serves them, so do other zones
    # once other allocations of its order have taken its room).
    if os.environ.get("TAO_ZONES_TOO_SMALL"):
        assert s["split"] >= 1, json.dumps(rec)
    elif zoneinfo()["NoMerge"]["order"] == 9:
        assert s["split"] == 0, rec
    # taod counts what is left partly mapped from the kernel's deferred
    # split queue here (6.6): a THP shattered or split left it.
    wait_for(lambda: cgroup_row(d, rel)["partly_mapped_thps"] == 32 - partial,
             what=f"{32 - partial} THPs left partly mapped after the shatter")
    # Asked again with nothing left to shatter: never "done".
    again = d.act("shatter", "--cgroup", rel)
    assert again["result"] != "done", again
    d.wait_ticks(3)

    metrics = d.ctl_rc("metrics")[1]
    vs, zi = vmstat(), zoneinfo()
    for name in ("NoSplit", "NoMerge"):
        low = name.lower()
        assert f'taod_zone_order{{node="0",zone="{name}"}} {zi[name]["order"]}' in metrics
        for stat in ("allocstall", "pgskip"):
            assert f'taod_zone_{stat}_total{{zone="{name}"}} {vs[f"{stat}_{low}"]}' in metrics
    assert f'taod_shatter_pages_total{{result="shattered"}} {vs["thp_shatter_page"]}' in metrics
    assert f'taod_shatter_pages_total{{result="discarded"}} ' \
        f'{vs["thp_shatter_page_discarded"]}' in metrics, metrics
    rep = json.loads(taoctl("report", "--db", str(tmp_path / "history.db"), "--since", "1h",
                            "--format", "json").stdout)
    orders = {z["zone"]: z["order"] for z in rep["machine"]["zones"]}
    assert orders["NoSplit"] == zi["NoSplit"]["order"] and orders["NoMerge"] == zi["NoMerge"]["order"]
    counters = {c["stat"]: c["value"] for c in rep["machine"]["tao"]["counters"]}
    assert counters["thp_shatter_page"] == vs["thp_shatter_page"], counters
    mine = next(c for c in rep["cgroups"] if c["path"] == rel)
    assert mine["shatter"]["shattered"] == s["shattered"], mine["shatter"]
    # Free blocks by order: the kernel's buddyinfo, as the metrics show it.
    def blocks_agree():
        buddy = {l.split()[3]: l.split()[4:] for l in open("/proc/buddyinfo")}
        m = d.ctl_rc("metrics")[1]
        return all(f'taod_zone_free_blocks{{node="0",zone="NoSplit",order="{o}"}} {n}' in m
                   for o, n in enumerate(buddy["NoSplit"]))

    wait_for(blocks_agree, what="NoSplit's free blocks in the metrics as in buddyinfo")
    table = taoctl("report", "--db", str(tmp_path / "history.db"), "--since", "1h").stdout
    assert f"NoMerge  order {zi['NoMerge']['order']}, managed" in table, table
    p.kill()


def test_zones_recommend_from_every_tenant_and_apply(taod, cgroups, tmp_path):
    d = taod()
    t = cgroups.make("tenant")  # no policy guarantees it anything
    p = cgroups.workload(t, "fault", 48, "hold", 300)
    held = wait_for(lambda: (r := cgroup_row(d, cgroups.rel(t))) and r["thp_bytes"] >= 90 * MIB
                    and r["thp_bytes"], what="the tenant's THPs in memory.stat")
    z = wait_for(lambda: (z := d.ctl("zones"))["peak_bytes"] >= held and z, what="the peak")
    rec, asked = z["recommendation"], boot_zones()
    assert z["held_bytes"] >= held and z["guaranteed_cgroups"] == 0, z
    assert rec["accepted"], rec
    ns, nm = rec["nosplit"], rec["nomerge"]
    # Never below what the tenants hold; the zone no THP order asks for
    # (NoSplit: no mTHP here) keeps its boot size.
    assert ns["bytes"] + nm["bytes"] >= z["peak_bytes"], z
    assert nm["order"] == z["pageblock_order"] and "demand" in nm["why"], nm
    assert ns["bytes"] >= asked_bytes(asked["NoSplit"][0]) and ns["order"] == asked["NoSplit"][1]
    rc, out, err = d.ctl_rc("zones", "--apply")
    assert rc == 0, (out, err)
    dropin = (tmp_path / "grub.d/taod-zones.cfg").read_text()
    assert f'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX {rec["cmdline"]}"' in dropin, dropin
    console("TAO_RECOMMENDED=" + rec["cmdline"])
    console("TAO_EXPECT_ZONES=" + json.dumps({"NoSplit": ns, "NoMerge": nm}))
    # The tenant gone and taod restarted (as after a reboot into new
    # zones): the peak comes back from the history, and so does the floor.
    p.kill()
    p.wait()
    d.stop()
    z2 = taod().ctl("zones")
    assert z2["held_bytes"] < held <= z2["peak_bytes"], z2
    r2 = z2["recommendation"]
    assert r2["nosplit"]["bytes"] + r2["nomerge"]["bytes"] >= z2["peak_bytes"], z2


def test_the_kernel_made_the_zones_taod_said(taod):
    """Booted with the command line taod recommended (vmtest-tao passes
    what it said in TAO_EXPECT_ZONES)."""
    assert EXPECT_ZONES, "TAO_EXPECT_ZONES: what taod said, from the earlier guest"
    zi, st = zoneinfo(), taod().ctl("status")
    for name, said in EXPECT_ZONES.items():
        assert zi[name]["order"] == said["order"], (name, zi[name], said)
        # The sizes are already multiples of 4 MiB: only the hole at the
        # top of memory (32 pages here) may be missing.
        assert said["bytes"] - MIB <= zi[name]["spanned"] * PAGE <= said["bytes"], (name, zi, said)
        assert st["act"][name.lower() + "_bytes"] == zi[name]["present"] * PAGE


def test_refused_zones_are_reported_as_none(taod):
    """nosplit order above nomerge order: the kernel drops both zones (it
    says so in dmesg) but still lists them, empty."""
    asked, zi = boot_zones(), zoneinfo()
    assert asked["NoSplit"][1] >= asked["NoMerge"][1], asked
    assert zi["NoSplit"]["present"] == zi["NoMerge"]["present"] == 0, zi
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    assert re.search(r"zone NoSplit order \d+ cannot be higher than zone NoMerge", dmesg), dmesg
    d = taod()
    st = d.ctl("status")
    k = st["kernel"]
    feats = {f["name"]: f for f in k["features"]}
    assert k["kind"] == "stock" and "the kernel made no policy zone" in k["why"], k
    assert not feats["boot_zones"]["present"] and "0 pages" in feats["boot_zones"]["why"]
    assert k["levers"] == [], st
    z = d.ctl("zones")
    assert all(r["present_bytes"] == 0 for r in z["zones"]), z
    rc, out, _ = d.ctl_rc("status")
    assert "the kernel made no policy zone" in out, out
