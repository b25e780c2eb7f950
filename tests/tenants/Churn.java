// SPDX-License-Identifier: GPL-2.0
//
// A JVM service's heap for the lab's JVM tenant (tests/vm/tenants), run with
// -XX:+UseTransparentHugePages.
//
//   java -cp DIR Churn MIB SECONDS
//
// Keeps MIB of live values (sizes log-uniform from 64 B to 256 KiB) in a
// map and replaces 2% of them every 100 ms, so the collector has steady
// garbage; at 40% of the run a random half is dropped, at 70% the map is
// filled again (the load tests/tenants/kvcache.c gives the C allocators).
// Prints one JSON line at the end; exit 2 for bad arguments.
import java.util.HashMap;
import java.util.Random;

public class Churn {
    static byte[] value(Random r) {
        int base = 64 << r.nextInt(12);
        byte[] b = new byte[base + r.nextInt(base)];
        for (int i = 0; i < b.length; i += 64) {
            b[i] = (byte) i;
        }
        return b;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 2) {
            System.err.println("usage: Churn MIB SECONDS");
            System.exit(2);
        }
        long target = Long.parseLong(args[0]) << 20;
        long start = System.nanoTime();
        long span = Long.parseLong(args[1]) * 1_000_000_000L;
        Random r = new Random(1);
        HashMap<Integer, byte[]> cache = new HashMap<>();
        long live = 0;
        while (live < target) {
            byte[] v = value(r);
            cache.put(cache.size(), v);
            live += v.length;
        }
        int keys = cache.size();
        boolean dropped = false, refilled = false;
        for (long t; (t = System.nanoTime() - start) < span; Thread.sleep(100)) {
            if (!dropped && t > span * 4 / 10) {
                for (int i = 0; i < keys; i++) {
                    if (r.nextBoolean() && cache.containsKey(i)) {
                        live -= cache.remove(i).length;
                    }
                }
                dropped = true;
            }
            if (!refilled && t > span * 7 / 10) {
                for (int i = 0; i < keys && live < target; i++) {
                    if (!cache.containsKey(i)) {
                        byte[] v = value(r);
                        cache.put(i, v);
                        live += v.length;
                    }
                }
                refilled = true;
            }
            for (int k = 0; k < keys / 50 + 1; k++) {
                int i = r.nextInt(keys);
                byte[] old = cache.get(i);
                if (old != null) {
                    byte[] v = value(r);
                    cache.put(i, v);
                    live += v.length - old.length;
                }
            }
        }
        Runtime rt = Runtime.getRuntime();
        System.out.printf("{\"tenant\": \"jvm\", \"live_mib\": %d, \"heap_total_mib\": %d}%n",
                live >> 20, rt.totalMemory() >> 20);
    }
}
