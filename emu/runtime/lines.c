/*
 * Call sites to source lines: a reader of the DWARF line table (.debug_line,
 * versions 2 to 5) of the running program, /proc/self/exe.
 *
 * cuemu-cc compiles with -g and links -no-pie, so a return address from a
 * TSan hook is an address in the table; the rewriter's #line directives
 * make the table name the student's .cu file and lines. Reading the table
 * ourselves needs no addr2line at grading time and works in a sandbox.
 * It is read once, at the first launch or fault, and kept sorted by
 * address; signal handlers only search it.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

struct row {
	uintptr_t addr;
	uint32_t file;		/* index into names */
	uint32_t line;		/* 0: the end of a sequence, no line here */
};

static struct row *rows;
static size_t n_rows, cap_rows;
static char **names;
static size_t n_names, cap_names;
static int loaded;

/* ---- reading ---------------------------------------------------------------- */

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t get(struct cursor *c, unsigned n)
{
	uint64_t v = 0;
	if (c->p + n > c->end) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return v;
}

static int64_t sleb(struct cursor *c)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0x80;
	while (c->p < c->end && (b & 0x80)) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static const char *cstr(struct cursor *c)
{
	const char *s = (const char *)c->p;
	while (c->p < c->end && *c->p)
		c->p++;
	if (c->p >= c->end) {
		c->bad = 1;
		return "";
	}
	c->p++;
	return s;
}

struct sections {
	const uint8_t *line, *line_str, *str;
	size_t line_len, line_str_len, str_len;
};

static const char *str_at(const uint8_t *base, size_t len, uint64_t off)
{
	return base && off < len ? (const char *)base + off : "";
}

/* Reads one attribute value; returns the string it names, or NULL. */
static const char *form_value(struct cursor *c, uint64_t form, unsigned offset_size,
			      const struct sections *s)
{
	switch (form) {
	case 0x08: return cstr(c);					/* string */
	case 0x1f: return str_at(s->line_str, s->line_str_len, get(c, offset_size)); /* line_strp */
	case 0x0e: return str_at(s->str, s->str_len, get(c, offset_size));	/* strp */
	case 0x0f: uleb(c); return NULL;				/* udata */
	case 0x0b: get(c, 1); return NULL;
	case 0x05: get(c, 2); return NULL;
	case 0x06: get(c, 4); return NULL;
	case 0x07: get(c, 8); return NULL;
	case 0x1e: get(c, 16); return NULL;				/* data16 (MD5) */
	case 0x09: c->p += uleb(c); if (c->p > c->end) c->bad = 1; return NULL; /* block */
	case 0x1a: uleb(c); return NULL;				/* strx */
	case 0x25: get(c, 1); return NULL;
	case 0x26: get(c, 2); return NULL;
	case 0x27: get(c, 3); return NULL;
	case 0x28: get(c, 4); return NULL;
	default: c->bad = 1; return NULL;
	}
}

static uint32_t name_id(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < n_names; i++)
		if (strcmp(names[i], base) == 0)
			return (uint32_t)i;
	if (n_names == cap_names) {
		size_t cap = cap_names ? 2 * cap_names : 64;
		char **n = realloc(names, cap * sizeof *n);
		if (!n)
			return 0;
		names = n;
		cap_names = cap;
	}
	names[n_names] = strdup(base);
	return names[n_names] ? (uint32_t)n_names++ : 0;
}

static void add_row(uintptr_t addr, uint32_t file, uint32_t line)
{
	if (n_rows == cap_rows) {
		size_t cap = cap_rows ? 2 * cap_rows : 4096;
		struct row *r = realloc(rows, cap * sizeof *r);
		if (!r)
			return;
		rows = r;
		cap_rows = cap;
	}
	rows[n_rows++] = (struct row){ addr, file, line };
}

struct unit {
	unsigned version, offset_size, addr_size, min_inst, line_range, opcode_base;
	int line_base;
	const uint8_t *std_lens;
	uint32_t *files;	/* file register value -> name id */
	uint64_t n_files;
};

