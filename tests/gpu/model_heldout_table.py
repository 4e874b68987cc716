#!/usr/bin/env python3
"""The held-out accuracy table (docs/results/model-heldout-<gpu>.md): measured
% of copy on a GPU (tests/gpu/model_heldout.sh's measured.tsv) against the
emulator's prediction (tests/gpu/model_heldout_predict.sh's predicted.tsv), the
training and the held-out sets apart.

    model_heldout_table.py MEASURED.tsv PREDICTED.tsv MACHINE.txt > TABLE.md
"""
import re
import statistics
import sys


def read_tsv(path):
    lines = [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
    head = lines[0]
    return [dict(zip(head, l)) for l in lines[1:]]


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    measured = {r["file"]: r for r in read_tsv(sys.argv[1])}
    predicted = {r["file"]: r for r in read_tsv(sys.argv[2])}
    gpu = "?"
    for line in open(sys.argv[3], errors="replace"):
        m = re.search(r"(NVIDIA [A-Za-z0-9 ]+?)\s{2,}", line)
        if m and "|" in line:
            gpu = m.group(1)
            break
    out = []
    for name, title in (("heldout", "Held-out set (never fitted on)"), ("training", "Training set")):
        rows, errors = [], []
        for f, m in sorted(measured.items()):
            if m["set"] != name:
                continue
            meas = number(m.get("measured_pct_of_copy"))
            p = predicted.get(f, {})
            pred = number(p.get("predicted_pct"))
            err = None if meas is None or pred is None else pred - meas
            if err is not None:
                errors.append(abs(err))
            fmt = lambda v: "-" if v is None else "%.1f" % v
            rows.append("| %s | %s | %s | %s | %s |" % (f, fmt(meas), fmt(pred),
                                                       "-" if err is None else "%+.1f" % err,
                                                       p.get("bound", "-")))
        out += ["## " + title, "", "| file | measured % of copy | predicted | error (points) | predicted bound |",
                "| --- | ---: | ---: | ---: | --- |"] + rows
        if errors:
            out += ["", "%d files with both figures: median |error| %.1f points of copy, largest %.1f, "
                    "%d within 10." % (len(errors), statistics.median(errors), max(errors),
                                       sum(e <= 10 for e in errors))]
        out.append("")
    print("GPU: %s\n" % gpu)
    print("\n".join(out))


if __name__ == "__main__":
    main()
