#!/usr/bin/env python3
"""student_copy.py FILE DEST: FILE with its local #include "x.h" pasted in.

A submission is compiled alone, so a kit file that shares a header with
its siblings is graded as the single file a student would hand in."""
import os
import re
import sys

src, dest = sys.argv[1:]
here = os.path.dirname(src)
out = []
for line in open(src):
    m = re.match(r'\s*#include\s+"([^"]+)"', line)
    if m and os.path.exists(os.path.join(here, m.group(1))):
        out.append(open(os.path.join(here, m.group(1))).read())
    else:
        out.append(line)
open(dest, "w").write("".join(out))
