"""Rows for rows.tsv from a shared correctness child's frames (breakdown.sh).

    breakdown-cpu frames CHAN | python3 host_ms.py LAB "SHAPE SHAPE ..."

One row per size: where the harness's own clock says that size's time went
(MSG_DONE's host_ms: fill, to GPU, the call, from GPU, input check, send).
"""
import json
import sys

MSG_DONE = '4'


def main():
    lab, shapes = sys.argv[1], sys.argv[2].split()
    done = [json.loads(line.split('\t', 1)[1]) for line in sys.stdin
            if line.split('\t', 1)[0] == MSG_DONE]
    for shape, d in zip(shapes, done):
        h = d.get('host_ms')
        if not h:
            continue
        total = (sum(h.values()) + d['elapsed_ms']) / 1e3
        print('%s\tshared child %s: inside (ms: fill %.0f, to GPU %.0f, call %.1f, from GPU %.0f, '
              'input check %.0f, send %.0f)\t%.4f\t' % (lab, shape, h['fill'], h['to_gpu'],
                                                        d['elapsed_ms'], h['from_gpu'],
                                                        h['input_check'], h['send'], total))


if __name__ == '__main__':
    main()
