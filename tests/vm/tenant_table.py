"""The tenants of make vmtest-tenants: how each runs, what verdict it should
get and why, written before the runs (tests/vm/tenants runs them).

taod judges a tenant on wasted contiguity (docs/policies.md, "Policies"): waste =
THPs broken by splits that left them partly mapped / THPs it was given or
held at peak, over a 10 min half-life, or, when it says more, the THPs it
holds partly mapped now / all it holds now (issue 36); score = waste / max_split_ratio
(0.25 shipped): above 1 misuser, above 2 (half of what it got wasted)
abuser. The verdict is about what the tenant did to the machine's 2 MiB
blocks, not about intent: an allocator that strands most of the THPs it
is given does to its neighbours what a split bomb does, so it is expected
to be an abuser, and its owner's fix (the allocator's settings, or
turning THPs off for it) is what taod's explanation should name:
`allocator`, where given, is the allocator `explain` must name from the
splitting call's stack (the make fails on another).

What the make asserts (check() in tests/vm/tenants): a tenant expected good
is never classed misuser or worse and nothing beyond warn is decided
against it; a tenant expected abuser is classed worse than good at some
point, and one with `within` N is classed abuser within N windows (and the
polls' lag) of its first lasting waste: the first poll from which, for a
window, most of the THPs it holds are partly mapped (taod's gauge against
the kernel's anon_thp of its cgroup). A tenant expected misuser sits on a threshold by nature (a quarter
to a half of its THPs): its class is reported, not asserted.
"""
from pathlib import Path

LIB = "/usr/lib/x86_64-linux-gnu"
# The shipped policy's window: a tenant with `within` must be an abuser
# that many windows after its first lasting waste, plus the polls' lag.
WINDOW_S = 30
POLL_LAG_S = 10
BOMB_THPS = 128  # 256 MiB: the 512 THPs (1 GiB) do not fit beside the others
HOP_THPS = 32  # thp_workload's hop step faults this many per child cgroup

# Redis: SETs of SIZE bytes over KEYS random keys; at 40% of the run
# (counted from its start, however long the fill took) delete every other
# key of that key space and give the freed pages back (MEMORY PURGE); run
# on to the end.
REDIS = """
set -e
t0=$(date +%s)
S={work}/{name}.sock
redis-server --unixsocket $S --port 0 --save '' --appendonly no --disable-thp no \
  --dir {work} --logfile {work}/{name}-server.log &
for i in $(seq 100); do [ -S $S ] && break; sleep 0.5; done
redis-benchmark -s $S -q -t set -n {sets} -r {keys} -d {size} -P 16 >/dev/null
echo "filled at $(( $(date +%s) - t0 )) s"
redis-cli -s $S info memory | grep -E '^used_memory_human|^used_memory_rss_human' | tr -d '\\r'
left=$(( t0 + {drop_at} - $(date +%s) )); if [ $left -gt 0 ]; then sleep $left; fi
echo "deleting at $(( $(date +%s) - t0 )) s:"
redis-cli -s $S eval "local n=0 for i=0,tonumber(ARGV[1]),2 do n=n+redis.call('del',string.format('key:%012d',i)) end return n" 0 {keys}
redis-cli -s $S memory purge
redis-cli -s $S info memory | grep -E '^used_memory_human|^used_memory_rss_human' | tr -d '\\r'
left=$(( t0 + {seconds} - $(date +%s) )); if [ $left -gt 0 ]; then sleep $left; fi
redis-cli -s $S shutdown nosave || true
"""


def redis(name, sets, keys, size):
    """A Redis tenant's command: filled, half emptied at 40% of the run."""
    return lambda ctx: ["sh", "-c", REDIS.format(
        work=ctx.work, name=name, sets=sets, keys=keys, size=size,
        drop_at=int(ctx.seconds * 0.4), seconds=ctx.seconds)]


def kvcache(ctx):
    return [ctx.build / "tenants/kvcache", 128, ctx.seconds]


def kv_tenant(expect, allocator, why, within=None, **env):
    """A tenant running the cache server's heap (kvcache) with @env; @within:
    windows after its first lasting waste by which it must be an abuser."""
    t = dict(expect=expect, why=why, cmd=kvcache, env=env, allocator=allocator)
    if within:
        t["within"] = within
    return t


