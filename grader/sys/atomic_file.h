/*
 * Write a file whole or not at all.
 *
 * The new contents go to a temporary file in the same folder (so that the
 * final rename stays inside one file system and is atomic), are flushed to
 * the disk, and only then renamed over the target. A reader sees the old
 * file or the new one, never half of either; a crash, a full disk or a
 * failed write leaves the old file as it was and no temporary behind.
 *
 * The temporary is ".NAME.tmp.PID.N" next to NAME. A file that is replaced
 * keeps its permission bits; a new one gets 0666 less the umask.
 */
#ifndef GRADER_ATOMIC_FILE_H
#define GRADER_ATOMIC_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct atomic_file {
	FILE *f;		/* write here between atomic_open and commit/abort */
	char path[PATH_MAX];	/* the target */
	char tmp[PATH_MAX];	/* the temporary, in the target's folder */
};

/* Writes data[0..len) to path atomically. Returns 0, or -1 with one line
 * in err ("cannot write build/report.json: No space left on device"). */
int atomic_write(const char *path, const void *data, size_t len, char *err, size_t errlen);

/* Opens a temporary next to path; the caller writes to af->f. Returns 0, or
 * -1 with err set (nothing is left to clean up). */
int atomic_open(struct atomic_file *af, const char *path, char *err, size_t errlen);

/* Flushes, syncs and renames the temporary over the target. Also checks
 * that every earlier write to af->f succeeded (ferror). Returns 0, or -1
 * with err set, in which case the temporary is removed and the target is
 * untouched. Either way af is finished: do not call atomic_abort after. */
int atomic_commit(struct atomic_file *af, char *err, size_t errlen);

/* Closes and removes the temporary; the target is untouched. */
void atomic_abort(struct atomic_file *af);

#endif
