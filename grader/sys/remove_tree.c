/*
 * rm -r for a tree that untrusted code may have shaped (see kit_paths.h).
 *
 * nftw and any recursive walk give up on a deep tree: a chain of 2,500
 * folders outgrows PATH_MAX and the descriptors a walk holds per level, and
 * what is left stays on disk for good. This walk holds one descriptor and
 * no path: it goes down by name from the folder it is in, removes what it
 * can there (files, links, empty folders), goes down into the first folder
 * that is not empty, and back up through ".." once the folder it is in is
 * empty. The only state is the depth, so that it stops where it started.
 * The tree's owner is dead when this runs (its uid was killed), so nothing
 * moves folders under the walk.
 */
#include "sys/kit_paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Folders found impossible to empty (something in them would not go), by
 * inode: skipped from then on, so that the walk ends. */
#define MAX_STUCK 64
struct stuck {
	dev_t dev[MAX_STUCK];
	ino_t ino[MAX_STUCK];
	int n;
};

static int is_stuck(const struct stuck *s, const struct stat *st)
{
	for (int i = 0; i < s->n; i++)
		if (s->dev[i] == st->st_dev && s->ino[i] == st->st_ino)
			return 1;
	return 0;
}

/* Removes what is removable in the folder fd: files, links, empty
 * folders. Names in sub ("" when none) a folder that is not empty and not
 * stuck, to go down into, and its identity in sub_st. */
static void clear_level(int fd, const struct stuck *stuck, char *sub, size_t len, struct stat *sub_st)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	sub[0] = '\0';
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISDIR(st.st_mode))
			unlinkat(fd, e->d_name, 0);
		else if (unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0 && !sub[0] && !is_stuck(stuck, &st)) {
			snprintf(sub, len, "%s", e->d_name);
			*sub_st = st;
		}
	}
	closedir(d);
}

void remove_tree(const char *path)
{
	struct stat st, sub_st = { 0 }, came_from = { 0 };
	struct stuck stuck = { .n = 0 };
	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), up = 0;
	long depth = 0;
	char sub[NAME_MAX + 1];
	while (fd >= 0) {
		clear_level(fd, &stuck, sub, sizeof(sub), &sub_st);
		/* Back from a folder that is still there: it cannot be emptied. */
		if (up && sub[0] && sub_st.st_dev == came_from.st_dev && sub_st.st_ino == came_from.st_ino) {
			if (stuck.n == MAX_STUCK)
				break;
			stuck.dev[stuck.n] = sub_st.st_dev;
			stuck.ino[stuck.n++] = sub_st.st_ino;
			continue;
		}
		int next = sub[0] ? openat(fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (next < 0 && sub[0] && stuck.n < MAX_STUCK) {
			stuck.dev[stuck.n] = sub_st.st_dev;	/* cannot be entered */
			stuck.ino[stuck.n++] = sub_st.st_ino;
			up = 0;
			continue;
		}
		if (next >= 0) {
			close(fd);
			fd = next;
			depth++;
			up = 0;
			continue;
		}
		if (depth == 0 || fstat(fd, &came_from) < 0)
			break;
		next = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = next;
		depth--;
		up = 1;
	}
	if (fd >= 0)
		close(fd);
	rmdir(path);
}
