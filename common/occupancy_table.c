/* Device descriptions and occupancy tables (see occupancy_table.h). */
#include "occupancy_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- devices --------------------------------------------------------------- */

int occ_device_arch(int major, int minor, struct occ_device *d)
{
	/* As cuda_occupancy.h has them (CUDA 13.0); cudaDeviceProp has none of these. */
	if (major < 7 || major > 12)
		return -1;
	d->max_regs_per_thread = 255;
	d->reg_alloc_unit = 256;
	d->sub_partitions = 4;
	d->shared_alloc_unit = major == 7 ? 256 : 128;
	if (major == 8)
		d->max_blocks_per_sm = minor == 0 ? 32 : minor == 9 ? 24 : 16;
	else if (major == 7)
		d->max_blocks_per_sm = minor == 5 ? 16 : 32;
	else if (major == 12 || (major == 10 && minor == 1) || (major == 11 && minor == 0))
		d->max_blocks_per_sm = 24;
	else
		d->max_blocks_per_sm = 32;
	return 0;
}

static void set_common(struct occ_device *d, const char *name, int major, int minor)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->major = major;
	d->minor = minor;
	d->warp_size = 32;
	d->max_threads_per_block = 1024;
	d->max_threads_per_sm = 2048;
	d->regs_per_sm = 65536;
	d->regs_per_block = 65536;
	d->shared_reserved_per_block = 1024;
	occ_device_arch(major, minor, d);
}

int occ_device_preset(const char *name, struct occ_device *d)
{
	/* cudaDeviceProp of an A100 and of an H100 SXM: 164 and 228 KB of shared
	 * memory per SM, a block opting in to all of it but the reserved 1 KB. */
	if (strcmp(name, "sm_80") == 0) {
		set_common(d, "sm_80 (A100)", 8, 0);
		d->shared_per_sm = 167936;
		d->shared_per_block_optin = 166912;
		return 0;
	}
	if (strcmp(name, "sm_90") == 0) {
		set_common(d, "sm_90 (H100 SXM)", 9, 0);
		d->shared_per_sm = 233472;
		d->shared_per_block_optin = 232448;
		return 0;
	}
	return -1;
}

/* ---- configurations ----------------------------------------------------------- */

/* Around every rounding the calculator must get right: thread counts off a
 * warp, register counts off the 8-per-thread allocation step, shared sizes
 * off the 128-byte unit and past what a block may have. */
const int occ_config_threads[] = { 1, 32, 33, 64, 96, 100, 128, 192, 250, 256, 384, 512,
				   640, 768, 1000, 1024 };
const int occ_config_regs[] = { 16, 24, 32, 33, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 255 };
const int occ_config_shared[] = { 0, 1, 1000, 4096, 10000, 20480, 32768, 49152, 65536,
				  100000, 131072, 163840, 166912, 200000, 232448, 232449 };
const int occ_config_n_threads = sizeof(occ_config_threads) / sizeof(int);
const int occ_config_n_regs = sizeof(occ_config_regs) / sizeof(int);
const int occ_config_n_shared = sizeof(occ_config_shared) / sizeof(int);

int occ_configs(const int *regs, int n_regs, struct occ_kernel *out, int max)
{
	int n = 0;
	for (int r = 0; r < n_regs; r++)
		for (int t = 0; t < occ_config_n_threads; t++)
			for (int s = 0; s < occ_config_n_shared && n < max; s++) {
				out[n].threads_per_block = occ_config_threads[t];
				out[n].regs_per_thread = regs[r];
				out[n].shared_per_block = occ_config_shared[s];
				n++;
			}
	return n;
}

/* ---- limits and descriptions ---------------------------------------------------- */

static const struct {
	unsigned bit;
	const char *name;
} limit_names[] = {
	{ KIT_OCC_LIMIT_WARPS, "warps" },
	{ KIT_OCC_LIMIT_REGISTERS, "registers" },
	{ KIT_OCC_LIMIT_SHARED, "shared" },
	{ KIT_OCC_LIMIT_BLOCKS, "blocks" },
};
#define N_LIMITS (int)(sizeof(limit_names) / sizeof(limit_names[0]))

