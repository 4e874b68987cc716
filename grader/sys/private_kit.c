/* A private folder's kit made reachable to the sandbox's user (see private_kit.h). */
#include "sys/private_kit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/kit_paths.h"

/* 1 when uid may pass through the folder dir (its x bit for uid). */
static int passable(const char *dir, long uid)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return 0;
	mode_t need = st.st_uid == (uid_t)uid ? S_IXUSR : st.st_gid == (gid_t)uid ? S_IXGRP : S_IXOTH;
	return (st.st_mode & need) != 0;
}

/* The topmost folder above the kit that keeps uid out, into top; 0 if none. */
static int topmost_private(long uid, char *root, size_t root_len, char *top, size_t top_len)
{
	if (!realpath(kit_root(), root) || strlen(root) >= root_len)
		return 0;
	for (char *slash = strchr(root + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		int ok = passable(root, uid);
		if (!ok)
			snprintf(top, top_len, "%s", root);
		*slash = '/';
		if (!ok)
			return 1;
	}
	return 0;
}

int private_kit(long uid)
{
	char root[PATH_MAX], top[PATH_MAX];
	return uid >= 0 && topmost_private(uid, root, sizeof(root), top, sizeof(top));
}

int private_kit_expose(long uid, char *err, size_t errlen)
{
	char root[PATH_MAX], top[PATH_MAX], src[64];
	if (uid < 0 || !topmost_private(uid, root, sizeof(root), top, sizeof(top)))
		return 0;
	/* The kit is opened inside the new namespace, before the tmpfs covers
	 * it: a bind's source must be a mount of the namespace it goes into. */
	int fd = -1;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0 ||
	    (fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0) {
		snprintf(err, errlen, "cannot make the kit at %s reachable past the private folder %s: %s",
			 root, top, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The way down from top to the kit, in the empty tmpfs. */
	for (char *slash = strchr(root + strlen(top) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(root, 0755);
		*slash = '/';
	}
	mkdir(root, 0755);
	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	int rc = mount(src, root, NULL, MS_BIND | MS_REC, NULL);
	if (rc < 0)
		snprintf(err, errlen, "cannot bind the kit at %s: %s", root, strerror(errno));
	close(fd);
	return rc;
}
