"""A tenant that holds its own mmap lock cannot hold taod (issue 37 item 1).

The tenant (tests/workload/mmap_lock_holder.c) keeps a thread mprotect()ing
the page tables of a large zero-page mapping beside 30,000 small mappings:
every read of its smaps waits for the lock, and reading it whole takes
seconds (measured first, below: the test's premise). taod shatters it and
explains it meanwhile. Expected, written before the run:
- pings answer within 100 ms throughout, and ticks keep their interval;
- the shatter ends within its time (10 s) and the kill's grace (5 s),
  `failed` with the reason: its time ran out inside the read of the
  tenant's smaps;
- explain answers within its own wait (15 s), off the loop.
Without the offload the shatter held the loop for the whole smaps read
(pings and ticks stopped)."""
import json
import socket
import subprocess
import threading
import time
from pathlib import Path

from conftest import BUILD, TAOCTL, TIME_SCALE, host_only, wait_for

pytestmark = host_only

HOLDER = BUILD / "mmap_lock_holder"
VMAS, ZERO_MIB, THPS = 30000, 8192, 16
PING_MAX_S = 0.1


def ping_ms(sock):
    t0 = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(sock)
        s.sendall(b'{"command": "ping"}\n')
        reply = s.recv(4096)
    assert b'"ok":true' in reply.replace(b" ", b""), reply
    return (time.monotonic() - t0) * 1000


class Pinger(threading.Thread):
    """Pings every 50 ms until stopped; keeps the slowest answer."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock, self.worst, self.n, self.halt = sock, 0.0, 0, threading.Event()

    def run(self):
        while not self.halt.is_set():
            self.worst = max(self.worst, ping_ms(self.sock))
            self.n += 1
            time.sleep(0.05)


def smaps_read_s(pid):
    t0 = time.monotonic()
    Path(f"/proc/{pid}/smaps").read_bytes()
    return time.monotonic() - t0


def held_while(d, cmd, timeout):
    """Runs taoctl @cmd; returns its reply, seconds taken, the worst ping
    meanwhile and the ticks taken per second."""
    pinger = Pinger(d.socket)
    ticks0, t0 = d.ctl("status")["ticks"], time.monotonic()
    pinger.start()
    p = subprocess.run([str(TAOCTL), "--socket", d.socket, "--json", *cmd], capture_output=True,
                       text=True, timeout=timeout)
    took = time.monotonic() - t0
    time.sleep(max(0.0, 1.5 - took))  # ticks counted over 1.5 s at least
    pinger.halt.set()
    pinger.join()
    ticks = d.ctl("status")["ticks"] - ticks0
    return p, took, pinger, ticks / max(took, 1.5)


def test_a_tenant_holding_its_mmap_lock_holds_no_tick_nor_ping(daemon_factory, cgroups,
                                                                tmp_path):
    d = daemon_factory(f"[enforce]\nmode = enforce\nbackend = stock\n"
                       f"audit_log = {tmp_path}/audit.jsonl\n")
    cg = cgroups.make("lockholder")
    p = cgroups.spawn(cg, HOLDER, VMAS, ZERO_MIB, THPS)
    line = p.stdout.readline()
    assert line.startswith("ready"), (line, p.stderr.read() if p.poll() is not None else "")
    # The premise: the tenant's smaps takes seconds to read.
    assert smaps_read_s(p.pid) > 3, "the tenant does not hold its lock long enough to test"
    rel = cgroups.rel(cg)
    wait_for(lambda: any(t["pid"] == p.pid for t in d.ctl("top-tasks")), what="its splits")

    out, took, pinger, tick_rate = held_while(
        d, ["act", "shatter", "--cgroup", rel], timeout=60 * TIME_SCALE)
    assert pinger.n > 20 and pinger.worst < PING_MAX_S * 1000 * TIME_SCALE, (pinger.n,
                                                                              pinger.worst)
    # Ticks every 200 ms: at least half of them were taken while it worked.
    assert tick_rate > 2.5, tick_rate
    assert out.stdout, out.stderr
    rec = json.loads(out.stdout)
    assert rec["result"] == "failed", rec
    assert "time ran out inside the read" in rec["detail"], rec
    assert took < (10 + 5 + 3) * TIME_SCALE, took
    # The audit has the record, with the time it took off the loop.
    logged = [json.loads(x) for x in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert any(r["action"] == "shatter" and r["result"] == "failed" and r["took_ms"] >= 9000
               for r in logged), logged

    out, took, pinger, tick_rate = held_while(d, ["explain", str(p.pid)],
                                              timeout=30 * TIME_SCALE)
    assert out.returncode in (0, 1) and out.stdout, out.stderr
    assert took < 15 * TIME_SCALE, took
    assert pinger.worst < PING_MAX_S * 1000 * TIME_SCALE, pinger.worst
    assert tick_rate > 2.5, tick_rate
