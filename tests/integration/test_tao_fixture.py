"""The whole daemon against a TAO kernel made of files: `[daemon] root`
points taod at a fixture tree (zoneinfo with NoSplit/NoMerge, vmstat, a
cgroup2 mount with the TAO memcg files, memory blocks), while BPF still
loads against the running kernel. Checks the exact writes of zone sizing
and of the memcg levers, that observe and dry-run write nothing, and the
TAO figures of `taoctl status`."""
import os
import socket
import time
from pathlib import Path

import pytest

from conftest import (FIXTURE_BLOCKS, FIXTURE_CG, build_fixture, fixture_daemon, put, snapshot,
                      wait_for, host_only)

pytestmark = host_only

MIB = 1 << 20
BLOCK = 128 * MIB
CG, BLOCKS = FIXTURE_CG, FIXTURE_BLOCKS

ZONEINFO = """Node 0, zone      DMA
  pages free     3840
        present  4095
Node 0, zone    DMA32
  pages free     200000
Node 0, zone   Normal
  pages free     2000000
        present  4000000
Node 0, zone  Movable
  pages free     100000
Node 0, zone  NoSplit
  pages free     60000
        present  65536
        order    9
Node 0, zone  NoMerge
  pages free     30000
        present  32768
        order    9
"""

VMSTAT = ("nr_free_pages 2393840\npgalloc_nosplit 5120\npgalloc_nomerge 2048\n"
          "thp_shatter_page 7\nthp_shatter_page_failed 1\nthp_shatter_page_discarded 3\n"
          "thp_hvo_page 10\n")

# (block, state, valid_zones): Movable sits at the top, as on a real machine.
LAYOUT = ([(0, "online", "DMA32")] + [(i, "online", "Normal") for i in (1, 2, 3)]
          + [(i, "online", "Movable") for i in range(4, 12)]
          + [(12, "online", "NoSplit"), (13, "online", "NoSplit"),
             (14, "offline", "Movable NoSplit NoMerge"), (15, "online", "NoMerge"),
             (16, "offline", "Normal")])

# cgroup -> (anon, anon_thp); guaranteed ones match /guaranteed/* at 50 %.
CGROUPS = {
    "/guaranteed/db": (1024 * MIB, 256 * MIB),
    "/guaranteed/web": (512 * MIB, 128 * MIB),
    "/guaranteed/web/child": (128 * MIB, 0),  # inside web's hierarchical figure
    "/batch": (2048 * MIB, 1024 * MIB),
    "/x": (64 * MIB, 32 * MIB),
    "/system.slice/keep": (64 * MIB, 0),
    "/taod.service": (16 * MIB, 0),
}
DEMAND = (1024 + 512) * MIB // 2  # 768 MiB
HEADROOM = 256 * MIB
TARGET_BLOCKS = (DEMAND + HEADROOM) // BLOCK  # 8: two there, six to move


@pytest.fixture
def fixture_root(tmp_path):
    root = tmp_path / "root"
    build_fixture(root, ZONEINFO, VMSTAT, BLOCK, LAYOUT, {
        cg: {"memory.stat": f"anon {anon}\nanon_thp {thp}\nthp_split_page 0\n",
             "memory.thp_zones": "nosplit nomerge\n", "memory.thp_shatter": "", "cgroup.procs": ""}
        for cg, (anon, thp) in CGROUPS.items()})
    return root


def tao_daemon(daemon_factory, tmp_path, root, enforce, every="60s", **kw):
    return fixture_daemon(daemon_factory, tmp_path, root,
                          f"{enforce}\nzone_resize_every = {every}", "dry_run = no\n", **kw)


def resizes(d):
    return [a for a in d.ctl("actions") if a["action"] == "resize-zones"]


def state(root, n):
    return (root / f"{BLOCKS}/memory{n}/state").read_text()


def play_kernel(root, moved):
    """What a TAO kernel would show after the writes: the blocks in NoSplit."""
    for n in moved:
        put(root, f"{BLOCKS}/memory{n}/state", "online\n")
        put(root, f"{BLOCKS}/memory{n}/valid_zones", "NoSplit\n")


def test_zone_sizing_from_guarantees(daemon_factory, tmp_path, fixture_root):
    root = fixture_root
    before = snapshot(root)
    d = tao_daemon(daemon_factory, tmp_path, root, "mode = enforce\nbackend = tao", every="3s")
    st = d.ctl("status")
    assert st["kernel"]["kind"] == "tao", st["kernel"]
    assert "NoSplit" in st["kernel"]["why"]
    assert st["backend"] == "tao" and st["act"]["backend"] == "tao"
    assert st["root"] == str(root)

    rec = wait_for(lambda: resizes(d), what="a resize-zones request")
    assert len(rec) == 1, rec
    rec = rec[0]
    assert rec["result"] == "done", rec
    assert rec["asked_bytes"] == DEMAND
    assert "THP demand 768 MiB of 2 guaranteed cgroups" in rec["evidence"], rec
    assert "NoSplit 256 MiB, target 1024 MiB" in rec["evidence"], rec
    assert "NoSplit 2 -> 8 blocks" in rec["detail"], rec
    rc, out, err = d.ctl_rc("actions")
    assert rc == 0, err
    line = next(l for l in out.splitlines() if "resize-zones" in l)
    assert "(policy zones)" in line and " done " in line and "THP demand 768 MiB" in line, out

    # The offline block that may join NoSplit first, then Movable from the top.
    moved = [14, 11, 10, 9, 8, 7]
    assert len(moved) == TARGET_BLOCKS - 2
    after = snapshot(root)
    for n in moved:
        assert state(root, n) == "online_nosplit", n
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {f"{BLOCKS}/memory{n}/state" for n in moved}, changed
    assert set(after) == set(before)

    # Once the kernel shows the zone at its target, nothing more is asked.
    play_kernel(root, moved)
    time.sleep(4)
    d.wait_ticks(2)
    assert len(resizes(d)) == 1
    st = d.ctl("status")
    zones = st["decide"]["zones"]
    assert zones == {"demand_bytes": DEMAND, "guaranteed_cgroups": 2,
                     "target_bytes": TARGET_BLOCKS * BLOCK, "resize_requests": 1}, zones
    assert st["act"]["nosplit_bytes"] == TARGET_BLOCKS * BLOCK
    assert all(state(root, n) == "online\n" for n in moved)


