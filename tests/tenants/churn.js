// SPDX-License-Identifier: GPL-2.0
//
// A Node.js service's heap for the lab's V8 tenant (tests/vm/tenants).
//
//   node churn.js MIB SECONDS
//
// Keeps MIB of live values (arrays of small integers, 8 bytes an element
// in Node's V8, built without pointer compression: sizes log-uniform from 64 B to 256 KiB) in a
// Map and replaces 2% of them every 100 ms; at 40% of the run a random half
// is dropped, at 70% the map is filled again: the load
// tests/tenants/kvcache.c gives the C allocators. Arrays live in V8's own
// heap (typed arrays and strings would not: off-heap stores, ropes): up to
// 128 KiB in its paged spaces, larger ones in its large-object space.
// Prints one JSON line at the end; exit 2 for bad arguments.
'use strict';

const [mib, seconds] = process.argv.slice(2).map(Number);
if (!(mib > 0) || !(seconds > 0)) {
  console.error('usage: node churn.js MIB SECONDS');
  process.exit(2);
}

let seed = 1;
function rand(n) { // deterministic, as the other drivers' loads are
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}

function value() {
  const base = 64 << rand(12);
  const a = new Array((base + rand(base)) >> 3).fill(rand(1000));
  a[0] = a.length;
  return a;
}
const sizeOf = (v) => v.length << 3;

const target = mib << 20, cache = new Map();
let live = 0;
while (live < target) {
  const v = value();
  cache.set(cache.size, v);
  live += sizeOf(v);
}
const keys = cache.size, start = Date.now(), span = seconds * 1000;
let dropped = false, refilled = false;

function put(k) {
  const old = cache.get(k), v = value();
  if (old !== undefined) live -= sizeOf(old);
  cache.set(k, v);
  live += sizeOf(v);
}

function step() {
  const t = Date.now() - start;
  if (t >= span) {
    console.log(JSON.stringify({tenant: 'node', live_mib: live >> 20, keys: cache.size,
      heap_total_mib: process.memoryUsage().heapTotal >> 20}));
    return;
  }
  if (!dropped && t > span * 0.4) {
    for (let k = 0; k < keys; k++)
      if (rand(2) && cache.has(k)) { live -= sizeOf(cache.get(k)); cache.delete(k); }
    dropped = true;
  }
  if (!refilled && t > span * 0.7) {
    for (let k = 0; k < keys && live < target; k++) if (!cache.has(k)) put(k);
    refilled = true;
  }
  for (let i = 0; i < keys / 50; i++) {
    const k = rand(keys);
    if (cache.has(k)) put(k);
  }
  setTimeout(step, 100);
}
step();
