#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/channel.h"

/* Frames written to a memory file read back as written. */
Test(channel, round_trip)
{
	int fd = memfd_create("t", 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(channel_send(fd, MSG_BEGIN, "{\"a\":1}", 7), 0);
	uint32_t words[3] = { 1, 2, 3 };
	cr_assert_eq(channel_send(fd, MSG_OUTPUT, words, sizeof(words)), 0);
	cr_assert_eq(channel_send(fd, MSG_END, NULL, 0), 0);
	off_t size = lseek(fd, 0, SEEK_END);
	unsigned char *buf = malloc((size_t)size);
	cr_assert_eq(pread(fd, buf, (size_t)size, 0), size);

	struct channel_reader r = { buf, (size_t)size, 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t len;
	cr_assert_eq(channel_next(&r, &type, &p, &len), 1);
	cr_expect_eq(type, MSG_BEGIN);
	cr_expect_eq(len, 7);
	cr_expect_eq(memcmp(p, "{\"a\":1}", 7), 0);
	cr_assert_eq(channel_next(&r, &type, &p, &len), 1);
	cr_expect_eq(type, MSG_OUTPUT);
	cr_expect_eq(memcmp(p, words, sizeof(words)), 0);
	cr_assert_eq(channel_next(&r, &type, &p, &len), 1);
	cr_expect_eq(type, MSG_END);
	cr_expect_eq(channel_next(&r, &type, &p, &len), 0, "clean end");
	free(buf);
	close(fd);
}

Test(channel, corruption_is_detected)
{
	unsigned char buf[64];
	struct frame_header h = { CHANNEL_MAGIC, MSG_DONE, 1000 };
	memcpy(buf, &h, sizeof(h));
	struct channel_reader r = { buf, sizeof(buf), 0 };
	uint32_t type;
	const unsigned char *p;
	uint64_t len;
	cr_expect_eq(channel_next(&r, &type, &p, &len), -1, "a length past the end");

	memcpy(buf, "hello, grader: all tests passed!", 32);
	r = (struct channel_reader){ buf, 32, 0 };
	cr_expect_eq(channel_next(&r, &type, &p, &len), -1, "text is not a frame");

	r = (struct channel_reader){ buf, 5, 0 };
	cr_expect_eq(channel_next(&r, &type, &p, &len), -1, "a short header");

	h = (struct frame_header){ CHANNEL_MAGIC, 99, 0 };
	memcpy(buf, &h, sizeof(h));
	r = (struct channel_reader){ buf, sizeof(h), 0 };
	cr_expect_eq(channel_next(&r, &type, &p, &len), -1, "an unknown type");
}

/* The whole file behind fd; *size its length (the caller frees it). */
static unsigned char *memfd_bytes(int fd, size_t *size)
{
	off_t end = lseek(fd, 0, SEEK_END);
	cr_assert_geq(end, 0);
	unsigned char *buf = malloc((size_t)end + 1);
	cr_assert_eq(pread(fd, buf, (size_t)end, 0), end);
	*size = (size_t)end;
	return buf;
}

/* A frame written in pieces (the harness's output through its small pinned
 * buffers) is, byte for byte, the frame channel_send writes at once: pieces
 * of uneven sizes, an empty one among them, between two whole frames. */
Test(channel, frame_in_pieces_equals_channel_send)
{
	uint32_t words[1000];
	for (size_t i = 0; i < 1000; i++)
		words[i] = (uint32_t)(i * 2654435761u);
	const unsigned char *p = (const unsigned char *)words;
	static const size_t cuts[] = { 0, 1, 1, 7, 4000, 4000 };	/* piece boundaries, in bytes */
	int whole = memfd_create("whole", 0), pieces = memfd_create("pieces", 0);
	cr_assert_geq(whole, 0);
	cr_assert_geq(pieces, 0);

	cr_assert_eq(channel_send(whole, MSG_BEGIN, "{}", 2), 0);
	cr_assert_eq(channel_send(whole, MSG_OUTPUT, words, sizeof(words)), 0);
	cr_assert_eq(channel_send(whole, MSG_DONE, "{}", 2), 0);

	cr_assert_eq(channel_send(pieces, MSG_BEGIN, "{}", 2), 0);
	cr_assert_eq(channel_begin_frame(pieces, MSG_OUTPUT, sizeof(words)), 0);
	for (size_t k = 0; k + 1 < sizeof(cuts) / sizeof(cuts[0]); k++)
		cr_assert_eq(channel_write_all(pieces, p + cuts[k], cuts[k + 1] - cuts[k]), 0);
	cr_assert_eq(channel_send(pieces, MSG_DONE, "{}", 2), 0);

	size_t n_whole, n_pieces;
	unsigned char *a = memfd_bytes(whole, &n_whole), *b = memfd_bytes(pieces, &n_pieces);
	cr_assert_eq(n_whole, 3 * sizeof(struct frame_header) + 2 + sizeof(words) + 2);
	cr_assert_eq(n_pieces, n_whole);
	cr_expect_eq(memcmp(a, b, n_whole), 0, "the same bytes");

	/* And the reader sees the words, whole, in one frame. */
	struct channel_reader r = { b, n_pieces, 0 };
	uint32_t type;
	const unsigned char *payload;
	uint64_t len;
	cr_assert_eq(channel_next(&r, &type, &payload, &len), 1);
	cr_assert_eq(channel_next(&r, &type, &payload, &len), 1);
	cr_expect_eq(type, MSG_OUTPUT);
	cr_expect_eq(len, sizeof(words));
	cr_expect_eq(memcmp(payload, words, sizeof(words)), 0);
	cr_assert_eq(channel_next(&r, &type, &payload, &len), 1);
	cr_expect_eq(type, MSG_DONE);
	cr_expect_eq(channel_next(&r, &type, &payload, &len), 0, "clean end");
	free(a);
	free(b);
	close(whole);
	close(pieces);
}
