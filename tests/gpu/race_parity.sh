#!/bin/bash
# One verdict for racy code: each racy (and race-free) fixture graded on this
# GPU and in the emulator, with the same seed, side by side.
#
#   OUT=/tmp/out bash tests/gpu/race_parity.sh
#
# Writes $OUT/race_parity/summary.md: per file and backend, the score, the
# correctness sizes passed, and how many sizes say that their result depends
# on a race. A racy file must score the same on both backends, every size
# saying so; a race-free one must say it nowhere.
set -u
. "$(dirname "$0")/setup.sh"
gpu_setup race_parity
SUMMARY=$LOG/summary.md
SEED=${SEED:-1}
printf '# Racy code on %s and in the emulator (seed %s)\n\n' "$GPU" "$SEED" >"$SUMMARY"
printf '| file | backend | score | sizes passed | sizes naming a race |\n| --- | --- | --- | --- | --- |\n' >>"$SUMMARY"
for f in lab1:tests/fixtures/lab1/racy_inplace.cu lab2:tests/fixtures/lab2/racy.cu \
	 lab3:tests/fixtures/lab3/no_sync.cu lab3:tests/fixtures/lab3/same_value_store.cu \
	 lab3:tests/fixtures/lab3/padded.cu; do
	lab=${f%%:*} file=${f#*:} name=$(basename "${f#*:}" .cu)
	for backend in cuda emu; do
		say "$lab $name $backend"
		timeout 900 ./grade "$lab" --submission "$file" --backend "$backend" --seed "$SEED" --plot none \
			--json "$LOG/$lab-$name-$backend.json" >"$LOG/$lab-$name-$backend.txt" 2>&1
		python3 - "$LOG/$lab-$name-$backend.json" "$lab/$name" "$backend" >>"$SUMMARY" <<'PY' ||
import json, sys
path, name, backend = sys.argv[1:]
j = json.load(open(path))
sizes = [t for t in j['tests'] if t['group'] == 'correctness']
print('| %s | %s | %g | %d of %d | %d |' % (name, backend, j['score'],
      sum(t['passed'] for t in sizes), len(sizes),
      sum('depends on a race at' in t['message'] for t in sizes)))
PY
			echo "| $lab/$name | $backend | no report | | |" >>"$SUMMARY"
	done
done
cat "$SUMMARY"
