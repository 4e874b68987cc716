#!/usr/bin/env python3
"""Traces of model_physics.cu's partial-sector kernels (merge.store.* and
merge.load.*: one block of 8 warps, one element a thread), barrier-closed
load runs (tile.*: one-shot blocks, k words a thread) and runs on many rows
(rows.*: R-byte runs, k words a thread, loads and stores across or down),
written from their code as the emulator would record them, and a CASES file
pairing each with its measured % of copy from a model_physics table. The
tiled transposes (transpose.*) are reference points: not written.

    physics_traces.py PHYSICS_TABLE OUT_DIR [COPY_GBPS] > CASES

The table's percentages are of its own copy (copy.gbps: 256 MiB, below the
1 GiB copy of a GPU file's copy_gbps); given COPY_GBPS (the GPU file's), they
are restated as percentages of it, the reference model_eval predicts against.
"""
import json
import os
import sys

N = 2 ** 26


def side(l, far):
    """requests, sectors, lines, the block's distinct sectors, for the
    permuted side of one block: l consecutive floats a lane group, 32 / l rows."""
    rows = 32 // l
    sectors_per_row = max(1, l // 8)
    per_request = rows * sectors_per_row
    if l >= 8 or not far:
        block_new = 32		# the block's 8 warps fill whole sectors
    else:
        block_new = 8 * per_request	# each warp's sectors are its own, partial
    return 8, 8 * per_request, 8 * rows, block_new


def launch(l, far, load):
    req, sec, lines, new = side(l, far)
    dense = (8, 32, 8, 32)
    ld = (req, sec, lines, new) if load else dense
    st = dense if load else (req, sec, lines, new)
    return {"kernel": "merge", "grid": [N // 256, 1, 1], "block": [256, 1, 1], "dynamic_shared_bytes": 0,
            "traced_blocks": 1,
            "model": {"load_requests": ld[0], "load_sectors": ld[1], "load_lines": ld[2],
                      "load_block_sectors": ld[3], "store_requests": st[0], "store_sectors": st[1],
                      "store_lines": st[2], "store_bytes": 128 * st[0], "store_block_sectors": st[3],
                      "atomic_requests": 0, "atomic_sectors": 0, "atomic_lines": 0, "shared_requests": 0,
                      "shared_wavefronts": 0, "load_runs": 8, "intervals": 1, "static_shared_bytes": 0}}


def tile(threads, k, sync):
    warps = threads // 32
    return {"kernel": "tile", "grid": [N // (threads * k), 1, 1], "block": [threads, 1, 1],
            "dynamic_shared_bytes": 0, "traced_blocks": 1,
            "model": {"load_requests": warps * k, "load_sectors": 4 * warps * k, "load_lines": warps * k,
                      "load_block_sectors": 4 * warps * k, "store_requests": warps * k,
                      "store_sectors": 4 * warps * k, "store_lines": warps * k, "store_bytes": 128 * warps * k,
                      "store_block_sectors": 4 * warps * k, "atomic_requests": 0, "atomic_sectors": 0,
                      "atomic_lines": 0, "shared_requests": 2 * warps * k if sync else 0,
                      "shared_wavefronts": 2 * warps * k if sync else 0, "load_runs": warps,
                      "intervals": 2 if sync else 1, "static_shared_bytes": 4096 * k}}


def rows(threads, run_bytes, k, sync):
    """One block of rows.b<threads>.R<run_bytes>.k<k>[.sync]: each warp
    request covers 128 / R rows of R bytes (R < 128) or 128 bytes of one row,
    whole sectors either way; sync: the words pass through shared memory
    (conflict-free) with a barrier between. The order (across, down) is not
    in a block's trace."""
    warps = threads // 32
    req = warps * k
    lines = req * max(1, 128 // run_bytes)
    return {"kernel": "rows", "grid": [(N * 4) // (threads * k), 1, 1], "block": [threads, 1, 1],
            "dynamic_shared_bytes": 4 * k * threads if sync else 0, "traced_blocks": 1,
            "model": {"load_requests": req, "load_sectors": 4 * req, "load_lines": lines,
                      "load_block_sectors": 4 * req, "store_requests": req, "store_sectors": 4 * req,
                      "store_lines": lines, "store_bytes": 128 * req, "store_block_sectors": 4 * req,
                      "atomic_requests": 0, "atomic_sectors": 0, "atomic_lines": 0,
                      "shared_requests": 2 * req if sync else 0, "shared_wavefronts": 2 * req if sync else 0,
                      "load_runs": warps, "intervals": 2 if sync else 1, "static_shared_bytes": 0}}


ROW_SHAPES = ((256, 1, 0), (1024, 1, 0), (256, 2, 0), (256, 4, 0), (256, 8, 0), (256, 1, 1), (1024, 1, 1), (256, 4, 1))
ROW_ORDERS = ("across", "down")


def main():
    table = dict(l.strip().split("=", 1) for l in open(sys.argv[1]) if "=" in l)
    out = sys.argv[2]
    restate = float(table["copy.gbps"]) / float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    os.makedirs(out, exist_ok=True)
    for kind in ("store", "load"):
        for l in (1, 2, 4, 8, 16, 32):
            for far in (0, 1):
                key = "merge.%s.L%d.%s.pct" % (kind, l, "far" if far else "near")
                if key not in table:
                    continue
                path = os.path.join(out, "%s_L%d_%s.json" % (kind, l, "far" if far else "near"))
                json.dump({"launches": [launch(l, far, kind == "load")]}, open(path, "w"))
                print("%s %d %.2f" % (path, 8 * N, float(table[key]) * restate))
    for threads in (64, 128, 256, 512, 1024):
        for k in (1, 4):
            for sync in (0, 1):
                key = "tile.b%d.k%d.%s.pct" % (threads, k, "sync" if sync else "nosync")
                if key not in table:
                    continue
                path = os.path.join(out, "tile_b%d_k%d_%s.json" % (threads, k, "sync" if sync else "nosync"))
                json.dump({"launches": [tile(threads, k, sync)]}, open(path, "w"))
                print("%s %d %.2f" % (path, 8 * N, float(table[key]) * restate))
    for threads, k, sync in ROW_SHAPES:
        for run_bytes in (32, 64, 128, 256, 512):
            for ld in ROW_ORDERS:
                for st in ROW_ORDERS:
                    name = "b%d.R%d.k%d.ld_%s.st_%s%s" % (threads, run_bytes, k, ld, st, ".sync" if sync else "")
                    key = "rows.%s.pct" % name
                    if key not in table:
                        continue
                    path = os.path.join(out, "rows_%s.json" % name.replace(".", "_"))
                    json.dump({"launches": [rows(threads, run_bytes, k, sync)]}, open(path, "w"))
                    print("%s %d %.2f" % (path, 8 * N * 4, float(table[key]) * restate))


if __name__ == "__main__":
    main()
