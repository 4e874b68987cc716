#!/usr/bin/env python3
"""Compares two occupancy tables (common/occupancy_table.h): the kit's stored
one against a GPU's live API, on the configurations both hold.

    python3 tests/gpu/compare_occupancy.py STORED.txt LIVE.txt
"""
import sys


def load(path):
    rows, device = {}, ""
    with open(path) as f:
        header = False
        for line in f:
            line = line.strip()
            if line.startswith("device "):
                device = line[7:]
            elif line == "threads,regs,shared,blocks,warps,limits":
                header = True
            elif header and line and not line.startswith("#"):
                t, r, s, b, w, lim = line.split(",")
                rows[(int(t), int(r), int(s))] = (int(b), int(w), lim)
    return device, rows


stored_dev, stored = load(sys.argv[1])
live_dev, live = load(sys.argv[2])
print("stored:", sys.argv[1])
print("live:  ", sys.argv[2])
if stored_dev != live_dev:
    print("device limits differ:\n  stored", stored_dev, "\n  live  ", live_dev)
common = sorted(set(stored) & set(live))
blocks_differ = [k for k in common if stored[k][:2] != live[k][:2]]
limits_differ = [k for k in common if live[k][2] != "?" and stored[k][2] != live[k][2]]
print(f"{len(common)} configurations in both; blocks or warps differ on {len(blocks_differ)}, "
      f"limiting factors on {len(limits_differ)}")
for k in (blocks_differ + limits_differ)[:10]:
    print("  %d threads x %d registers, %d B shared: stored %s, live %s" % (k + (stored[k], live[k])))
sys.exit(1 if blocks_differ or limits_differ or not common else 0)
