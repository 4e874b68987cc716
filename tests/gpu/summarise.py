#!/usr/bin/env python3
"""One line per JSON report in a folder: score, exit verdict, bandwidth, analysis."""
import json
import os
import sys

folder = sys.argv[1]
rows = []
for name in sorted(os.listdir(folder)):
    if not name.endswith(".json"):
        continue
    with open(os.path.join(folder, name)) as f:
        r = json.load(f)
    m = r.get("metrics", {})
    bw = ("%5.0f GB/s %5.1f%% of copy (%4.0f)" % (m["gbps"], m["percent_of_copy"], m["copy_gbps"])
          if "gbps" in m else "-")
    failed = [t["name"] for t in r["tests"] if not t["passed"] and t.get("status") != "not measured"]
    rows.append("%-34s %6.1f/%-5.1f %-40s %s" % (name[:-5], r["score"], r["max_score"], bw,
                                                 ("failed: " + ", ".join(failed[:3])) if failed else "all passed"))
print("%-34s %-12s %-40s %s" % ("grade", "score", "bandwidth (copy GB/s)", "verdict"))
print("\n".join(rows))
