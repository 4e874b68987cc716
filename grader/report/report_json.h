/*
 * The machine-readable report (./grade LAB --json FILE).
 *
 *   {
 *     "schema_version": 1,         REPORT_JSON_SCHEMA_VERSION
 *     "lab": "lab3", "lab_title": "Coalesced matrix transpose",
 *     "backend": "cuda", "device": "NVIDIA H100 80GB HBM3",
 *     "submission": "labs/lab3-transpose/transpose.cu",
 *     "seed": 42,                  integer up to 2^53-1, else a decimal string
 *     "reproduce": "./grade lab3 --seed 42",
 *     "score": 37.5, "max_score": 100, "passed": false, "exit_status": 1,
 *     "band_source": "...",
 *     "tests": [{"name": "correctness 31x33", "group": "correctness",
 *                "status": "failed", "passed": false,
 *                "points": 0, "max_points": 2.5, "message": "..."}],
 *     "groups": {"correctness": {"points": 10, "max_points": 12.5}, ...},
 *     "metrics": {...},            the typed parts of g (perf, prediction, sweep,
 *                                  figures, beside): their figures by name; "races"
 *                                  counts the races with a read in them, and
 *                                  "race_dependence", only when there is one, is
 *                                  the race the correctness results depend on:
 *                                  {"kind": "RAW", "read": {"file", "line"},
 *                                  "write": {...}, "count": 3968, "sizes_failed": 1}
 *     "bench": [{"shape": "4096x4096", "elements": 16777216, "bytes": 134217728,
 *                "student_gbps": 2765.1, "reference_gbps": 2800,
 *                "copy_gbps": null}],   null: not measured
 *     "analysis": {...},           the emulator's metrics, only when present
 *     "build_log": "...",          only when the build failed
 *     "internal_error": "..."      only when the grader could not run it
 *   }
 *
 * Why the seed is sometimes a string: JSON numbers are doubles to most
 * readers (JavaScript, jq), which hold integers exactly only up to 2^53.
 * A seed above that would come back as a different seed; as a string it
 * comes back exactly, and ./grade --seed accepts either form's digits.
 *
 * Every string is valid UTF-8: bytes that are not (a path, a compiler's
 * output in another encoding) are replaced by U+FFFD rather than dropped.
 */
#ifndef GRADER_REPORT_JSON_H
#define GRADER_REPORT_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "steps/grade.h"

/* The layout above; a reader refuses a report of a later one. It grows
 * when a field changes meaning or goes away, not when one is added. */
#define REPORT_JSON_SCHEMA_VERSION 1

/* The largest seed written as a JSON integer: 2^53 - 1. */
#define REPORT_JSON_MAX_INT_SEED 9007199254740991ull

/* A new JSON object (the caller decrefs it), or NULL when out of memory.
 * It holds copies of g's JSON parts (launches, sweep, analysis), not references. */
json_t *report_json(const struct grade *g);

/* Writes report_json(g) to path, indented, whole or not at all
 * (atomic_file.h). Returns 0, or -1 with one line in err. */
int report_json_write(const struct grade *g, const char *path, char *err, size_t errlen);

#endif
