"""The whole daemon against the boot-zone TAO kernel (tao-kernel-abi.md 2a),
made of files: NoSplit and NoMerge sized by nosplit=/nomerge= on the kernel
command line, an `order` line for every zone, the zones' vmstat counters and
shattering's, and no memcg file, no hotplug into the zones, no HVO counter.
Its debugfs split shatters: a preloaded stand-in (tao_boot_split.so) counts
each THP a split request names in vmstat before the write returns.

taod logs every write (debug); each test fails if one went to a file the
profile lacks. One test runs taod on the machine itself (real cgroups,
tasks and BPF) with only the profile's kernel files taken from the fixture,
so that decide judges and shatters a real abuser. test_tao_fixture.py holds
the extended interface (2b)."""
import csv
import io
import json
import os
import re
import time
from pathlib import Path

import pytest

from conftest import (BUILD, anon_huge_kib, build_fixture, fixture_daemon, put, report, snapshot,
                      wait_for, host_only, any_mode)

MIB = 1 << 20
PAGE = 4096
SPLIT = "sys/kernel/debug/split_huge_pages"
DROPIN = "/etc/default/grub.d/taod-zones.cfg"
PID = 4242  # the fixture's task: a directory under proc/, not a process

# (zone, present pages, free pages, order): NoSplit 1 GiB of order 4, NoMerge
# 2 GiB of order 9, carved from the top of Normal as the kernel does.
ZONES = [("DMA", 4095, 3840, 0), ("DMA32", 520000, 200000, 0),
         ("Normal", 3400000, 2000000, 0), ("Movable", 0, 0, 0),
         ("NoSplit", 262144, 131072, 4), ("NoMerge", 524288, 262144, 9)]
MEMORY = sum(z[1] for z in ZONES) * PAGE
# Free blocks by order 0..10: NoSplit none below its order, NoMerge only order 9.
BUDDY = {"DMA": "1 1 1 0 2 1 1 0 1 1 3", "DMA32": "8 7 6 5 4 3 2 1 1 1 40",
         "Normal": "90 80 70 60 50 40 30 20 10 5 900",
         "NoSplit": "0 0 0 0 2048 1024 512 256 128 64 0",
         "NoMerge": "0 0 0 0 0 0 0 0 0 512 0"}
VMSTAT = {"nr_free_pages": 2593056, "pgalloc_nosplit": 5120, "pgalloc_nomerge": 2048,
          "allocstall_nosplit": 0, "allocstall_nomerge": 3, "pgskip_nosplit": 11,
          "pgskip_nomerge": 7, "thp_split_page": 40, "thp_underused_split_page": 0,
          "thp_shatter_page": 7, "thp_shatter_page_failed": 1,
          "thp_shatter_page_discarded": 2}
CMDLINE = "BOOT_IMAGE=/vmlinuz-6.6.0-tao root=/dev/vda1 ro nosplit=1G,4 nomerge=2G,9\n"

# cgroup -> (anon, anon_thp): no memory.thp_zones, no memory.thp_shatter.
CGROUPS = {"/guaranteed/db": (1024 * MIB, 256 * MIB), "/x": (64 * MIB, 32 * MIB),
           "/taod.service": (16 * MIB, 0)}
# Task PID in /x maps 8 MiB of PMD-mapped THPs: four 2 MiB chunks.
SMAPS = ("7f0000000000-7f0000800000 rw-p 00000000 00:00 0 \n"
         "Rss:                8192 kB\nAnonymous:          8192 kB\n"
         "AnonHugePages:      8192 kB\nTHPeligible:    1\nVmFlags: rd wr mr mw me ac hg\n")


def buddyinfo(free):
    """/proc/buddyinfo of @free: zone -> its free blocks by order."""
    return "".join(f"Node 0, zone {z:>8} {b}\n" for z, b in free.items())


def writes(d, root):
    """Every file taod wrote (its debug log), as paths under the fixture."""
    out = []
    for path in re.findall(r"write (\S+): ", d.logtext()):
        out.append(os.path.relpath(path, root) if path.startswith(str(root)) else path)
    return out


