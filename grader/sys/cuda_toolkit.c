/* Where the CUDA toolkit is (see cuda_toolkit.h). */
#include "sys/cuda_toolkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/kit_paths.h"

/* ROOT of ROOT/bin/nvcc, in place; 0 when path is not laid out so. */
static int root_of_nvcc(char *path)
{
	char *slash = strrchr(path, '/');
	if (!slash || slash - path < 4 || strncmp(slash - 4, "/bin", 4) != 0)
		return 0;
	slash[-4] = '\0';
	return path[0] != '\0';
}

const char *cuda_toolkit_root(char *buf, size_t len)
{
	char nvcc[1024];
	if (find_program("nvcc", nvcc, sizeof(nvcc)) && root_of_nvcc(nvcc)) {
		snprintf(buf, len, "%s", nvcc);
		return buf;
	}
	const char *home = getenv("CUDA_HOME");
	snprintf(nvcc, sizeof(nvcc), "%s/bin/nvcc", home && *home ? home : "/usr/local/cuda");
	if (file_exists(nvcc) && root_of_nvcc(nvcc))
		snprintf(buf, len, "%s", nvcc);
	else if (len > 0)
		buf[0] = '\0';
	return buf;
}

const char *cuda_toolkit_path(const char *rel, char *buf, size_t len)
{
	char root[1024];
	if (*cuda_toolkit_root(root, sizeof(root)))
		snprintf(buf, len, "%s/%s", root, rel);
	else if (len > 0)
		buf[0] = '\0';
	return buf;
}
