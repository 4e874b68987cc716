/* Frames on the report channel (see channel.h). */
#include "channel.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int channel_write_all(int fd, const void *data, size_t length)
{
	const char *p = data;
	while (length > 0) {
		ssize_t w = write(fd, p, length);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		length -= (size_t)w;
	}
	return 0;
}

int channel_begin_frame(int fd, enum channel_msg type, uint64_t length)
{
	struct frame_header h = { CHANNEL_MAGIC, (uint32_t)type, length };
	return channel_write_all(fd, &h, sizeof(h));
}

int channel_next(struct channel_reader *r, uint32_t *type, const unsigned char **payload,
		 uint64_t *length)
{
	struct frame_header h;
	if (r->pos == r->size)
		return 0;
	if (r->size - r->pos < sizeof(h))
		return -1;
	memcpy(&h, r->data + r->pos, sizeof(h));
	if (h.magic != CHANNEL_MAGIC || h.type < MSG_DEVICE || h.type > MSG_OUTPUT_DIGEST)
		return -1;
	if (h.length > r->size - r->pos - sizeof(h))
		return -1;
	*type = h.type;
	*payload = r->data + r->pos + sizeof(h);
	*length = h.length;
	r->pos += sizeof(h) + h.length;
	return 1;
}
