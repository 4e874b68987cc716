/* The reference solution's CUDA harness, kept between grades (see reference_cache.h). */
#include "steps/reference_cache.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/cuda_toolkit.h"
#include "sys/file_copy.h"
#include "sys/file_stamp.h"
#include "sys/kit_paths.h"
#include "sys/sha256.h"

#define CACHE_DIR "build/reference-harness"

/* "LAB-sm_XY-": the name every entry of one lab and architecture starts with. */
static void entry_prefix(const struct lab *lab, const struct device_info *dev, char *out, size_t len)
{
	snprintf(out, len, "%s-sm_%d%d-", lab->id, dev->major, dev->minor);
}

void reference_cache_path(const struct lab *lab, const struct device_info *dev, const char *solution,
			  char *kept, size_t len)
{
	static char key[16384];
	char path[PATH_MAX], dir[PATH_MAX], rel[256], prefix[128], hex[2 * SHA256_BYTES + 1];
	uint8_t digest[SHA256_BYTES];
	struct sha256 h;
	entry_prefix(lab, dev, prefix, sizeof(prefix));
	snprintf(key, sizeof(key), "kit-reference-harness 1 %s", prefix);
	file_stamp_append(key, sizeof(key), "/proc/self/exe");
	file_stamp_append(key, sizeof(key), cuda_toolkit_path("bin/nvcc", path, sizeof(path)));
	file_stamp_append(key, sizeof(key), solution);
	/* common/ is the build's one include folder (build.c): every header a
	 * solution can include is stamped. */
	file_stamp_append_dir(key, sizeof(key), kit_path(dir, sizeof(dir), "common"), ".h");
	file_stamp_append_dir(key, sizeof(key), kit_path(dir, sizeof(dir), "build/harness/cuda"), ".o");
	file_stamp_append_dir(key, sizeof(key), kit_path(dir, sizeof(dir), "build/harness/harness"), ".o");
	snprintf(rel, sizeof(rel), "build/harness/labs/%s_entry.o", lab->id);
	file_stamp_append(key, sizeof(key), kit_path(path, sizeof(path), rel));
	file_stamp_append(key, sizeof(key), kit_path(path, sizeof(path), "build/libkit.a"));
	sha256_init(&h);
	sha256_update(&h, key, strlen(key));
	sha256_final(&h, digest);
	sha256_hex(digest, hex);
	snprintf(kept, len, "%s/%s%.16s", kit_path(dir, sizeof(dir), CACHE_DIR), prefix, hex);
}

int reference_cache_take(const char *kept, const char *harness)
{
	char err[256];
	return file_exists(kept) && file_copy(kept, harness, 0755, err, sizeof(err)) == 0 ? 0 : -1;
}

/* A copy another grade may be writing now (reference_cache_keep's
 * NAME.PID.tmp): left alone unless it is older than any copy takes, when
 * its grade died before its rename. */
#define TMP_ABANDONED_S 600

static int in_progress(const char *path, const char *name)
{
	struct stat st;
	size_t n = strlen(name);
	return n > 4 && strcmp(name + n - 4, ".tmp") == 0 && stat(path, &st) == 0 &&
	       time(NULL) - st.st_mtime < TMP_ABANDONED_S;
}

/* Removes the entries named prefix... in dir other than the one named keep. */
static void remove_replaced(const char *dir, const char *prefix, const char *keep)
{
	char path[PATH_MAX + 256];
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 || strcmp(e->d_name, keep) == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!in_progress(path, e->d_name))
			unlink(path);
	}
	closedir(d);
}

void reference_cache_keep(const char *harness, const char *kept)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], prefix[PATH_MAX], err[256];
	const char *name = strrchr(kept, '/');
	if (!name)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(name - kept), kept);
	name++;
	/* The name up to its hash: the same lab and architecture. */
	const char *hash = strrchr(name, '-');
	snprintf(prefix, sizeof(prefix), "%.*s", hash ? (int)(hash - name + 1) : 0, name);
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", kept, (long)getpid());
	if (make_dirs(dir) < 0 || file_copy(harness, tmp, 0755, err, sizeof(err)) < 0)
		return;
	/* Whole or not at all: another grade may be taking it now. */
	if (rename(tmp, kept) < 0) {
		unlink(tmp);
		return;
	}
	if (prefix[0])
		remove_replaced(dir, prefix, name);
}
