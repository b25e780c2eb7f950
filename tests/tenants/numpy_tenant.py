#!/usr/bin/python3
"""A numerical job for the lab's numpy tenant (tests/vm/tenants).

    numpy_tenant.py MIB SECONDS

Keeps a rolling set of 16 MiB float64 arrays (about MIB of them), and every
step computes a new one from two others (elementwise arithmetic, a 256 x 256
matrix product of a slice, a sum), dropping the oldest: the way array code
makes and frees big temporaries. Prints one JSON line at the end.
"""
import json
import sys
import time

import numpy as np

ELEMS = 2 << 20  # 16 MiB of float64


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: numpy_tenant.py MIB SECONDS")
    keep = max(2, int(sys.argv[1]) // 16)
    end = time.monotonic() + int(sys.argv[2])
    rng = np.random.default_rng(1)
    arrays = [rng.random(ELEMS) for _ in range(keep)]
    steps, total = 0, 0.0
    while time.monotonic() < end:
        a, b = arrays[steps % keep], arrays[(steps + 1) % keep]
        c = np.sqrt(a * b + 1.0)
        m = c[:65536].reshape(256, 256)
        total += float((m @ m).sum())
        arrays.pop(0)
        arrays.append(c)
        steps += 1
        time.sleep(0.2)
    print(json.dumps({"tenant": "numpy", "steps": steps, "arrays": keep,
                      "checksum": round(total, 3)}))


if __name__ == "__main__":
    main()
