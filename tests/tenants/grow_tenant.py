#!/usr/bin/python3
"""A growing buffer for the lab's realloc tenant (tests/vm/tenants).

    grow_tenant.py MIB SECONDS

Builds byte buffers the way a log, a serializer or a growing array does:
appends of 64 KiB until the buffer holds MIB MiB, then keeps it and starts
the next, holding the last two. CPython grows a bytearray by realloc, which
glibc serves for a chunk past its mmap threshold with mremap(MREMAP_MAYMOVE):
the kernel moves the mapping, THPs and all, wherever room is. Prints one
JSON line at the end.
"""
import json
import sys
import time

STEP = b"x" * (64 << 10)


def grow(mib):
    buf = bytearray()
    while len(buf) < mib << 20:
        buf += STEP
    return buf


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: grow_tenant.py MIB SECONDS")
    mib, end = int(sys.argv[1]), time.monotonic() + int(sys.argv[2])
    kept, built = [], 0
    while time.monotonic() < end:
        kept = kept[-1:] + [grow(mib)]
        built += 1
        time.sleep(2)
    print(json.dumps({"tenant": "grow", "buffers": built, "held_mib": sum(map(len, kept)) >> 20}))


if __name__ == "__main__":
    main()
