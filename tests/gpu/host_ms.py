"""Rows for rows.tsv from a shared correctness child's frames (breakdown.sh).

    breakdown-cpu frames CHAN | python3 host_ms.py LAB "SHAPE SHAPE ..."

One row per size: where the harness's own clock says that size's time went
(MSG_DONE's host_ms and elapsed_ms). The fields are the harness's version's:
before the input was generated on the GPU, fill (on the host) and to GPU;
since, setup (allocations, the poison, the first call's context) and fill
(the kit's fill kernel); then the call, from GPU, input check and send.
"""
import json
import sys

MSG_DONE = '4'
LABELS = (('setup', 'setup'), ('fill', 'fill'), ('to_gpu', 'to GPU'))
AFTER = (('from_gpu', 'from GPU'), ('input_check', 'input check'), ('send', 'send'))


def inside(h, elapsed_ms):
    """'fill 80, to GPU 170, call 1.2, ...' for the fields this harness reported."""
    parts = ['%s %.1f' % (label, h[key]) for key, label in LABELS if key in h]
    parts.append('call %.1f' % elapsed_ms)
    parts += ['%s %.1f' % (label, h[key]) for key, label in AFTER if key in h]
    return ', '.join(parts)


def main():
    lab, shapes = sys.argv[1], sys.argv[2].split()
    done = [json.loads(line.split('\t', 1)[1]) for line in sys.stdin
            if line.split('\t', 1)[0] == MSG_DONE]
    for shape, d in zip(shapes, done):
        h = d.get('host_ms')
        if not h:
            continue
        total = (sum(h.values()) + d['elapsed_ms']) / 1e3
        print('%s\tshared child %s: inside (ms: %s)\t%.4f\t' % (lab, shape, inside(h, d['elapsed_ms']),
                                                                 total))


if __name__ == '__main__':
    main()
