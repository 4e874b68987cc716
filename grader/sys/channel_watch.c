/* A child's stages read from its channel as it runs (see channel_watch.h). */
#include "sys/channel_watch.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"

void channel_watch_reset(struct channel_watch *w)
{
	const double *limits = w->limit_s;
	int n = w->n_limits;
	memset(w, 0, sizeof(*w));
	w->limit_s = limits;
	w->n_limits = n;
}

/* Only the frames' headers are read: a gigabyte's output is skipped over. */
static void read_new_frames(struct channel_watch *w, int fd, double now_s)
{
	struct stat st;
	if (w->broken || fstat(fd, &st) < 0)
		return;
	size_t size = (size_t)st.st_size;
	struct frame_header h;
	while (size >= w->next_header + sizeof(h)) {
		/* A length that would wrap the place around (a forged header) is
		 * as broken as a wrong magic: the reader must always move on. */
		if (pread(fd, &h, sizeof(h), (off_t)w->next_header) != (ssize_t)sizeof(h) ||
		    h.magic != CHANNEL_MAGIC || h.length > (uint64_t)(SIZE_MAX - w->next_header - sizeof(h))) {
			w->broken = 1;
			return;
		}
		int k = w->stages;
		if (k > 0 && !w->own_ended[k] &&
		    (h.type == MSG_DONE || h.type == MSG_STUDENT_EXIT)) {
			w->own_ended[k] = 1;
			w->own_end[k] = now_s;
		}
		if (h.type == MSG_BEGIN && k + 1 < WATCH_MAX_STAGES)
			w->began_at[++w->stages] = now_s;
		w->next_header += sizeof(h) + h.length;
	}
}

double channel_watch_poll(struct channel_watch *w, int fd, double now_s)
{
	read_new_frames(w, fd, now_s);
	w->ended_at = now_s;
	if (w->n_limits <= 0 || w->broken)
		return 1e300;
	if (w->own_ended[w->stages])
		return w->own_end[w->stages] + w->limit_s[0];
	int k = w->stages < w->n_limits ? w->stages : w->n_limits - 1;
	return w->began_at[w->stages] + w->limit_s[k];
}

double channel_watch_stage_s(const struct channel_watch *w, int k)
{
	if (k < 1 || k > w->stages)
		return -1;
	double end = w->own_ended[k] ? w->own_end[k] : k < w->stages ? w->began_at[k + 1] : w->ended_at;
	return end - w->began_at[k];
}