const char *occ_limits_format(unsigned limits, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	if (limits == KIT_OCC_LIMITS_UNKNOWN) {
		snprintf(buf, len, "?");
		return buf;
	}
	for (int i = 0; i < N_LIMITS; i++)
		if (limits & limit_names[i].bit && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "+" : "", limit_names[i].name);
	if (limits & ~0xFu && at < len)
		snprintf(buf + at, len - at, "%sbits 0x%x", at ? "+" : "", limits & ~0xFu);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

int occ_limits_parse(const char *text, unsigned *limits)
{
	if (strcmp(text, "?") == 0) {
		*limits = KIT_OCC_LIMITS_UNKNOWN;
		return 0;
	}
	*limits = 0;
	char copy[128];
	snprintf(copy, sizeof(copy), "%s", text);
	for (char *save, *tok = strtok_r(copy, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
		int i;
		for (i = 0; i < N_LIMITS && strcmp(tok, limit_names[i].name) != 0; i++)
			;
		if (i == N_LIMITS)
			return -1;
		*limits |= limit_names[i].bit;
	}
	return *limits ? 0 : -1;
}

const char *occ_kernel_format(const struct occ_kernel *k, char *buf, size_t len)
{
	snprintf(buf, len, "%d thread%s x %d registers, %d B shared", k->threads_per_block,
		 k->threads_per_block == 1 ? "" : "s", k->regs_per_thread, k->shared_per_block);
	return buf;
}

const char *occ_result_format(const struct occ_result *r, char *buf, size_t len)
{
	char limits[96];
	snprintf(buf, len, "%d blocks/SM, %d warps (%.1f%%), limited by %s", r->blocks_per_sm,
		 r->warps_per_sm, 100.0 * r->occupancy, occ_limits_format(r->limits, limits, sizeof(limits)));
	return buf;
}

static double occupancy_of(const struct occ_device *d, int warps)
{
	int max_warps = d->warp_size > 0 ? d->max_threads_per_sm / d->warp_size : 0;
	return max_warps > 0 ? (double)warps / max_warps : 0.0;
}

void occ_result_set_blocks(const struct occ_device *d, int threads, int blocks, struct occ_result *r)
{
	int warps_per_block = d->warp_size > 0 ? (threads + d->warp_size - 1) / d->warp_size : 0;
	r->blocks_per_sm = blocks;
	r->warps_per_sm = blocks * warps_per_block;
	r->occupancy = occupancy_of(d, r->warps_per_sm);
}

/* ---- reading and writing -------------------------------------------------------- */

/* The device line's fields, by name, so the file says what each number is. */
#define DEVICE_FIELDS(X)                                                                 \
	X(major) X(minor) X(warp_size) X(max_threads_per_block) X(max_threads_per_sm)     \
	X(max_blocks_per_sm) X(regs_per_sm) X(regs_per_block) X(shared_per_sm)           \
	X(shared_per_block_optin) X(shared_reserved_per_block) X(max_regs_per_thread)    \
	X(reg_alloc_unit) X(sub_partitions) X(shared_alloc_unit)

/* Every field exactly once: a table that leaves one out, or gives one twice,
 * is not one the kit wrote. */
static int parse_device(char *line, struct occ_device *d)
{
	unsigned seen = 0, field;
	for (char *save, *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return -1;
		*eq = '\0';
		char *end;
		errno = 0;
		long v = strtol(eq + 1, &end, 10);
		if (errno || *end || end == eq + 1 || v < 0 || v > 1L << 30)
			return -1;
		field = 0;
#define PARSE_FIELD(f)                                      \
	field++;                                            \
	if (strcmp(tok, #f) == 0) {                         \
		if (seen & 1u << field)                     \
			return -1;                          \
		seen |= 1u << field;                        \
		d->f = (int)v;                              \
		continue;                                   \
	}
		DEVICE_FIELDS(PARSE_FIELD)
#undef PARSE_FIELD
		return -1;
	}
#define COUNT_FIELD(f) +1
	enum { N_FIELDS = 0 DEVICE_FIELDS(COUNT_FIELD) };
#undef COUNT_FIELD
	return seen == ((1u << N_FIELDS) - 1) << 1 ? 0 : -1;
}

static int parse_row(const char *line, const struct occ_device *d, struct occ_row *row)
{
	char limits[128];
	int used = 0;
	if (sscanf(line, "%d,%d,%d,%d,%d,%127[a-z?+]%n", &row->k.threads_per_block, &row->k.regs_per_thread,
		   &row->k.shared_per_block, &row->r.blocks_per_sm, &row->r.warps_per_sm, limits, &used) != 6 ||
	    line[used] != '\0')
		return -1;
	if (occ_limits_parse(limits, &row->r.limits) < 0)
		return -1;
	row->r.occupancy = occupancy_of(d, row->r.warps_per_sm);
	return 0;
}

static int is_hex(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] && strchr("0123456789abcdef", s[i]))
		i++;
	return i == n && s[n] == '\0';
}

/* A hashed table's row: the question, and the answer's digest. */
static int parse_hashed_row(const char *line, struct occ_row *row)
{
	int used = 0;
	if (sscanf(line, "%d,%d,%d,%n", &row->k.threads_per_block, &row->k.regs_per_thread,
		   &row->k.shared_per_block, &used) != 3 || !is_hex(line + used, OCC_DIGEST_HEX))
		return -1;
	snprintf(row->digest, sizeof(row->digest), "%s", line + used);
	row->r = (struct occ_result){ -1, -1, -1.0, KIT_OCC_LIMITS_UNKNOWN };
	return 0;
}

int occ_table_load(const char *path, struct occ_table *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	t->rows = calloc(OCC_TABLE_MAX_ROWS, sizeof(*t->rows));
	char line[512];
	int lineno = 0, have_device = 0, have_header = 0, rc = 0;
	while (t->rows && rc == 0 && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strncmp(line, "source ", 7) == 0) {
			snprintf(t->source, sizeof(t->source), "%.255s", line + 7);
		} else if (strncmp(line, "name ", 5) == 0) {
			snprintf(t->dev.name, sizeof(t->dev.name), "%.63s", line + 5);
		} else if (strncmp(line, "device ", 7) == 0) {
			rc = parse_device(line + 7, &t->dev);
			have_device = rc == 0;
		} else if (strncmp(line, "salt ", 5) == 0 && !have_header) {
			rc = is_hex(line + 5, OCC_DIGEST_HEX) ? 0 : -1;
			snprintf(t->salt, sizeof(t->salt), "%.32s", line + 5);
		} else if (strcmp(line, t->salt[0] ? "threads,regs,shared,digest" :
					     "threads,regs,shared,blocks,warps,limits") == 0) {
			have_header = 1;
		} else if (!have_device || !have_header || t->n_rows == OCC_TABLE_MAX_ROWS) {
			rc = -1;
		} else {
			rc = t->salt[0] ? parse_hashed_row(line, &t->rows[t->n_rows]) :
					  parse_row(line, &t->dev, &t->rows[t->n_rows]);
			t->n_rows += rc == 0;
		}
	}
	fclose(f);
	if (!t->rows)
		snprintf(err, errlen, "%s: out of memory", path);
	else if (rc < 0)
		snprintf(err, errlen, "%s:%d: not a line of an occupancy table", path, lineno);
	else if (t->n_rows == 0)
		snprintf(err, errlen, "%s: no configurations in the table", path);
	if (!t->rows || rc < 0 || t->n_rows == 0) {
		occ_table_free(t);
		return -1;
	}
	return 0;
}

int occ_table_write(FILE *f, const struct occ_table *t)
{
	const struct occ_device *d = &t->dev;
	fprintf(f, "source %s\nname %s\ndevice", t->source, d->name);
#define WRITE_FIELD(x) fprintf(f, " %s=%d", #x, d->x);
	DEVICE_FIELDS(WRITE_FIELD)
#undef WRITE_FIELD
	if (t->salt[0])
		fprintf(f, "\nsalt %s\nthreads,regs,shared,digest\n", t->salt);
	else
		fprintf(f, "\nthreads,regs,shared,blocks,warps,limits\n");
	for (int i = 0; i < t->n_rows; i++) {
		const struct occ_row *r = &t->rows[i];
		char limits[96];
		fprintf(f, "%d,%d,%d,", r->k.threads_per_block, r->k.regs_per_thread, r->k.shared_per_block);
		if (t->salt[0])
			fprintf(f, "%s\n", r->digest);
		else
			fprintf(f, "%d,%d,%s\n", r->r.blocks_per_sm, r->r.warps_per_sm,
				occ_limits_format(r->r.limits, limits, sizeof(limits)));
	}
	return ferror(f) ? -1 : 0;
}

void occ_table_free(struct occ_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n_rows = 0;
}
