// SPDX-License-Identifier: GPL-2.0
//
// A JVM service's heap for the lab's JVM tenant (tests/vm/tenants), run with
// -XX:+UseTransparentHugePages.
//
//   java -cp DIR Churn MIB SECONDS
//
// Keeps MIB of live values (sizes log-uniform from 64 B to 256 KiB) in a
// map and replaces 2% of them every 100 ms, so the collector has steady
// garbage. Prints one JSON line at the end; exit 2 for bad arguments.
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
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        Random r = new Random(1);
        HashMap<Integer, byte[]> cache = new HashMap<>();
        long live = 0;
        while (live < target) {
            byte[] v = value(r);
            cache.put(cache.size(), v);
            live += v.length;
        }
        int keys = cache.size();
        while (System.nanoTime() < end) {
            for (int k = 0; k < keys / 50 + 1; k++) {
                int i = r.nextInt(keys);
                live -= cache.get(i).length;
                byte[] v = value(r);
                cache.put(i, v);
                live += v.length;
            }
            Thread.sleep(100);
        }
        Runtime rt = Runtime.getRuntime();
        System.out.printf("{\"tenant\": \"jvm\", \"live_mib\": %d, \"heap_total_mib\": %d}%n",
                live >> 20, rt.totalMemory() >> 20);
    }
}
