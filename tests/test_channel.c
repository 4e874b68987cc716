#include <criterion/criterion.h>
#include <stdio.h>
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