def assert_profile_files_only(d, root, profile, extra=()):
    """No write went to a file the boot-zone profile lacks."""
    bad = [w for w in writes(d, root) if w not in profile and w not in extra]
    assert not bad, f"taod wrote files the boot-zone kernel does not have: {bad}"


@pytest.fixture
def boot_root(tmp_path):
    root = tmp_path / "root"
    zoneinfo = "".join(f"Node 0, zone {name:>8}\n  pages free     {free}\n"
                       f"        present  {present}\n        managed  {present}\n"
                       f"        order    {order}\n"
                       for name, present, free, order in ZONES)
    # Memory blocks: none offline that may join a policy zone.
    blocks = [(n, "online", zone) for n, zone in enumerate(["DMA32", "Normal", "Normal", "Normal"])]
    build_fixture(root, zoneinfo, "".join(f"{k} {v}\n" for k, v in VMSTAT.items()), 128 * MIB,
                  blocks, {cg: {"memory.stat": f"anon {anon}\nanon_thp {thp_bytes}\n",
                                "cgroup.procs": f"{PID}\n" if cg == "/x" else ""}
                           for cg, (anon, thp_bytes) in CGROUPS.items()})
    put(root, "proc/buddyinfo", buddyinfo(BUDDY))
    put(root, "proc/cmdline", CMDLINE)
    put(root, "etc/default/grub", 'GRUB_CMDLINE_LINUX=""\n')  # Debian's; grub.d/ not yet made
    put(root, "proc/sys/vm/compact_memory", "")
    put(root, "proc/sys/vm/percpu_pagelist_high_fraction", "0\n")
    put(root, f"proc/{PID}/cgroup", "0::/x\n")
    put(root, f"proc/{PID}/smaps", SMAPS)
    put(root, SPLIT, "")
    thp = "sys/kernel/mm/transparent_hugepage"
    put(root, f"{thp}/hpage_pmd_size", "2097152\n")
    # Order mix: 64 KiB THPs are a fifth of the allocations, 2 MiB the rest.
    put(root, f"{thp}/hugepages-64kB/stats/anon_fault_alloc", "2000\n")
    put(root, f"{thp}/hugepages-2048kB/stats/anon_fault_alloc", "8000\n")
    return root


def split_env(root, mix):
    """taod's environment with the fixture's debugfs split preloaded."""
    return dict(os.environ, LD_PRELOAD=str(BUILD / "tao_boot_split.so"),
                TAO_FIXTURE_SPLIT=str(root / SPLIT), TAO_FIXTURE_VMSTAT=str(root / "proc/vmstat"),
                TAO_FIXTURE_MIX=mix,
                # A sanitized taod: the preloaded library comes before its runtime.
                ASAN_OPTIONS="verify_asan_link_order=0:" + os.environ.get("ASAN_OPTIONS", ""))


def boot_daemon(daemon_factory, tmp_path, root, enforce="mode = enforce", mix="s", pressure="",
                **conf):
    extra = "".join(f"{k} = {v}\n" for k, v in conf.items())
    return fixture_daemon(
        daemon_factory, tmp_path, root, enforce + "\n" + extra,
        "[policy jobs]\nmatch = /x\nladder = warn:1 restrict:2 shatter:4\ndry_run = no\n"
        "[history]\nevery = 1\n" + pressure,
        env=split_env(root, mix))


