<?php
// SPDX-License-Identifier: GPL-2.0
//
// A PHP worker's heap for the lab's PHP tenant (tests/vm/tenants).
//
//   php -d memory_limit=-1 churn.php MIB SECONDS
//
// Keeps MIB of live values (strings, sizes log-uniform from 64 B to
// 256 KiB) in an array and replaces 2% of them every 100 ms; at 40% of the
// run a random half is dropped, at 70% the array is filled again: the load
// tests/tenants/kvcache.c gives the C allocators, here on the Zend memory
// manager. Prints one JSON line at the end; exit 2 for bad arguments.

if ($argc != 3 || (int)$argv[1] <= 0 || (int)$argv[2] <= 0) {
    fwrite(STDERR, "usage: php churn.php MIB SECONDS\n");
    exit(2);
}
$target = (int)$argv[1] << 20;
$seconds = (int)$argv[2];
mt_srand(1);

function value(): string
{
    $base = 64 << mt_rand(0, 11);
    return str_repeat('v', $base + mt_rand(0, $base - 1));
}

$cache = [];
$live = 0;
while ($live < $target) {
    $v = value();
    $cache[] = $v;
    $live += strlen($v);
}
$keys = count($cache);
$put = function (int $k) use (&$cache, &$live) {
    if (isset($cache[$k])) {
        $live -= strlen($cache[$k]);
    }
    $cache[$k] = value();
    $live += strlen($cache[$k]);
};

$start = hrtime(true);
$span = $seconds * 1e9;
$dropped = $refilled = false;
while (($t = hrtime(true) - $start) < $span) {
    if (!$dropped && $t > $span * 0.4) {
        for ($k = 0; $k < $keys; $k++) {
            if (mt_rand(0, 1) && isset($cache[$k])) {
                $live -= strlen($cache[$k]);
                unset($cache[$k]);
            }
        }
        $dropped = true;
    }
    if (!$refilled && $t > $span * 0.7) {
        for ($k = 0; $k < $keys && $live < $target; $k++) {
            if (!isset($cache[$k])) {
                $put($k);
            }
        }
        $refilled = true;
    }
    for ($i = 0; $i < intdiv($keys, 50); $i++) {
        $k = mt_rand(0, $keys - 1);
        if (isset($cache[$k])) {
            $put($k);
        }
    }
    usleep(100000);
}
echo json_encode(['tenant' => 'php', 'live_mib' => $live >> 20, 'keys' => count($cache),
    'zend_mib' => memory_get_usage(true) >> 20]), "\n";
