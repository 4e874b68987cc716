#!/usr/bin/env python3
"""Traces of model_params.cu's stream and scatter kernels, written from their
code (every figure is exact for them), and a CASES file pairing each with its
measured % of copy from a model_params table.

    params_traces.py MODEL_PARAMS_TABLE OUT_DIR > CASES
"""
import json
import os
import sys

N = 2 ** 28
SMS = 132


def launch(grid, threads, requests, load_lines, load_new, store_sectors, store_lines, store_new, runs):
    return {"kernel": "k", "grid": [grid, 1, 1], "block": [threads, 1, 1], "dynamic_shared_bytes": 0,
            "traced_blocks": 1,
            "model": {"load_requests": requests, "load_sectors": 4 * load_lines, "load_lines": load_lines,
                      "load_block_sectors": load_new, "store_requests": requests,
                      "store_sectors": store_sectors, "store_lines": store_lines, "store_bytes": 128 * requests,
                      "store_block_sectors": store_new, "atomic_requests": 0, "atomic_sectors": 0,
                      "atomic_lines": 0, "shared_requests": 0, "shared_wavefronts": 0,
                      "load_runs": runs, "intervals": 1, "static_shared_bytes": 0}}


def main():
    table = dict(l.strip().split("=", 1) for l in open(sys.argv[1]) if "=" in l)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cases = []

    def add(name, trace, key):
        path = os.path.join(out, name + ".json")
        json.dump({"launches": [trace]}, open(path, "w"))
        cases.append("%s %d %s" % (path, 8 * N, table[key]))

    for w in (1, 2, 4, 8, 16, 32, 64):
        per_block = min(w, 8)
        grid = SMS * (w // per_block)
        req = N / (grid * 32)	# per block: every warp's share of the elements
        for k in (1, 2, 4, 8, 16):
            add("stream_w%d_k%d" % (w, k), launch(grid, per_block * 32, req, req, 4 * req, 4 * req, req,
                                                  4 * req, req / k), "stream.w%d_ilp%d_pct_of_copy" % (w, k))
    for s in (8, 16, 32):
        # One 256-thread block: 8 warps, one load and one store each; the block's
        # 256 elements fill whole sectors on both sides.
        add("store_s%d" % s, launch(N // 256, 256, 8, 8, 32, 8 * s, 8 * s, 32, 8),
            "scatter.store_s%d_pct_of_copy" % s)
        add("load_s%d" % s, launch(N // 256, 256, 8, 8 * s, 32, 32, 8, 32, 8), "scatter.load_s%d_pct_of_copy" % s)
    print("\n".join(cases))


if __name__ == "__main__":
    main()
