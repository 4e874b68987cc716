/*
 * channel_send (channel.h), alone in its object file, the one archive
 * member that a submission defining its own channel_send would replace.
 * Beside the frame writers, which the harness calls itself (its output goes
 * out in pieces), it would be linked all the same, and the link would fail
 * on the duplicate before the integrity check could say what the file did
 * (tests/fixtures/hostile/define_channel_send.cu).
 */
#include "channel.h"

int channel_send(int fd, enum channel_msg type, const void *payload, uint64_t length)
{
	if (channel_begin_frame(fd, type, length) < 0)
		return -1;
	return length ? channel_write_all(fd, payload, (size_t)length) : 0;
}