/* The directory and file tables of a version 5 header. */
static int read_v5_tables(struct cursor *c, struct unit *u, const struct sections *s)
{
	for (int table = 0; table < 2; table++) {
		uint64_t fmt[16][2];
		unsigned nfmt = (unsigned)get(c, 1);
		if (nfmt > 16)
			return -1;
		for (unsigned i = 0; i < nfmt; i++) {
			fmt[i][0] = uleb(c);
			fmt[i][1] = uleb(c);
		}
		uint64_t count = uleb(c);
		if (c->bad || count > 1u << 20)
			return -1;
		if (table == 1) {
			u->files = calloc(count ? count : 1, sizeof *u->files);
			if (!u->files)
				return -1;
			u->n_files = count;
		}
		for (uint64_t k = 0; k < count && !c->bad; k++)
			for (unsigned i = 0; i < nfmt; i++) {
				const char *v = form_value(c, fmt[i][1], u->offset_size, s);
				if (table == 1 && fmt[i][0] == 1 && v)	/* DW_LNCT_path */
					u->files[k] = name_id(v);
			}
	}
	return c->bad ? -1 : 0;
}

/* The include_directories and file_names of versions 2 to 4 (1-based). */
static int read_v4_tables(struct cursor *c, struct unit *u)
{
	while (!c->bad && *cstr(c))
		;
	const uint8_t *start = c->p;
	uint64_t count = 0;
	for (const char *f; !c->bad && *(f = cstr(c)); count++) {
		uleb(c);
		uleb(c);
		uleb(c);
	}
	u->files = calloc(count + 1, sizeof *u->files);
	if (!u->files)
		return -1;
	u->n_files = count + 1;
	c->p = start;
	for (uint64_t k = 1; k <= count; k++) {
		u->files[k] = name_id(cstr(c));
		uleb(c);
		uleb(c);
		uleb(c);
	}
	cstr(c);
	return c->bad ? -1 : 0;
}

/* Runs the line-number program of one unit, adding its rows. */
static void run_program(struct cursor *c, const struct unit *u)
{
	uintptr_t addr = 0;
	uint64_t file = 1, line = 1;
	int skip = 0;		/* a sequence of discarded code (address 0 or a tombstone) */
	while (c->p < c->end && !c->bad) {
		unsigned op = *c->p++;
		if (op >= u->opcode_base) {
			unsigned adj = op - u->opcode_base;
			addr += (adj / u->line_range) * u->min_inst;
			line += (uint64_t)(int64_t)(u->line_base + (int)(adj % u->line_range));
			if (!skip)
				add_row(addr, file < u->n_files ? u->files[file] : 0, (uint32_t)line);
			continue;
		}
		switch (op) {
		case 0: {
			uint64_t len = uleb(c);
			const uint8_t *next = c->p + len;
			unsigned sub = len ? (unsigned)get(c, 1) : 0;
			if (sub == 1) {				/* end_sequence */
				if (!skip)
					add_row(addr, 0, 0);
				addr = 0;
				file = line = 1;
				skip = 0;
			} else if (sub == 2) {			/* set_address */
				addr = (uintptr_t)get(c, u->addr_size);
				skip = addr == 0 || addr >= (uintptr_t)-2;
			}
			c->p = next;
			break;
		}
		case 1:
			if (!skip)
				add_row(addr, file < u->n_files ? u->files[file] : 0, (uint32_t)line);
			break;
		case 2: addr += uleb(c) * u->min_inst; break;
		case 3: line += (uint64_t)sleb(c); break;
		case 4: file = uleb(c); break;
		case 5: uleb(c); break;
		case 6: case 7: case 10: case 11: break;
		case 8: addr += ((255 - u->opcode_base) / u->line_range) * u->min_inst; break;
		case 9: addr += get(c, 2); break;
		case 12: uleb(c); break;
		default:
			for (unsigned i = 0; i < u->std_lens[op - 1]; i++)
				uleb(c);
		}
	}
}