def test_status_shows_tao_figures(daemon_factory, tmp_path, fixture_root):
    d = tao_daemon(daemon_factory, tmp_path, fixture_root, "mode = observe")
    act = d.ctl("status")["act"]
    assert act["nosplit_bytes"] == 2 * BLOCK
    assert act["nomerge_bytes"] == BLOCK
    assert act["block_bytes"] == BLOCK
    assert (act["pgalloc_nosplit"], act["pgalloc_nomerge"]) == (5120, 2048)
    assert (act["thp_shatter_page"], act["thp_shatter_page_failed"],
            act["thp_shatter_page_discarded"]) == (7, 1, 3)
    assert act["thp_hvo_page"] == 10
    assert act["hvo_saved_bytes"] == 10 * 28 * 1024
    rc, out, err = d.ctl_rc("status")
    assert rc == 0, err
    assert "NoSplit 256.0 MiB, NoMerge 128.0 MiB (blocks of 128.0 MiB)" in out, out
    assert "demand 768.0 MiB of 2 guaranteed cgroups" in out, out
    assert "pgalloc_nosplit 5120, pgalloc_nomerge 2048, thp_shatter_page 7" in out, out
    assert "10 THPs, 280.0 KiB of vmemmap saved" in out, out


def zones_file(root, cg):
    return (root / f"{CG}{cg}/memory.thp_zones").read_text()


def test_memcg_levers_write_exactly(daemon_factory, tmp_path, fixture_root):
    root = fixture_root
    d = tao_daemon(daemon_factory, tmp_path, root, "mode = enforce")
    assert d.ctl("status")["backend"] == "tao"  # auto picks tao on a TAO kernel

    rec = d.act("restrict", "--cgroup", "/x")
    assert rec["result"] == "done", rec
    assert zones_file(root, "/x") == "\n"  # the empty list, as `echo >` writes it
    rec = d.act("grant", "--cgroup", "/x")
    assert rec["result"] == "done", rec
    assert zones_file(root, "/x") == "nosplit nomerge"
    rec = d.act("shatter", "--cgroup", "/x", "--bytes", str(4 * MIB))
    assert rec["result"] == "done", rec
    assert (root / f"{CG}/x/memory.thp_shatter").read_text() == str(4 * MIB)

    before = snapshot(root)
    for cg, why in [("/system.slice/keep", "/system.slice/*"), ("/taod.service", "taod"),
                    ("/", "root")]:
        rec = d.act("shatter", "--cgroup", cg, "--bytes", str(4 * MIB))
        assert rec["result"] == "allowlisted", rec
        assert why in rec["detail"], rec
        rec = d.act("restrict", "--cgroup", cg)
        assert rec["result"] == "allowlisted", rec
    assert snapshot(root) == before


@pytest.mark.parametrize("enforce", ["mode = observe\nbackend = tao",
                                     "mode = enforce\nbackend = dry-run"])
def test_observe_and_dry_run_write_nothing(daemon_factory, tmp_path, fixture_root, enforce):
    root = fixture_root
    before = snapshot(root)
    d = tao_daemon(daemon_factory, tmp_path, root, enforce)
    rec = wait_for(lambda: resizes(d), what="a resize-zones request")
    assert rec[0]["result"] == "dry-run", rec
    for args in (["restrict", "--cgroup", "/x"], ["shatter", "--cgroup", "/x", "--bytes", "4096"],
                 ["resize-zones", "--bytes", str(4096 * MIB)]):
        assert d.act(*args)["result"] == "dry-run"
    d.wait_ticks(3)
    assert snapshot(root) == before


def test_a_tick_that_fails_says_so_in_the_status_line(daemon_factory, tmp_path, fixture_root):
    """A tick that cannot walk the cgroup tree returns its error, and systemd's
    status line (sd_notify STATUS=) says the last tick was incomplete."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    notify.settimeout(0.5)
    env = dict(os.environ, NOTIFY_SOCKET=str(tmp_path / "notify.sock"))
    d = tao_daemon(daemon_factory, tmp_path, fixture_root, "mode = observe", env=env)
    mount = fixture_root / CG
    gone = mount.with_name("cgroup.gone")
    mount.rename(gone)
    (gone / "new").mkdir()  # inotify says the tree changed: the next tick walks it

    def incomplete():
        try:
            msg = notify.recv(4096).decode()
        except socket.timeout:
            return False
        return "STATUS=" in msg and "last tick incomplete: No such file or directory" in msg
    try:
        wait_for(incomplete, what="status line with the tick's error")
    finally:
        notify.close()
    assert "walking" in d.logtext()
