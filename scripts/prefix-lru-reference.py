#!/usr/bin/env python3
"""Prefix-cache hit rate of a Mooncake trace under an LRU cache of a given size: the reference for `dlsim serve`'s
prefix caching (docs/serving.md, "Prefix caching").

Reads JSON lines {"input_length", "hash_ids", ...} (hash ids of 512-token chunks, prefix-aware) in file order.
Each request finds the longest run of its leading chunks in the cache (only full chunks before its last prompt
token count, as in vLLM V1), then its chunks join the cache (its first chunk the most recently used); the least
recently used chunks go when the cache holds more than CAPACITY chunks. Prints the share of prompt tokens found.

    scripts/prefix-lru-reference.py conversation_trace.jsonl 912 [REQUESTS]

No concurrency, no KV held by running requests: an upper bound for one replica whose cache is CAPACITY chunks
of free KV, and the exact hit rate of an unbounded cache with a capacity of 0 meaning none.
"""
import json
import sys
from collections import OrderedDict

CHUNK = 512


def hit_rate(path, capacity, limit=None):
    lru = OrderedDict()
    total = hit = 0
    with open(path) as f:
        for i, line in enumerate(f):
            if limit is not None and i >= limit:
                break
            if not line.strip():
                continue
            req = json.loads(line)
            ids, length = req.get("hash_ids", []), req["input_length"]
            total += length
            usable = min(len(ids), (length - 1) // CHUNK)
            k = 0
            while k < usable and ids[k] in lru:
                k += 1
            hit += k * CHUNK
            for h in reversed(ids[:usable]):
                lru[h] = True
                lru.move_to_end(h)
            while capacity > 0 and len(lru) > capacity:
                lru.popitem(last=False)
    return hit / total if total else 0.0


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    limit = int(sys.argv[3]) if len(sys.argv) == 4 else None
    print(f"{hit_rate(sys.argv[1], int(sys.argv[2]), limit):.4f}")


if __name__ == "__main__":
    main()