@host_only
def test_status_probes_each_feature_on_its_file(daemon_factory, tmp_path, boot_root):
    profile = set(snapshot(boot_root))
    d = boot_daemon(daemon_factory, tmp_path, boot_root)
    k = d.ctl("status")["kernel"]
    assert k["kind"] == "tao" and "NoSplit and NoMerge" in k["why"], k
    feats = {f["name"]: f for f in k["features"]}
    assert {n: f["present"] for n, f in feats.items()} == {
        "boot_zones": True, "hotplug_zones": False, "memcg_thp_zones": False,
        "memcg_thp_shatter": False, "hvo_counter": False}, feats
    assert "memory.thp_zones absent" in feats["memcg_thp_zones"]["why"]
    assert "no offline block lists NoSplit or NoMerge" in feats["hotplug_zones"]["why"]
    assert "no thp_hvo_page" in feats["hvo_counter"]["why"]
    levers = {l["action"]: l["how"] for l in k["levers"]}
    assert levers["restrict"].startswith("unsupported") and "split path" in levers["shatter"]
    assert "sized at boot" in levers["resize-zones"], levers

    rc, out, err = d.ctl_rc("status")
    assert rc == 0, err
    assert re.search(r"memcg_thp_zones +no +\S*memory.thp_zones absent", out), out
    assert re.search(r"restrict +unsupported", out), out
    assert "NoSplit 1.0 GiB, NoMerge 2.0 GiB (sized at boot: taoctl zones)" in out, out
    assert "hvo:         not counted by this kernel" in out, out
    d.wait_ticks(3)  # a few ticks of observing, judging and zone demand
    assert_profile_files_only(d, boot_root, profile)


