#!/usr/bin/env python3
"""Fits the model's fitted parameters (docs/model.md, "Calibration"): a
coordinate and random search that minimises the mean absolute error plus
0.3 x the largest, penalising any error over 9 points.

    fit.py MODEL_EVAL GPU.ini CASES "eff lat st ld sh iv issue p stexp rw ivw blat slow srun srunlat srunbar" [FREE]

FREE: the positions (from 0, comma-separated) of the values to search; the
others stay as given. Without it, all are searched.
"""
import random
import subprocess
import sys

LO = [0.80, 100, 10, 50, 0.5, 0, 0, 1, 1, 0.9, 0, 100, 0, 0, 0, 0]
HI = [1.00, 1500, 200, 500, 4, 400, 200, 8, 3, 1.1, 20, 5000, 100, 1, 5000, 5000]


def evaluate(tool, ini, cases, sets):
    text = "\n".join(" ".join("%g" % v for v in s) for s in sets) + "\n"
    out = subprocess.run([tool, ini, cases], input=text, capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith("mean")]
    return [(float(r[1]), float(r[3]), float(r[5])) for r in rows]


def score(r):
    return r[0] + 0.3 * r[2] + 2.5 * max(0.0, r[2] - 9)


def main():
    tool, ini, cases, start = sys.argv[1:5]
    best = [float(v) for v in start.split()]
    free = [int(i) for i in sys.argv[5].split(",")] if len(sys.argv) > 5 else range(len(best))
    best_score = score(evaluate(tool, ini, cases, [best])[0])
    rng = random.Random(1)
    for _ in range(40):
        sets = []
        for i in free:
            for f in (0.7, 0.85, 0.95, 1.05, 1.2, 1.5):
                s = list(best)
                s[i] = min(HI[i], max(LO[i], s[i] * f if s[i] else f - 0.7))
                sets.append(s)
        for _ in range(30):
            sets.append([min(HI[i], max(LO[i], v * rng.uniform(0.8, 1.25))) if i in free else v
                         for i, v in enumerate(best)])
        for s, r in zip(sets, evaluate(tool, ini, cases, sets)):
            if score(r) < best_score:
                best, best_score = s, score(r)
    print(" ".join("%.4g" % v for v in best), evaluate(tool, ini, cases, [best])[0])


if __name__ == "__main__":
    main()
