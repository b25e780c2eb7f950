#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A memcached server under a cache's load, for the lab's memcached tenant
(tests/vm/tenants).

    memcached_load.py WORKDIR MIB SECONDS

Starts memcached (-m four times MIB, a UNIX socket in WORKDIR, no TCP) and keeps
MIB of values in it (sizes log-uniform from 64 B to 256 KiB) through its
text protocol: 2% of them replaced every 100 ms; at 40% of the run a random
half is deleted, at 70% they are set again (the load tests/tenants/kvcache.c
gives the C allocators). Prints one JSON line (memcached's own stats) at the
end; exit 2 for bad arguments, 1 when the server fails.
"""
import json
import random
import socket
import subprocess
import sys
import time
from pathlib import Path


def value(rng):
    base = 64 << rng.randrange(12)
    return b"v" * (base + rng.randrange(base))


class Client:
    def __init__(self, path):
        """Connected to @path once memcached listens there (its socket file
        is made a moment before it listens: a loaded guest saw refusals)."""
        for _ in range(200):
            self.s = socket.socket(socket.AF_UNIX)
            try:
                self.s.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.s.close()
                time.sleep(0.1)
        else:
            raise SystemExit(f"memcached never listened on {path}")
        self.f = self.s.makefile("rb")

    def send(self, commands):
        """Sends @commands (lines, with their data blocks) 16 at a time and
        reads a reply to each: a round trip per 16, not per command (a loaded
        guest made one per command too slow for the run)."""
        for i in range(0, len(commands), 16):
            chunk = commands[i:i + 16]
            self.s.sendall(b"".join(chunk))
            for _ in chunk:
                reply = self.f.readline()
                if reply.startswith((b"ERROR", b"CLIENT_ERROR", b"SERVER_ERROR")):
                    raise SystemExit(f"memcached: {reply.decode().strip()}")

    @staticmethod
    def set(k, v):
        return b"set k%d 0 0 %d\r\n%s\r\n" % (k, len(v), v)

    @staticmethod
    def delete(k):
        return b"delete k%d\r\n" % k

    def stats(self):
        self.s.sendall(b"stats\r\n")
        out = {}
        for line in iter(self.f.readline, b"END\r\n"):
            _, key, val = line.decode().split()
            out[key] = val
        return out


def main():
    if len(sys.argv) != 4 or not sys.argv[2].isdigit() or not sys.argv[3].isdigit():
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    work, target, seconds = Path(sys.argv[1]), int(sys.argv[2]) << 20, int(sys.argv[3])
    sock = work / "memcached.sock"
    server = subprocess.Popen(["memcached", "-m", str(4 * target >> 20), "-s", str(sock),
                               "-u", "root", "-t", "1"])
    c, rng = Client(sock), random.Random(1)
    sizes, live = {}, 0
    while live < target:
        batch = []
        for _ in range(64):
            v = value(rng)
            batch.append(c.set(len(sizes), v))
            sizes[len(sizes)] = len(v)
            live += len(v)
        c.send(batch)
    keys, start, dropped, refilled = len(sizes), time.monotonic(), False, False
    while (t := time.monotonic() - start) < seconds:
        batch = []
        if not dropped and t > seconds * 0.4:
            for k in [k for k in sizes if rng.randrange(2)]:
                batch.append(c.delete(k))
                live -= sizes.pop(k)
            dropped = True
        if not refilled and t > seconds * 0.7:
            for k in range(keys):
                if k not in sizes and live < target:
                    v = value(rng)
                    batch.append(c.set(k, v))
                    sizes[k], live = len(v), live + len(v)
            refilled = True
        for k in rng.sample(range(keys), keys // 50):
            if k in sizes:
                v = value(rng)
                batch.append(c.set(k, v))
                live += len(v) - sizes[k]
                sizes[k] = len(v)
        c.send(batch)
        time.sleep(0.1)
    st = c.stats()
    server.terminate()
    server.wait()
    print(json.dumps({"tenant": "memcached", "live_mib": live >> 20, "keys": len(sizes),
                      "server_bytes_mib": int(st["bytes"]) >> 20,
                      "evictions": int(st["evictions"])}))
    return 0 if server.returncode in (0, -15) else 1


if __name__ == "__main__":
    sys.exit(main())
