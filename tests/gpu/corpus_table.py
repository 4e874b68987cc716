#!/usr/bin/env python3
"""The accuracy table of a folder of graded files: each file's grade on a GPU
against its grade in the emulator, for files graded both ways under one name
(NAME.json in each folder, as `./grade labN --submission F --json DIR/NAME.json`
writes them).

    corpus_table.py GPU_DIR EMU_DIR [SOURCES.tsv] > TABLE.md

Per file: the measured % of copy and the prediction beside it (both from the GPU
grade's metrics), the error (predicted minus measured, points of copy), the
emulator's own prediction, both scores and their difference. Then the median and
largest |error|, how many files are within 10 points of copy, and how many scores
are within 5 points. SOURCES.tsv, if given, is a TSV with a header whose first
column names the file (NAME, or a path ending in NAME.cu); its other columns are
shown as the file's source.
"""
import glob
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def sources(path):
    if not path:
        return {}
    with open(path) as f:
        lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    out = {}
    for row in lines[1:]:
        name = os.path.basename(row[0])
        out[name[:-3] if name.endswith(".cu") else name] = " ".join(c for c in row[1:] if c)
    return out


def number(v):
    return v if isinstance(v, (int, float)) else None


def fmt(v, sign=False):
    if v is None:
        return "-"
    return ("%+.1f" if sign else "%.1f") % v


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    gpu_dir, emu_dir = sys.argv[1:3]
    where = sources(sys.argv[3] if len(sys.argv) == 4 else None)
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(gpu_dir, "*.json")))
    rows, errors, score_diffs, devices = [], [], [], set()
    for name in names:
        g, e = load(os.path.join(gpu_dir, name + ".json")), load(os.path.join(emu_dir, name + ".json"))
        gm, em = g.get("metrics") or {}, e.get("metrics") or {}
        if isinstance(g.get("device"), str):
            devices.add(g["device"])
        meas, pred = number(gm.get("percent_of_copy")), number(gm.get("predicted_percent_of_copy"))
        err = None if meas is None or pred is None else pred - meas
        gs, es = number(g.get("score")), number(e.get("score"))
        sd = None if gs is None or es is None else es - gs
        if err is not None:
            errors.append(abs(err))
        if sd is not None:
            score_diffs.append(abs(sd))
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, where.get(name, "-"), g.get("lab") or e.get("lab") or "-", fmt(meas), fmt(pred),
            fmt(err, True), fmt(number(em.get("predicted_percent_of_copy"))), fmt(es), fmt(gs),
            fmt(sd, True)))
    print("GPU: %s\n" % (", ".join(sorted(devices)) or "?"))
    print("| file | source | lab | measured % of copy | predicted | error | emulator's prediction "
          "| emulator score | GPU score | score difference |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(rows))
    print()
    if errors:
        print("%d files with a measurement and a prediction: median |error| %.1f points of copy, "
              "largest %.1f, %d within 10." % (len(errors), statistics.median(errors), max(errors),
                                                sum(e <= 10 for e in errors)))
    if score_diffs:
        print("%d files graded both ways: %d scores within 5 points, largest difference %.1f." % (
            len(score_diffs), sum(d <= 5 for d in score_diffs), max(score_diffs)))


if __name__ == "__main__":
    main()