KV_THREADS = 4


def churn_script(mib, *argv):
    """A runtime's command running its script of tests/tenants (the last of
    @argv) under the cache's load: @mib MiB for the run's seconds."""
    *runtime, script = argv
    return lambda ctx: [*runtime, ctx.repo / "tests/tenants" / script, mib, ctx.seconds]


def kv_threads_tenant(expect, why, **env):
    """The cache server's heap split over KV_THREADS workers, each in its
    own glibc arena, each freeing its cache at the end (kvcache THREADS)."""
    return dict(expect=expect, why=why, env=env, allocator="glibc malloc",
                cmd=lambda ctx: [ctx.build / "tenants/kvcache", 96, ctx.seconds, KV_THREADS])


# name: expect (good, misuser, abuser), why, cmd (argv from a context with
# build, repo, work, seconds), env, thp (the guest's THP "enabled": always
# unless said; tenants that only advise run in a second guest per kernel
# with madvise), start (a child cgroup to start in: the hopper's tenant
# cgroup has children, and a cgroup with children cannot hold processes).
TENANTS = {
    "jemalloc-thp": dict(
        expect="abuser",
        why="MALLOC_CONF=thp:always: jemalloc 5.3 advises its extents for THPs, and its default "
            "decay (dirty pages purged over 10 s, muzzy at once) gives freed runs back with "
            "MADV_DONTNEED page by page. The cache replaces a tenth of its values a second and "
            "frees half at 40%: within a decay period every 2 MiB of the heap holds a freed "
            "run beside live values, so its purge splits the THP and leaves the rest mapped; "
            "khugepaged's re-collapses are given and split again. Most of what it gets is "
            "broken: waste over 0.5",
        cmd=kvcache,
        env={"LD_PRELOAD": f"{LIB}/libjemalloc.so.2", "MALLOC_CONF": "thp:always"},
        allocator="jemalloc"),
    "jemalloc": dict(
        expect="abuser",
        why="jemalloc's defaults (THP not asked for; enabled=always gives its extents THPs "
            "anyway) and default decay: the same page-sized purges inside 2 MiB blocks as "
            "jemalloc-thp. Who asked for the THPs does not change what the purges strand",
        cmd=kvcache,
        env={"LD_PRELOAD": f"{LIB}/libjemalloc.so.2"}, allocator="jemalloc"),
    "jemalloc-thp-madvise": dict(
        expect="abuser", thp="madvise",
        why="jemalloc-thp where THP enabled=madvise (Debian's default): only what jemalloc "
            "advises gets THPs, and its purges split them as under always",
        cmd=kvcache,
        env={"LD_PRELOAD": f"{LIB}/libjemalloc.so.2", "MALLOC_CONF": "thp:always"},
        allocator="jemalloc"),
    "tcmalloc": dict(
        expect="good",
        why="gperftools 2.10 (libtcmalloc.so.4) returns free spans with madvise, paced by "
            "TCMALLOC_RELEASE_RATE (1): a span goes back only after many times its size has "
            "been freed since the last release. Written first as misuser (freed spans inside "
            "THPs would split them); the first run measured it good on both kernels (42 and "
            "81 THPs, collapsed by khugepaged, 0 splits): at the default rate it gave back "
            "nothing in the run, so its THPs stayed whole",
        cmd=kvcache,
        env={"LD_PRELOAD": f"{LIB}/libtcmalloc.so.4"}, allocator="tcmalloc"),
    "mimalloc": kv_tenant(
        "abuser", "mimalloc",
        "mimalloc 2.0.9 (Debian's libmimalloc2.0, preloaded) under the cache's load: it "
        "decommits (MADV_DONTNEED) freed pages of its segments after a short delay, inside "
        "THPs that keep live values, and khugepaged's re-collapses are decommitted again: "
        "issue 26 measured 11% coverage with up to 65 THPs left partly mapped. Its splits "
        "come from libc's madvise called by libmimalloc: explain must name mimalloc, not "
        "glibc. Issue 36: most of its THPs are khugepaged's collapses and about 80% of what "
        "it holds stays partly mapped (13 against 2-4 whole), while its waste over its life "
        "(13 stranded of 55 faulted) sat just under the line: classed good for minutes, "
        "abuser only at its exit. Judged on what it holds, it must be an abuser within two "
        "windows of its first lasting waste (the first poll from which the kernel's anon_thp "
        "and taod's gauge show most of what it holds partly mapped for a window)",
        within=2, LD_PRELOAD=f"{LIB}/libmimalloc.so.2"),
    "mimalloc-nodecommit": kv_tenant(
        "good", "mimalloc",
        "the same mimalloc with MIMALLOC_ALLOW_DECOMMIT=0, explain's advice for it: freed "
        "pages stay committed for reuse, so its THPs stay whole (issue 26 measured 1% left "
        "partly mapped and 99% coverage)",
        LD_PRELOAD=f"{LIB}/libmimalloc.so.2", MIMALLOC_ALLOW_DECOMMIT="0"),
    "glibc-threads": kv_threads_tenant(
        "good",
        "glibc 2.36's defaults, 4 workers in per-thread arenas (96 MiB in all): a free that "
        "grows a heap's top past trim_threshold (128 KiB, raised as mmapped chunks are freed) "
        "trims it with MADV_DONTNEED from a cut inside a THP, which stays partly mapped until "
        "khugepaged re-collapses it or the next trim frees it. Written first as misuser "
        "(issue 26 measured 77% of such THPs left partly mapped under one load, at most 3 "
        "under another); the first run on 6.12 measured it good, and rightly: one THP cut "
        "per trim, re-collapsed within seconds (waste 0.06, 0.7 THPs partly mapped on "
        "average, 4 at most, of 53 held). At the end each worker frees its cache newest "
        "first and exits (the shutdown of issue 26 item 3): no class may come of it"),
    "glibc-threads-trim": kv_threads_tenant(
        "good",
        "the same workers with GLIBC_TUNABLES=glibc.malloc.trim_threshold=268435456, explain's "
        "advice for glibc: no heap is trimmed, so nothing is cut inside a THP, during the run "
        "or at the teardown (issue 26 measured 3% partly mapped, from 77%)",
        GLIBC_TUNABLES="glibc.malloc.trim_threshold=268435456"),
    "glibc-threads-hugetlb": kv_threads_tenant(
        "good",
        "the same workers with GLIBC_TUNABLES=glibc.malloc.hugetlb=1, the advice explain gave "
        "before issue 26: it madvises the main heap and mmapped chunks and aligns the main "
        "heap's trims, but not the per-thread heaps' (issue 26 measured 67% left partly "
        "mapped). Written first as misuser with glibc-threads; measured good with it (waste "
        "0.04, 0.5 partly mapped on average, 2 at most): the tunable changes nothing here",
        GLIBC_TUNABLES="glibc.malloc.hugetlb=1"),
    "glibc-hugetlb": dict(
        expect="good", thp="madvise",
        why="GLIBC_TUNABLES=glibc.malloc.hugetlb=1 advises the heap for THPs and grows and "
            "trims its top in THP units; freed chunks stay in the arena for reuse and whole "
            "mmapped chunks are unmapped whole: few splits. Run where THP enabled=madvise: "
            "under always the tunable does nothing (the heap grows in small sbrk steps)",
        cmd=kvcache,
        env={"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, allocator="glibc malloc"),
    "go-gogc25": dict(
        expect="abuser",
        why="Go 1.19 with GOGC=25 (tests/tenants/gochurn: 96 MiB live, a fifth replaced a "
            "second, a random half dropped at 40% of the run and refilled at 70%): the heap "
            "arenas get THPs; once half is dropped the heap goal falls, and the scavenger "
            "returns the free pages beyond 110% of it in 64 KiB chunks (MADV_DONTNEED, "
            "MADV_NOHUGEPAGE around them). Values over 32 KiB, most of the bytes, have spans "
            "of their own spread over the heap, so the returned chunks sit inside nearly "
            "every THP: most broken. (Written after a first run with a steady load and no "
            "drop, which measured waste 0.15, good: with nothing to give back the scavenger "
            "splits little)",
        cmd=lambda ctx: [ctx.build / "tenants/gochurn", 96, ctx.seconds],
        env={"GOGC": "25"}, allocator="go"),
    "jvm-thp": dict(
        expect="good",
        why="java -XX:+UseTransparentHugePages -Xms192m -Xmx192m (OpenJDK 17, G1): the heap "
            "is committed once and advised; G1 collects inside it and never uncommits a fixed "
            "heap, so its THPs stay whole; the drop of half its values at 40% of the run (the "
            "load tests/tenants/kvcache.c gives) only leaves more of the heap free",
        cmd=lambda ctx: ["java", "-XX:+UseTransparentHugePages", "-Xms192m", "-Xmx192m",
                         "-cp", ctx.build / "tenants", "Churn", 96, ctx.seconds],
        env={}),
    "redis": dict(
        expect="good",
        why="redis-server with disable-thp no (its own default turns THP off for itself), "
            "200k SETs of 400 B over 150k keys, then every other key deleted and MEMORY "
            "PURGE. Written first as abuser; the first run measured it good (4 splits of 70 "
            "THPs, 300k SETs over 200k keys), and rightly: a 400 B value lives in a jemalloc slab of 64 such values, "
            "and a random half deleted empties no slab, so no page is freed and nothing is "
            "split. Its THPs stay whole, under-used: no waste of contiguity",
        cmd=redis("redis", 200000, 150000, 400), env={}),
    "redis-blobs": dict(
        expect="abuser",
        why="the same Redis as a cache of 20 KB values (5000 SETs over 4000 keys, about 60 "
            "MiB), every other key deleted and MEMORY PURGE: each value is a jemalloc extent "
            "of its own, so the deletes free 20 KiB runs spread over the whole heap, and the "
            "purge gives them back with MADV_DONTNEED inside nearly every THP, which stays "
            "partly mapped by the surviving values: most of its THPs broken. (Before taod "
            "counted what is left partly mapped on the TAO kernel's 6.6, a split was waste "
            "there until the THP went, and its waste sat at the line: misuser, then good)",
        cmd=redis("redis-blobs", 5000, 4000, 20000), env={}),
    "numpy": dict(
        expect="good",
        why="tests/tenants/numpy_tenant.py: a rolling set of 16 MiB float64 arrays, numpy "
            "advises them for THPs; a freed array is unmapped whole or its heap chunk reused "
            "whole by the next one of the same size: THPs given and returned whole",
        cmd=lambda ctx: ["/usr/bin/python3", ctx.repo / "tests/tenants/numpy_tenant.py", 96,
                         ctx.seconds],
        env={"PYTHONDONTWRITEBYTECODE": "1"}),
    # Four runtimes and servers issue 26 item 7 added, none tested here
    # before, each under the cache's load of kvcache.c (fill, 2% replaced
    # every 100 ms, a random half dropped at 40% of the run, refilled at 70%).
    "node": dict(
        expect="good",
        why="Node.js 20 (V8 11, built without pointer compression; tests/tenants/churn.js: 48 "
            "MiB of arrays in V8's own heap): V8 maps each 256 KiB page of its old space and "
            "each large object at an address of its own choosing, so they sit in mappings too "
            "small to hold a THP and are given back (munmap, MADV_DONTNEED of whole pages, "
            "seen with strace) without splitting one. Written first with its THPs in the new "
            "space; the first run (6.12, 7.3) measured none at all, there either: coverage 0%, "
            "nothing given, nothing split",
        cmd=churn_script(48, "node", "churn.js"), env={}),
    "ruby": dict(
        expect="good",
        why="Ruby 3.1 (MRI; tests/tenants/churn.rb: 48 MiB of Strings): each String's bytes "
            "come from glibc's malloc in the main arena (one thread: the brk heap, its top "
            "trimmed 700 times a minute, seen with strace, and chunks over the mmap threshold "
            "mapped alone), its object from MRI's 16 KiB heap pages. Written first as good "
            "with the main heap's THPs cut one a trim; the first run (6.12, 7.3) measured no "
            "THP at all: a heap grown in 132 KiB steps faults no 2 MiB range whole, and "
            "khugepaged collapsed none of it in the run",
        cmd=churn_script(48, "ruby", "churn.rb"), env={}),
    "php": dict(
        expect="good",
        why="PHP 8.2's Zend memory manager (tests/tenants/churn.php: 64 MiB of strings): it "
            "takes memory in 2 MiB chunks aligned to 2 MiB, carves 4 KiB pages from them for "
            "itself, and gives a chunk back only when it is empty, whole (munmap of 2 MiB): "
            "a THP given is a THP returned whole (first run: 78 and 81 THPs given, none "
            "split, 96% coverage)",
        cmd=churn_script(64, "php", "-d", "memory_limit=-1", "churn.php"), env={}),
    "memcached": dict(
        expect="good",
        why="memcached 1.6 (tests/tenants/memcached_load.py: 64 MiB of values over its UNIX "
            "socket, -m four times that): it takes 1 MiB slab pages from malloc as it fills "
            "and never gives one back; deletes free slab chunks for its own reuse. Memory "
            "only grows to its peak (first run, 7.3: 94 THPs given, 16 split, waste 0.01)",
        cmd=lambda ctx: ["/usr/bin/python3", ctx.repo / "tests/tenants/memcached_load.py",
                         ctx.work, 64, ctx.seconds],
        env={"PYTHONDONTWRITEBYTECODE": "1"}),
    "realloc-grow": dict(
        expect="good",
        why="tests/tenants/grow_tenant.py: CPython bytearrays grown by 64 KiB appends to 48 MiB "
            "each, the last two kept. glibc serves the realloc of a chunk past its mmap "
            "threshold with mremap(MREMAP_MAYMOVE), and the kernel moves the mapping, THPs "
            "and all, wherever room is (strace: 125 mremaps for three buffers, some of them "
            "moves to an address of another alignment): each move splits the PMDs, but every "
            "page stays mapped and no THP is left partly mapped (issue 26 item 1: taod once "
            "classed such a grower abuser on 6.12). A buffer dropped is unmapped whole",
        cmd=lambda ctx: ["/usr/bin/python3", ctx.repo / "tests/tenants/grow_tenant.py", 48,
                         ctx.seconds],
        env={"PYTHONDONTWRITEBYTECODE": "1"}),
    "split-bomb": dict(
        expect="abuser",
        why=f"thp_workload: faults {BOMB_THPS} THPs, waits one window (31 s), then unmaps one "
            "4 KiB page of each and keeps the rest mapped: every THP it got is broken, a "
            "window after it got them",
        cmd=lambda ctx: [ctx.build / "thp_workload", "fault", BOMB_THPS, "hold", 31, "partial",
                         BOMB_THPS, "hold", ctx.seconds],
        env={}, allocator="the program itself"),
    "hopper": dict(
        expect="good",
        why=f"thp_workload hop: every 5 s moves itself into a new child cgroup of its tenant "
            f"cgroup, faults {HOP_THPS} THPs, splits each and unmaps them, and removes the "
            "child it left, in cgroups that live shorter than a window. Written first as "
            "abuser (it splits all it gets); corrected with issue 26, which judges what "
            "lasts: it unmaps each THP it split within the round, so the 2 MiB block goes "
            "back whole and nothing stays partly mapped (measured: 1152 splits, 0.5 THPs "
            "partly mapped on average, kernel coverage 99%). A hopper that keeps what it "
            "splits is caught (tests/integration/test_verdicts.py, the hopper test). On the "
            "TAO kernel's 6.6, before taod counted the THPs left partly mapped there from the "
            "deferred split queue, every split was waste until the THP went: abuser at 61 s",
        cmd=lambda ctx: [ctx.build / "thp_workload", "hop", ctx.seconds // 5],
        env={}, start="hop0", allocator="the program itself"),
}


def thp_mode(name):
    return TENANTS[name].get("thp", "always")


class Context:
    """Where the tenants' programs are and how long they run."""

    def __init__(self, repo, build, work, seconds):
        self.repo, self.build, self.work, self.seconds = Path(repo), Path(build), Path(work), \
            seconds
