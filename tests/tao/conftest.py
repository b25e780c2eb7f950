"""The TAO kernel suite (make vmtest-tao): taod whole, with the shipped
config plus the lab's policies, in a guest of a kernel with the TAO code.
The integration suite's helpers (cgroups, a daemon on its own socket) are
reused; only the config and the kernel readers are this suite's."""
import importlib.util
import json
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("integration_conftest",
                                               REPO / "tests/integration/conftest.py")
ic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ic)
cgroups = ic.cgroups  # the fixture, re-exported for this suite's tests
BUILD, wait_for, cgroup_row, finish = ic.BUILD, ic.wait_for, ic.cgroup_row, ic.finish
vmstat, taoctl, audit = ic.vmstat, ic.taoctl, ic.audit

PAGE = 4096
MIB = 1 << 20
SHIPPED = (REPO / "config/taod.conf").read_text()


def lab_conf(tmp_path, extra=""):
    """The shipped config, then what the lab must change: its own socket,
    history, audit log and drop-in path (the guest's root is read-only
    outside tmpfs), history every tick, enforcing."""
    return SHIPPED + (
        f"[control]\nsocket = {tmp_path}/taod.sock\n"
        f"[history]\npath = {tmp_path}/history.db\nevery = 1\n"
        f"[enforce]\nmode = enforce\naudit_log = {tmp_path}/audit.jsonl\n"
        f"zone_cmdline_dropin = {tmp_path}/grub.d/taod-zones.cfg\n" + extra)


@pytest.fixture
def taod(tmp_path):
    started = []

    def start(extra=""):
        d = ic.Daemon(tmp_path, lab_conf(tmp_path, extra))
        started.append(d)
        return d

    yield start
    for d in started:
        d.stop()


def zoneinfo():
    """Node 0's zones: name -> {present, spanned, managed, order, free}."""
    zones, cur = {}, None
    for line in Path("/proc/zoneinfo").read_text().splitlines():
        m = re.match(r"Node (\d+), zone +(\S+)", line)
        if m:
            cur = zones.setdefault(m.group(2), {}) if m.group(1) == "0" else None
            continue
        f = line.split()
        if cur is not None and len(f) >= 2 and f[0] in ("present", "spanned", "managed", "order"):
            cur[f[0]] = int(f[1])
        elif cur is not None and f[:2] == ["pages", "free"]:
            cur["free"] = int(f[2])
    return zones


def boot_zones():
    """nosplit=/nomerge= of /proc/cmdline: {"NoSplit": ("256M", 4), ...}."""
    out = {}
    for w in Path("/proc/cmdline").read_text().split():
        k, _, v = w.partition("=")
        if k in ("nosplit", "nomerge") and "," in v:
            size, order = v.split(",")
            out["NoSplit" if k == "nosplit" else "NoMerge"] = (size, int(order))
    return out


def total_bytes():
    return sum(z.get("present", 0) for z in zoneinfo().values()) * PAGE


def asked_bytes(size):
    """What a nosplit=/nomerge= size asks for: bytes, or a share of memory."""
    if size.endswith("%"):
        return total_bytes() * int(size[:-1]) // 100
    units = {"K": 10, "M": 20, "G": 30}
    return int(size[:-1]) << units[size[-1]] if size[-1] in units else int(size)


def console(text):
    """A line vmtest-tao reads from the guest's console, past pytest's capture."""
    with open("/dev/console", "w") as f:
        f.write(text + "\n")


def memstat(cg):
    return {k: int(v) for k, v in (l.split() for l in (cg / "memory.stat").read_text().splitlines())}


EXPECT_ZONES = json.loads(os.environ.get("TAO_EXPECT_ZONES") or "null")
