/* Files' stamps for cache keys (see file_stamp.h). */
#include "sys/file_stamp.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void file_stamp_append(char *key, size_t len, const char *path)
{
	struct stat st;
	size_t at = strlen(key);
	if (at >= len)
		return;
	if (stat(path, &st) == 0)
		snprintf(key + at, len - at, " %lld.%lld.%ld", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else
		snprintf(key + at, len - at, " -");
}

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);
	return n >= s && strcmp(name + n - s, suffix) == 0;
}

void file_stamp_append_dir(char *key, size_t len, const char *dir, const char *suffix)
{
	struct dirent **names = NULL;
	char path[PATH_MAX];
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && has_suffix(names[i]->d_name, suffix)) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			file_stamp_append(key, len, path);
		}
		free(names[i]);
	}
	free(names);
}