/* One unit of .debug_line starting at c->p; leaves c->p at the next. */
static int read_unit(struct cursor *all, const struct sections *s)
{
	struct unit u = { .offset_size = 4 };
	uint64_t length = get(all, 4);
	if (length == 0xffffffffu) {
		u.offset_size = 8;
		length = get(all, 8);
	}
	if (all->bad || length > (uint64_t)(all->end - all->p))
		return -1;
	struct cursor c = { all->p, all->p + length, 0 };
	all->p += length;
	u.version = (unsigned)get(&c, 2);
	if (u.version < 2 || u.version > 5)
		return 0;
	u.addr_size = 8;
	if (u.version >= 5) {
		u.addr_size = (unsigned)get(&c, 1);
		get(&c, 1);
	}
	uint64_t header_length = get(&c, u.offset_size);
	const uint8_t *program = c.p + header_length;
	u.min_inst = (unsigned)get(&c, 1);
	if (u.version >= 4)
		get(&c, 1);
	get(&c, 1);
	u.line_base = (int8_t)get(&c, 1);
	u.line_range = (unsigned)get(&c, 1);
	u.opcode_base = (unsigned)get(&c, 1);
	u.std_lens = c.p;
	c.p += u.opcode_base ? u.opcode_base - 1 : 0;
	if (c.bad || u.line_range == 0 || u.opcode_base == 0 || program > c.end || c.p > c.end)
		return 0;
	int rc = u.version >= 5 ? read_v5_tables(&c, &u, s) : read_v4_tables(&c, &u);
	if (rc == 0) {
		c.p = program;
		run_program(&c, &u);
	}
	free(u.files);
	return 0;
}

/* ---- the ELF file -------------------------------------------------------------- */

static uintptr_t load_bias(const Elf64_Ehdr *eh, const uint8_t *base)
{
	if (eh->e_type != ET_DYN)
		return 0;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_PHDR)
			return (uintptr_t)getauxval(AT_PHDR) - ph[i].p_vaddr;
	return 0;
}

static int find_sections(const uint8_t *base, size_t size, struct sections *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
		return -1;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	if (eh->e_shstrndx >= eh->e_shnum)
		return -1;
	const char *shstr = (const char *)base + sh[eh->e_shstrndx].sh_offset;
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *name = shstr + sh[i].sh_name;
		const uint8_t *data = base + sh[i].sh_offset;
		size_t len = sh[i].sh_size;
		if (sh[i].sh_offset + len > size || (sh[i].sh_flags & SHF_COMPRESSED))
			continue;
		if (strcmp(name, ".debug_line") == 0) {
			s->line = data;
			s->line_len = len;
		} else if (strcmp(name, ".debug_line_str") == 0) {
			s->line_str = data;
			s->line_str_len = len;
		} else if (strcmp(name, ".debug_str") == 0) {
			s->str = data;
			s->str_len = len;
		}
	}
	return s->line ? 0 : -1;
}

/* Rows by address; at one address an end-of-sequence goes first, so that
 * the next sequence's first row is the one a search finds. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->line != 0) - (y->line != 0);
}

void lines_init(void)
{
	if (loaded)
		return;
	loaded = 1;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	struct sections s = { 0 };
	if (find_sections(map, (size_t)st.st_size, &s) == 0) {
		struct cursor c = { s.line, s.line + s.line_len, 0 };
		while (c.p < c.end && read_unit(&c, &s) == 0)
			;
		uintptr_t bias = load_bias(map, map);
		for (size_t i = 0; i < n_rows; i++)
			rows[i].addr += bias;
		qsort(rows, n_rows, sizeof *rows, row_cmp);
	}
	munmap(map, (size_t)st.st_size);
}

int lines_lookup(uintptr_t pc, const char **file, unsigned *line)
{
	size_t lo = 0, hi = n_rows;
	if (n_names == 0)
		return 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rows[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || rows[lo - 1].line == 0)
		return 0;
	*file = names[rows[lo - 1].file];
	*line = rows[lo - 1].line;
	return 1;
}

const char *site_text(uintptr_t site, char *buf, size_t len)
{
	const char *file;
	unsigned line;
	lines_init();
	if (site && lines_lookup(site - 1, &file, &line))
		snprintf(buf, len, "%s:%u", file, line);
	else
		snprintf(buf, len, "address %#lx (no line information)", (unsigned long)site);
	return buf;
}
