#!/usr/bin/env python3
"""The table of tests/gpu/breakdown.sh: where one grade's wall time goes.

    python3 tests/gpu/breakdown_table.py ROWS.tsv MACHINE.txt > breakdown.md

ROWS.tsv holds one measurement a line: lab, step, seconds, note.
"""
import re
import statistics
import sys
from collections import defaultdict


def load(path):
    rows = defaultdict(list)
    for line in open(path):
        parts = line.rstrip('\n').split('\t')
        if len(parts) < 3:
            continue
        lab, step, sec = parts[0], parts[1], float(parts[2])
        rows[lab].append((step, sec, parts[3] if len(parts) > 3 else ''))
    return rows


def total(rows, pattern):
    return sum(s for step, s, _ in rows if re.search(pattern, step))


def fmt(x):
    return '%.2f' % x


def machine(path):
    try:
        text = open(path).read()
    except OSError:
        return 'unknown machine'
    gpu = re.search(r'NVIDIA (H\d+|A\d+|[A-Z]\w+)[^|\n]*', text)
    cores = re.search(r'^(\d+)$', text, re.M)
    return '%s, %s CPU cores' % (gpu.group(0).strip() if gpu else 'GPU unknown',
                                 cores.group(1) if cores else '?')


def lab_table(lab, rows):
    whole = [s for step, s, _ in rows if step.startswith('whole grade:') or step == 'whole grade, again']
    whole_s = statistics.median(whole) if whole else 0.0
    noiso = total(rows, r'^whole grade --no-isolation')
    noana = total(rows, r'^whole grade --no-analysis')
    parts = [
        ('build: nvcc -c', total(rows, r'^build: nvcc')),
        ('build: link the harness', total(rows, r'^build: link')),
        ('correctness children (start, CUDA context, input to the GPU, call, output back)',
         total(rows, r'^correct .*: child')),
        ('grader: read the channel, check guards', total(rows, r'grader reads the channel')),
        ('grader: generate inputs', total(rows, r'grader generates')),
        ('grader: CPU reference', total(rows, r"grader's CPU reference")),
        ('grader: compare every word', total(rows, r'grader compares')),
        ('bench child: timed loops (L2 flush, call, flush, copy ceiling, x runs)',
         total(rows, r'^bench .*timed loop')),
        ('bench child: the rest (start, context, buffers, input, warm-ups)',
         total(rows, r'^bench child') - total(rows, r'^bench .*timed loop')),
        ('sweep child (lab 4)', total(rows, r'^sweep child')),
        ('analysis: emulator build', total(rows, r'^analysis: (cuemu-cc|link)')),
        ('analysis: emulator child', total(rows, r'^analysis: child')),
    ]
    out = ['## %s' % lab, '',
           '| where | seconds | share of the grade |', '| --- | ---: | ---: |']
    accounted = 0.0
    for name, s in parts:
        if s <= 0:
            continue
        accounted += s
        out.append('| %s | %s | %.0f%% |' % (name, fmt(s), 100 * s / whole_s if whole_s else 0))
    out.append('| not accounted for above (grader start, device query, occupancy check, '
               'isolation, reports) | %s | %.0f%% |' % (fmt(whole_s - accounted),
                                                        100 * (whole_s - accounted) / whole_s if whole_s else 0))
    out.append('| **whole grade** (median of %d) | **%s** | |' % (len(whole), fmt(whole_s)))
    out.append('')
    if noiso or noana:
        out.append('Whole grade without bubblewrap: %s s; without the analysis: %s s.' % (fmt(noiso), fmt(noana)))
        out.append('')
    shared = [(s, n) for st, s, n in rows if st.startswith('shared child')]
    if shared:
        out.append('Every correctness size in one process, as the grade runs them: '
                   '%s s (%s), against %s s for one process per size above.' % (
                       fmt(shared[0][0]), shared[0][1], fmt(total(rows, r'^correct .*: child'))))
        out.append('')
    inside = [(st, s) for st, s, _ in rows if st.startswith('shared child ') and ': inside' in st]
    if inside:
        out += ['Inside that process, per size (the harness\'s own clock):', '',
                '| size: where the milliseconds go | seconds |', '| --- | ---: |']
        out += ['| %s | %.3f |' % (st[len('shared child '):], s) for st, s in inside]
        out.append('')
    # Per size.
    sizes = []
    for step, s, note in rows:
        m = re.match(r'^correct (\S+): child', step)
        if m:
            sizes.append(m.group(1))
    if sizes:
        out += ['| size | child | read+guards | generate | reference | compare | verdict |',
                '| --- | ---: | ---: | ---: | ---: | ---: | --- |']
        for size in sizes:
            def one(p):
                return total(rows, r'^correct %s: %s' % (re.escape(size), p))
            verdict = next((n for st, _, n in rows
                            if st.startswith('correct %s: grader compares' % size)), '')
            out.append('| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |' % (
                size, one('child'), one('grader reads'), one('grader generates'),
                one("grader's CPU reference"), one('grader compares'), verdict))
        out.append('')
    timed_rows = [(st, s, n) for st, s, n in rows if 'timed loop' in st]
    if timed_rows:
        out += ['| timed loop | seconds | medians |', '| --- | ---: | --- |']
        out += ['| %s | %.3f | %s |' % (st, s, n) for st, s, n in timed_rows]
        out.append('')
    return out


def main():
    rows = load(sys.argv[1])
    out = ['# Where one grade\'s wall time goes', '',
           'Machine: %s. Made by `tests/gpu/breakdown.sh` (every row of `rows.tsv` is one '
           'measurement, in seconds of wall time).' % machine(sys.argv[2]), '']
    if 'all' in rows:
        out += ['## A fresh CUDA process', '', '| step | seconds |', '| --- | ---: |']
        out += ['| %s | %.4f |' % (st, s) for st, s, _ in rows['all']]
        out.append('')
    for lab in sorted(k for k in rows if k != 'all'):
        out += lab_table(lab, rows[lab])
    print('\n'.join(out))


if __name__ == '__main__':
    main()
