/* Who is in the batch's folder (see batch.h). */
#include "batch/batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/utf8.h"

static int add_skipped(struct roster *r, const char *name, const char *why)
{
	struct skipped *s = realloc(r->skipped, sizeof(*s) * (size_t)(r->n_skipped + 1));
	if (!s)
		return -1;
	r->skipped = s;
	s = &r->skipped[r->n_skipped++];
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->why, sizeof(s->why), "%s", why);
	return 0;
}

static struct student *add_student(struct roster *r, const char *name)
{
	struct student *s = realloc(r->students, sizeof(*s) * (size_t)(r->n + 1));
	if (!s)
		return NULL;
	r->students = s;
	s = &r->students[r->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

/* Whether uid may read the file st describes, by its mode bits alone (a
 * group's members are not looked up: a file only a group may read is
 * refused, and the message says how to share it). */
static int readable_by(const struct stat *st, uid_t uid)
{
	return st->st_uid == uid ? (st->st_mode & S_IRUSR) != 0 : (st->st_mode & S_IROTH) != 0;
}

/* Why path cannot be graded as the lab's file, or NULL when it can. The
 * grader reads it as root, so nothing but the student's own file may pass:
 * a symbolic link could point at anything root may read, and so could a
 * hard link (another name of a file elsewhere: /etc/shadow, another class's
 * work). owner is the uid of the student's entry in the class folder (their
 * folder, or the .cu file itself): the file must be one that owner may
 * read. */
static const char *source_problem(const char *path, const char *file, uid_t owner, char *buf, size_t len)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		snprintf(buf, len, "no submission: expected %s", file);
	else if (S_ISLNK(st.st_mode))
		snprintf(buf, len, "not graded: %s is a symbolic link", file);
	else if (S_ISREG(st.st_mode) && st.st_nlink > 1)
		snprintf(buf, len, "not graded: %s is a hard link (the file has %ju names); copy it instead",
			 file, (uintmax_t)st.st_nlink);
	else if (S_ISREG(st.st_mode) && !readable_by(&st, owner))
		snprintf(buf, len, "not graded: %s is not readable by the owner of its folder (make it "
			 "readable by its owner or by all)", file);
	else if (!S_ISREG(st.st_mode))
		snprintf(buf, len, "not graded: %s is not a regular file", file);
	else if (st.st_size > BATCH_MAX_SOURCE)
		snprintf(buf, len, "not graded: %s is larger than %d KiB", file, BATCH_MAX_SOURCE / 1024);
	else
		return NULL;
	return buf;
}

static int has_name(const struct roster *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->students[i].name, name) == 0)
			return 1;
	return 0;
}

/* One entry of the folder: a student, a skipped entry, or nothing. */
static int scan_entry(const char *dir, const char *name, const struct lab *lab,
		      const char *skip_path, struct roster *r)
{
	char path[PATH_MAX], real[PATH_MAX], student[BATCH_NAME_LEN], why[256];
	struct stat st;
	snprintf(path, sizeof(path), "%.3800s/%.255s", dir, name);
	if (name[0] == '.')
		return add_skipped(r, name, "hidden");
	if (lstat(path, &st) < 0)
		return add_skipped(r, name, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return add_skipped(r, name, "a symbolic link (not followed)");
	if (skip_path && realpath(path, real) && strcmp(real, skip_path) == 0)
		return add_skipped(r, name, "the batch's output folder");
	size_t len = strlen(name);
	int is_cu = S_ISREG(st.st_mode) && len > 3 && strcmp(name + len - 3, ".cu") == 0;
	if (!S_ISDIR(st.st_mode) && !is_cu)
		return add_skipped(r, name, S_ISREG(st.st_mode) ? "not a folder or a .cu file"
							  : "not a folder or a regular file");
	/* Names reach the gradebook and folder names: bytes that are not
	 * printable UTF-8 are escaped, so that two names stay two rows. */
	char raw[NAME_MAX + 1];
	snprintf(raw, sizeof(raw), "%.*s", (int)(is_cu ? len - 3 : len), name);
	if (utf8_escape_name(raw, student, sizeof(student)) < 0)
		return add_skipped(r, name, "a name too long once its unprintable bytes are escaped (rename it)");
	if (has_name(r, student))
		return add_skipped(r, name, "another entry has the same student name");
	struct student *s = add_student(r, student);
	if (!s)
		return -1;
	if (is_cu)
		snprintf(s->source, sizeof(s->source), "%s", path);
	else
		snprintf(s->source, sizeof(s->source), "%.3800s/%.200s", path, lab->file);
	const char *problem = source_problem(s->source, lab->file, st.st_uid, why, sizeof(why));
	if (problem)
		snprintf(s->problem, sizeof(s->problem), "%s", problem);
	return 0;
}

/* Entries in name order, so that which of two entries with the same
 * student name (bob/ and bob.cu) counts does not depend on the file system. */
int batch_scan(const char *dir, const struct lab *lab, const char *skip_path, struct roster *r,
	       char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		snprintf(err, errlen, "--batch %s: %s", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		if (rc == 0 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
			rc = scan_entry(dir, name, lab, skip_path, r);
		free(list[i]);
	}
	free(list);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory listing %s", dir);
		roster_free(r);
		return -1;
	}
	return 0;
}

void roster_free(struct roster *r)
{
	free(r->students);
	free(r->skipped);
	memset(r, 0, sizeof(*r));
}

int batch_copy_source(const char *src, const char *dst, char *why, size_t len)
{
	/* The scan's checks again, on the file opened: the name may have been
	 * pointed elsewhere since (a link swapped in between scan and copy). */
	int in = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (in < 0 || fstat(in, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > BATCH_MAX_SOURCE ||
	    st.st_nlink > 1 || !readable_by(&st, st.st_uid)) {
		snprintf(why, len, "cannot read %s: %s", src,
			 in < 0 ? strerror(errno) : "not a regular file of at most 1 MiB, with one name, "
						    "that its owner may read");
		if (in >= 0)
			close(in);
		return -1;
	}
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out < 0) {
		snprintf(why, len, "cannot create %s: %s", dst, strerror(errno));
		close(in);
		return -1;
	}
	char buf[65536];
	ssize_t n;
	size_t total = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0 && total <= BATCH_MAX_SOURCE) {
		total += (size_t)n;
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	}
	int ok = n == 0 && total <= BATCH_MAX_SOURCE;
	if (!ok)
		snprintf(why, len, "cannot copy %s to %s", src, dst);
	close(in);
	if (close(out) < 0)
		ok = 0;
	return ok ? 0 : -1;
}
