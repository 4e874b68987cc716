#!/usr/bin/env python3
"""The table of tests/gpu/ref_variants.sh: each candidate's correctness, its
registers, and its bandwidth as a percentage of the copy timed beside it.

    python3 tests/gpu/ref_variants_table.py DIR > table.md
"""
import glob
import json
import os
import re
import sys


def registers(path):
    try:
        text = open(path).read()
    except OSError:
        return '-'
    found = sorted({int(x) for x in re.findall(r'REG:(\d+)', text)} |
                   {int(x) for x in re.findall(r'Used (\d+) registers', text)})
    return '/'.join(str(x) for x in found) or '-'


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def main():
    d = sys.argv[1]
    names = sorted({re.sub(r'\.r\d\.json$', '', os.path.basename(p))
                    for p in glob.glob(os.path.join(d, '*.r[12].json'))})
    machine = open(os.path.join(d, 'machine.txt')).read() if os.path.exists(
        os.path.join(d, 'machine.txt')) else ''
    gpu = re.search(r'NVIDIA [^|\n]*?(?=\s{2,}|\|)', machine)
    print('# Reference candidates%s\n' % (' on an ' + gpu.group(0).strip() if gpu else ''))
    for lab in ('lab3', 'lab2'):
        rows = [n for n in names if n.startswith(lab + '-')]
        if not rows:
            continue
        shapes = None
        lines = []
        for name in rows:
            rounds = [load(os.path.join(d, '%s.r%d.json' % (name, r))) for r in (1, 2)]
            rounds = [j for j in rounds if j]
            if not rounds:
                lines.append((name, 'no report', '', {}))
                continue
            j = rounds[0]
            corr = [t for t in j['tests'] if t['group'] == 'correctness']
            ok = sum(1 for t in corr if t['passed'])
            failed = [t['message'][:80] for t in corr if not t['passed']]
            shapes = shapes or [b['shape'] for b in j.get('bench', [])]
            pct = {}
            for r in rounds:
                for b in r.get('bench', []):
                    if b.get('student_gbps') and b.get('copy_gbps'):
                        pct.setdefault(b['shape'], []).append(
                            (100 * b['student_gbps'] / b['copy_gbps'], b['student_gbps'], b['copy_gbps']))
            verdict = '%d/%d' % (ok, len(corr)) + (' (%s)' % failed[0] if failed else '')
            lines.append((name, verdict, registers(os.path.join(d, name + '.ptxas')), pct))
        shapes = shapes or []
        print('## %s\n' % lab)
        print('Percent of the device-to-device copy timed in the same run, round 1 / round 2; '
              'GB/s of the candidate and of the copy at the largest size.\n')
        print('| candidate | correct sizes | registers | ' + ' | '.join(shapes) + ' |')
        print('| --- | --- | --- | ' + ' | '.join('---:' for _ in shapes) + ' |')
        for name, verdict, regs, pct in lines:
            cells = []
            for s in shapes:
                v = pct.get(s, [])
                cells.append(' / '.join('%.1f' % x[0] for x in v) or '-')
            print('| %s | %s | %s | %s |' % (name[len(lab) + 1:], verdict, regs, ' | '.join(cells)))
        print()
        for name, _, _, pct in lines:
            big = pct.get(shapes[-1] if shapes else '', [])
            for s in shapes:
                if s in ('16384x16384', '2^28'):
                    big = pct.get(s, big)
            if big:
                print('- %s: %s GB/s (copy %s GB/s) at the graded size' % (
                    name, ' / '.join('%.0f' % x[1] for x in big), ' / '.join('%.0f' % x[2] for x in big)))
        print()
    cub = os.path.join(d, 'cub.txt')
    if os.path.exists(cub):
        print('## CUB DeviceScan::ExclusiveSum (2^28 words, its own bench)\n')
        for line in open(cub):
            print('- ' + line.strip())
        print()


if __name__ == '__main__':
    main()
