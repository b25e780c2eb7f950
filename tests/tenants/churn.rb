# SPDX-License-Identifier: GPL-2.0
#
# A Ruby service's heap for the lab's Ruby tenant (tests/vm/tenants).
#
#   ruby churn.rb MIB SECONDS
#
# Keeps MIB of live values (Strings, sizes log-uniform from 64 B to
# 256 KiB) in a Hash and replaces 2% of them every 100 ms; at 40% of the
# run a random half is dropped, at 70% the hash is filled again: the load
# tests/tenants/kvcache.c gives the C allocators. A String's object lives in
# MRI's own heap pages, its bytes in malloc's. Prints one JSON line at the
# end; exit 2 for bad arguments.
require 'json'

mib, seconds = ARGV.map { |a| Integer(a, exception: false) }
unless ARGV.size == 2 && mib&.positive? && seconds&.positive?
  warn 'usage: ruby churn.rb MIB SECONDS'
  exit 2
end

rng = Random.new(1)
value = lambda do
  base = 64 << rng.rand(12)
  'v' * (base + rng.rand(base))
end

target = mib << 20
cache = {}
live = 0
while live < target
  v = value.call
  cache[cache.size] = v
  live += v.bytesize
end
keys = cache.size
put = lambda do |k|
  old = cache[k]
  live -= old.bytesize if old
  cache[k] = value.call
  live += cache[k].bytesize
end

start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
dropped = refilled = false
loop do
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  break if t >= seconds
  if !dropped && t > seconds * 0.4
    keys.times { |k| live -= cache.delete(k).bytesize if rng.rand(2) == 1 && cache.key?(k) }
    dropped = true
  end
  if !refilled && t > seconds * 0.7
    keys.times { |k| put.call(k) if !cache.key?(k) && live < target }
    refilled = true
  end
  (keys / 50).times do
    k = rng.rand(keys)
    put.call(k) if cache.key?(k)
  end
  sleep 0.1
end
puts JSON.generate(tenant: 'ruby', live_mib: live >> 20, keys: cache.size,
                   heap_pages: GC.stat[:heap_allocated_pages])
