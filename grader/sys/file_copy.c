/* One file copied whole (see file_copy.h). */
#include "sys/file_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

int file_copy(const char *from, const char *to, mode_t mode, char *err, size_t errlen)
{
	struct stat st;
	int rc = -1, out = -1, in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		snprintf(err, errlen, "cannot read %.300s: %s", from, strerror(errno));
		goto out;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0 || fchmod(out, mode) < 0) {	/* fchmod: the mode whatever the umask */
		snprintf(err, errlen, "cannot create %.300s: %s", to, strerror(errno));
		goto out;
	}
	for (off_t done = 0; done < st.st_size;) {
		ssize_t n = sendfile(out, in, &done, (size_t)(st.st_size - done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot copy %.300s: %s", from, n < 0 ? strerror(errno) : "it shrank");
			goto out;
		}
	}
	rc = 0;
out:
	if (out >= 0 && close(out) < 0 && rc == 0) {
		snprintf(err, errlen, "cannot write %.300s: %s", to, strerror(errno));
		rc = -1;
	}
	if (out >= 0 && rc < 0)
		unlink(to);
	if (in >= 0)
		close(in);
	return rc;
}
