/* The kinds of chart output (see plot_kind.h). */
#include "chart/plot_kind.h"

#include <strings.h>

static const char *const kind_names[] = {"png", "svg", "term", "none"};

int plot_kind_parse(const char *s, enum plot_kind *k)
{
	for (int i = 0; i < 4; i++) {
		if (s && strcasecmp(s, kind_names[i]) == 0) {
			*k = (enum plot_kind)i;
			return 0;
		}
	}
	return -1;
}

const char *plot_kind_name(enum plot_kind k)
{
	return (unsigned)k < 4 ? kind_names[k] : "?";
}
