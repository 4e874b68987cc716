/* Whole-or-nothing file writes: temporary in the same folder, fsync, rename. */
#include "sys/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void set_err(char *err, size_t errlen, const char *path, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
}

/* ".NAME.tmp.PID.N" next to NAME. The counter keeps threads of one process
 * apart; O_EXCL in the caller catches anything else. */
static int temp_name(const char *path, char *tmp, size_t len)
{
	static unsigned counter;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);

	int w = snprintf(tmp, len, "%.*s.%s.tmp.%ld.%u", dirlen, path, base, (long)getpid(), n);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* Syncs the folder holding path, so that the rename itself survives a
 * crash. Some file systems refuse fsync on a folder; that is not an error
 * worth failing a report for. */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int atomic_open(struct atomic_file *af, const char *path, char *err, size_t errlen)
{
	struct stat st;
	size_t plen = strlen(path);
	int fd = -1;

	memset(af, 0, sizeof(*af));
	if (plen == 0 || path[plen - 1] == '/') {
		set_err(err, errlen, path[0] ? path : "\"\"", EISDIR);
		return -1;
	}
	if (plen >= sizeof(af->path)) {
		set_err(err, errlen, path, ENAMETOOLONG);
		return -1;
	}
	memcpy(af->path, path, plen + 1);

	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		if (temp_name(path, af->tmp, sizeof(af->tmp)) < 0) {
			set_err(err, errlen, path, ENAMETOOLONG);
			return -1;
		}
		fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST) {
			set_err(err, errlen, path, errno);
			return -1;
		}
	}
	if (fd < 0) {
		set_err(err, errlen, path, EEXIST);
		return -1;
	}
	/* A replaced file keeps its mode (a gradebook made private stays so). */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		(void)fchmod(fd, st.st_mode & 07777);

	af->f = fdopen(fd, "w");
	if (!af->f) {
		int e = errno;
		close(fd);
		unlink(af->tmp);
		set_err(err, errlen, path, e);
		return -1;
	}
	return 0;
}

int atomic_commit(struct atomic_file *af, char *err, size_t errlen)
{
	int e = 0;

	errno = 0;
	if (fflush(af->f) != 0 || ferror(af->f))
		e = errno ? errno : EIO;
	else if (fsync(fileno(af->f)) != 0)
		e = errno;
	if (fclose(af->f) != 0 && !e)
		e = errno;
	af->f = NULL;
	if (!e && rename(af->tmp, af->path) != 0)
		e = errno;
	if (e) {
		unlink(af->tmp);
		set_err(err, errlen, af->path, e);
		return -1;
	}
	sync_dir(af->path);
	return 0;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->f) {
		fclose(af->f);
		af->f = NULL;
	}
	if (af->tmp[0])
		unlink(af->tmp);
	af->tmp[0] = '\0';
}

int atomic_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	struct atomic_file af;

	if (atomic_open(&af, path, err, errlen) < 0)
		return -1;
	/* Checked here, not only in commit, so that the message has the
	 * write's own errno (EFBIG, ENOSPC) rather than a generic one. */
	if (len && fwrite(data, 1, len, af.f) != len) {
		int e = errno;
		atomic_abort(&af);
		set_err(err, errlen, path, e ? e : EIO);
		return -1;
	}
	return atomic_commit(&af, err, errlen);
}