@host_only
def test_restrict_and_grant_unsupported_ladder_moves_on(daemon_factory, tmp_path, boot_root):
    profile = set(snapshot(boot_root))
    d = boot_daemon(daemon_factory, tmp_path, boot_root)
    for kind in ("restrict", "grant"):
        rec = d.act(kind, "--cgroup", "/x")
        assert rec["result"] == "unsupported", rec
        assert f"{kind} unsupported" in rec["detail"] and "memory.thp_zones" in rec["detail"]
    audit = [json.loads(l) for l in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [a["result"] for a in audit] == ["unsupported", "unsupported"], audit
    jobs = next(p for p in d.ctl("policy")["policies"] if p["name"] == "jobs")
    assert "restrict unsupported" in jobs["ladder_note"] and "strikes shatter" in jobs["ladder_note"]
    rc, out, _ = d.ctl_rc("policy")
    assert "(restrict unsupported (" in out, out
    assert_profile_files_only(d, boot_root, profile)


@any_mode
@pytest.mark.parametrize("mix,compacted", [("s", False), ("sp", True)])
def test_shatter_goes_through_the_split_path(daemon_factory, tmp_path, boot_root, mix, compacted):
    profile = set(snapshot(boot_root))
    # Compaction follows a shatter only under contiguity pressure (issue 25):
    # a free-block watermark above the fixture's puts it there.
    d = boot_daemon(daemon_factory, tmp_path, boot_root, mix=mix, compact_after_shatter="yes",
              pressure="[pressure]\nfree_pmd_blocks_some = 1000000000\n")
    d.wait_ticks(1)
    rec = d.act("shatter", "--cgroup", "/x", "--bytes", str(8 * MIB))
    assert rec["result"] == "done", rec
    assert (boot_root / SPLIT).read_text() == "4242,0x7f0000000000,0x7f0000800000"
    want = {"s": (4, 0, 0, 0), "sp": (2, 0, 0, 2)}[mix]
    s = rec["shatter"]
    assert (s["shattered"], s["failed"], s["discarded"], s["split"]) == want, rec
    assert f"shattered {want[0]}, failed 0, discarded 0 pages, split {want[3]} (vmstat)" in rec["detail"]
    # Compaction only where something was split into small pieces.
    wrote = writes(d, boot_root)
    assert SPLIT in wrote, wrote  # the write log is what the profile check reads
    assert ("proc/sys/vm/compact_memory" in wrote) == compacted, wrote
    if not compacted:
        assert "no compaction: every THP shattered" in rec["detail"], rec
    audit = json.loads((tmp_path / "audit.jsonl").read_text().splitlines()[-1])
    assert audit["shatter"] == s
    metrics = d.ctl_rc("metrics")[1]
    assert f'taod_shatter_pages_total{{result="shattered"}} {7 + want[0]}' in metrics, metrics
    assert_profile_files_only(d, boot_root, profile)


def report_as(tmp_path, fmt):
    return report(tmp_path / "history.db", "--format", fmt)


@host_only
def test_report_shows_zones_and_shatter_counts(daemon_factory, tmp_path, boot_root):
    """History and `taoctl report` in every format: the zones' order, the
    shatter counters' change over the window, HVO not counted, and what
    the cgroup's shatter did to its THPs."""
    d = boot_daemon(daemon_factory, tmp_path, boot_root, mix="sfdp")
    d.wait_ticks(2)  # a batch before the shatter: the window's base
    rec = d.act("shatter", "--cgroup", "/x", "--bytes", str(8 * MIB))
    assert rec["shatter"] == {"shattered": 1, "failed": 1, "discarded": 1, "split": 1}, rec
    d.wait_ticks(2)

    rep = json.loads(report_as(tmp_path, "json"))
    tao = rep["machine"]["tao"]
    counters = {c["stat"]: (c["change"], c["value"]) for c in tao["counters"]}
    assert counters["thp_shatter_page"] == (1, 8), counters
    assert counters["thp_shatter_page_failed"] == (1, 2), counters
    assert counters["thp_shatter_page_discarded"] == (1, 3), counters
    assert counters["pgalloc_nosplit"] == (0, 5120) and "thp_hvo_page" not in counters
    assert tao["hvo"] is None
    orders = {z["zone"]: z["order"] for z in rep["machine"]["zones"]}
    assert orders["NoSplit"] == 4 and orders["NoMerge"] == 9, orders
    x = next(c for c in rep["cgroups"] if c["path"] == "/x")
    assert x["actions"][-1]["shatter"] == rec["shatter"], x["actions"]
    assert x["shatter"] == dict(rec["shatter"], actions=1), x

    table = report_as(tmp_path, "table")
    assert re.search(r"tao +thp_shatter_page +\+1 \(now 8\)", table), table
    assert "NoSplit  order 4, managed 262144 pages" in table, table
    assert "hvo     not counted by this kernel" in table, table
    assert "  /x  1 shatter(s): shattered 1, failed 1, discarded 1 pages, split 1" in table, table
    rows = list(csv.DictReader(io.StringIO(report_as(tmp_path, "csv"))))
    x = next(r for r in rows if r["cgroup"] == "/x")
    assert [x[k] for k in ("thp_shattered", "thp_shatter_failed", "thp_shatter_discarded",
                           "thp_shatter_split")] == ["1", "1", "1", "1"], rows
    html = report_as(tmp_path, "html")
    assert "<tr><td>thp_shatter_page</td><td>+1</td><td>8</td></tr>" in html, html
    assert '<svg class="shatter"' in html and 'data-result="failed"' in html
    assert "1 shatter(s) the kernel counted: 1 THPs shattered, 1 failed, 1 discarded" in html


@host_only
def test_zones_recommends_what_the_kernel_accepts(daemon_factory, tmp_path, boot_root):
    profile = set(snapshot(boot_root))
    d = boot_daemon(daemon_factory, tmp_path, boot_root)
    z = d.ctl("zones")
    assert z["sizing"] == "boot", z
    use = {u["name"]: u for u in z["zones"]}
    assert use["NoSplit"]["order"] == 4 and use["NoMerge"]["order"] == 9
    assert use["NoMerge"]["present_bytes"] == 2 << 30 and use["NoMerge"]["allocstall"] == 3
    assert z["boot_nosplit"]["bytes"] == 1 << 30 and z["boot_nomerge"]["order"] == 9
    rec = z["recommendation"]
    assert rec["accepted"], rec
    ns, nm = rec["nosplit"], rec["nomerge"]
    # The kernel's rules: orders 2..pageblock_order, nomerge's above nosplit's,
    # sizes rounded to MAX_ORDER_NR_PAGES (4 MiB) and within memory.
    assert 2 <= ns["order"] < nm["order"] <= z["pageblock_order"] == 9
    assert ns["order"] == 4 and "order 4 has 20% of THP allocations" in ns["why"], ns
    for p in (ns, nm):
        assert p["bytes"] % (4 * MIB) == 0 and 0 < p["bytes"] <= MEMORY // 2
    # NoMerge stalled allocations: it grows by a quarter of what it has.
    assert nm["bytes"] >= (2 << 30) * 5 // 4 and "under pressure" in nm["why"], nm
    assert rec["cmdline"] == (f"nosplit={ns['bytes'] // MIB}M,4 "
                              f"nomerge={nm['bytes'] // MIB}M,9")
    rc, out, err = d.ctl_rc("zones")
    assert rc == 0, err
    assert f"recommended: {rec['cmdline']}" in out and "NoSplit  order 4" in out, out
    assert_profile_files_only(d, boot_root, profile)


def dropin_text(params):
    return ("# Written by taod (taoctl zones --apply): TAO policy zone sizes for the\n"
            "# next boot. Run update-grub to put them on the kernel command line.\n"
            f'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX {params}"\n')


@host_only
def test_zones_apply_writes_exactly_the_dropin(daemon_factory, tmp_path, boot_root):
    profile = set(snapshot(boot_root))
    d = boot_daemon(daemon_factory, tmp_path, boot_root)
    dropin = boot_root / DROPIN.lstrip("/")
    cmdline = d.ctl("zones")["recommendation"]["cmdline"]

    rec = d.ctl("zones", "--apply", "--dry-run")
    assert rec["result"] == "dry-run" and cmdline in rec["detail"], rec
    assert not dropin.exists()
    before = snapshot(boot_root)
    rc, out, err = d.ctl_rc("zones", "--apply")
    assert rc == 0, err
    assert "run update-grub" in out, out
    assert dropin.read_text() == dropin_text(cmdline)
    after = snapshot(boot_root)
    assert {k for k in after if after.get(k) != before.get(k)} == {DROPIN.lstrip("/")}

    # The operator's values, refused where the kernel would drop the zones.
    for args, why in [(["--nosplit", "1G,9", "--nomerge", "1G,9"], "must exceed nosplit order"),
                      (["--nomerge", "1G,10"], "above pageblock_order 9"),
                      (["--nosplit", "64G,4"], "above memory"),
                      (["--nosplit", "1G,1"], "outside 2..10"),
                      # Never written as another value: 1K is not 0M, order 2^32 + 4 is not 4.
                      (["--nosplit", "1K,4"], "of whole MiB"),
                      (["--nosplit", "512M,4294967300"], "of whole MiB")]:
        rc, out, err = d.ctl_rc("zones", "--apply", *args)
        assert rc != 0 and why in out, (args, out, err)
    assert dropin.read_text() == dropin_text(cmdline)
    rec = d.ctl("zones", "--apply", "--nosplit", "512M,3", "--nomerge", "25%,9")
    assert rec["result"] == "done", rec
    assert dropin.read_text() == dropin_text(f"nosplit=512M,3 nomerge={MEMORY // 4 // MIB}M,9")
    audit = [json.loads(l) for l in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [a["result"] for a in audit] == ["dry-run", "done"] + ["failed"] * 6 + ["done"]
    assert all(a["action"] == "resize-zones" for a in audit)
    assert_profile_files_only(d, boot_root, profile, extra={DROPIN.lstrip("/")})


@host_only
def test_zones_apply_is_dry_in_observe_mode(daemon_factory, tmp_path, boot_root):
    d = boot_daemon(daemon_factory, tmp_path, boot_root, enforce="mode = observe")
    rec = d.ctl("zones", "--apply")
    assert rec["result"] == "dry-run", rec
    assert not (boot_root / DROPIN.lstrip("/")).exists()


# The kernel files that make a kernel the boot-zone profile, as [kernel] keys.
PROFILE_FILES = {"zoneinfo": "proc/zoneinfo", "buddyinfo": "proc/buddyinfo",
                 "vmstat": "proc/vmstat", "cmdline": "proc/cmdline",
                 "split_huge_pages": SPLIT, "memory_blocks": "sys/devices/system/memory",
                 "compact_memory": "proc/sys/vm/compact_memory",
                 "percpu_pagelist_high_fraction": "proc/sys/vm/percpu_pagelist_high_fraction"}


def start_on_machine(daemon_factory, tmp_path, root, base_rel):
    """taod on the real root, cgroups, tasks and BPF, but with the boot-zone
    kernel's own files from the fixture: its zones pick the TAO backend,
    and its split path is the preloaded debugfs stand-in."""
    kernel = "".join(f"{k} = {root / v}\n" for k, v in PROFILE_FILES.items())
    return daemon_factory(f"""[kernel]
{kernel}[enforce]
mode = enforce
actions_per_minute = 60
shatter_bytes_per_minute = 1G
audit_log = {tmp_path}/audit.jsonl
[history]
every = 1
[policy default]
window = 30s
[policy tests]
match = {base_rel}/taodtest-*
window = 2s
min_allocs = 8
max_split_ratio = 0.25
escalate_after = 1
cooldown = 1s
ladder = restrict:1 shatter:2
dry_run = no
""", env=split_env(root, "ssfd"))


@any_mode
def test_decide_shatters_a_real_abuser_through_the_split_path(daemon_factory, cgroups, tmp_path,
                                                              boot_root):
    """Done-when of issue 16, end to end: a real tenant that splits its THPs
    is judged from BPF events and struck; the restrict rung gives way to
    shatter, which goes through the split path (the fixture's debugfs) and
    whose record carries the shattered/failed/discarded counts."""
    d = start_on_machine(daemon_factory, tmp_path, boot_root, cgroups.rel(cgroups.base))
    k = d.ctl("status")["kernel"]
    assert k["kind"] == "tao" and str(boot_root / "proc/zoneinfo") in k["why"], k
    a = cgroups.make("abuser")
    p = cgroups.workload(a, "fault", 8, "abuse", 40)
    rel = cgroups.rel(a)
    wait_for(lambda: anon_huge_kib(p.pid) >= 8 * 2048, what="THPs faulted")
    done = wait_for(lambda: [x for x in d.ctl("actions", "--cgroup", rel)
                             if x["action"] == "shatter" and x["result"] == "done"],
                    timeout=30, what="decide to shatter the abuser")
    rec = done[0]
    assert rec["pid"] == p.pid and rec["policy"] == "tests", rec
    # The restrict rung cannot work without memory.thp_zones: no record of it.
    assert not [x for x in d.ctl("actions", "--cgroup", rel) if x["action"] == "restrict"]
    asked = int(re.search(r"(\d+) THPs \(\d+ partly mapped\) asked", rec["detail"]).group(1))
    assert asked >= 1 and str(boot_root / SPLIT) in rec["detail"], rec
    # The stand-in answered THP by THP: shattered, shattered, failed, discarded, ...
    s = rec["shatter"]
    assert s["shattered"] + s["failed"] + s["discarded"] == asked and s["split"] == 0, rec
    assert s["shattered"] >= s["failed"] >= s["discarded"], rec
    assert f"shattered {s['shattered']}, failed {s['failed']}" in rec["detail"], rec
    written = (boot_root / SPLIT).read_text()
    assert re.fullmatch(rf"{p.pid},0x[0-9a-f]+,0x[0-9a-f]+", written), written
    audit = [json.loads(l) for l in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert any(x["action"] == "shatter" and x.get("shatter") == s for x in audit), audit
    # The history keeps the counts with the record, for `taoctl report`.
    row = wait_for(lambda: next((c for c in json.loads(report_as(tmp_path, "json"))["cgroups"]
                                 if c["path"] == rel and c["actions"]), None),
                   what="the shatter in the report")
    assert row["actions"][0]["shatter"] == s and row["shatter"]["actions"] >= 1, row
    # Every file taod wrote was the fixture's: none of the machine's kernel files.
    assert set(writes(d, boot_root)) == {SPLIT}, writes(d, boot_root)
