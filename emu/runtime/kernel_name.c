/*
 * The name of a kernel launched through a function pointer or a variable
 * (auto f = c ? k<true> : k<false>; f<<<g, b>>>(...)): the source names
 * only the variable, so the launch is named from the program's symbol
 * table, as a GPU's launch log names it, in the form the metrics use
 * (demangled, without return type, template arguments or parameters).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* libstdc++'s demangler (the program is linked with the C++ library). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
const char *cuemu_kernel_name(const void *fn, const char *fallback);

static const Elf64_Sym *syms;
static size_t n_syms;
static const char *strtab;
static int loaded;

static void load_symbols(void)
{
	loaded = 1;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	const unsigned char *img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > (size_t)st.st_size)
		return;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > (size_t)st.st_size ||
		    str->sh_offset + str->sh_size > (size_t)st.st_size)
			return;
		syms = (const Elf64_Sym *)(img + sh[i].sh_offset);
		n_syms = sh[i].sh_size / sizeof(Elf64_Sym);
		strtab = (const char *)(img + str->sh_offset);
		return;
	}
}

/* "void ns::k<true>(unsigned int const*)" -> "ns::k", in place. */
static char *base_name(char *d)
{
	static const char anon[] = "(anonymous namespace)";
	char *start = d, *end = NULL;
	int depth = 0;
	for (char *p = d; *p && !end; p++) {
		if (depth == 0 && strncmp(p, anon, sizeof anon - 1) == 0) {
			p += sizeof anon - 2;
		} else if (*p == '<') {
			depth++;
		} else if (*p == '>') {
			depth--;
		} else if (depth == 0 && *p == '(') {
			end = p;
		} else if (depth == 0 && *p == ' ') {
			start = p + 1;	/* after a return type */
		}
	}
	if (end)
		*end = 0;
	/* the template arguments of the name itself */
	size_t n = strlen(start);
	if (n && start[n - 1] == '>') {
		depth = 0;
		for (char *p = start + n - 1; p >= start; p--) {
			if (*p == '>')
				depth++;
			else if (*p == '<' && --depth == 0) {
				*p = 0;
				break;
			}
		}
	}
	if (strncmp(start, anon, sizeof anon - 1) == 0 && strncmp(start + sizeof anon - 1, "::", 2) == 0)
		start += sizeof anon + 1;
	return start;
}

/* The last "::" component of a name. */
static const char *last_part(const char *s)
{
	const char *p = strrchr(s, ':');
	return p ? p + 1 : s;
}

/* fallback: the launch's kernel expression as written. A kernel launched
 * by its own name keeps that name (as written: "k", "ns::k"); another
 * expression is the name of the function it points to. */
const char *cuemu_kernel_name(const void *fn, const char *fallback)
{
	static struct {
		const void *fn;
		char *name;
	} cache[16];
	static unsigned next;
	for (unsigned i = 0; i < 16; i++)
		if (cache[i].fn == fn && cache[i].name)
			return cache[i].name;
	if (!loaded)
		load_symbols();
	const char *mangled = NULL;
	for (size_t i = 0; i < n_syms && fn; i++)
		if (ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC && syms[i].st_value == (uintptr_t)fn) {
			mangled = strtab + syms[i].st_name;
			break;
		}
	if (!mangled)
		return fallback;
	int status = -1;
	char *d = __cxa_demangle(mangled, NULL, NULL, &status);
	char *name = strdup(status == 0 && d ? base_name(d) : mangled);
	free(d);
	if (!name || strcmp(last_part(name), last_part(fallback)) == 0) {
		free(name);
		return fallback;
	}
	unsigned slot = next++ % 16;
	free(cache[slot].name);
	cache[slot].fn = fn;
	cache[slot].name = name;
	return name;
}

/* A writable variable of the .cu objects that a kernel may write would be
 * private to a worker of a parallel launch (blocks_parallel.c): only the
 * rewriter's pointers to __shared__ slots (written by cuemu_device.h, the
 * same in every process) and the C++ library's stream initialiser may be
 * there. Without a symbol table nothing is known: no. */
static int allowed_gvar(const Elf64_Sym *s, uintptr_t lo, uintptr_t span)
{
	const char *name = strtab + s->st_name;
	if (s->st_value - lo >= span || ELF64_ST_TYPE(s->st_info) == STT_SECTION)
		return 1;
	return strstr(name, "cuemu_shp_") != NULL || strcmp(name, "_ZStL8__ioinit") == 0 ||
	       (ELF64_ST_TYPE(s->st_info) != STT_OBJECT && s->st_size == 0);
}

int gvars_only_shared_slots(void)
{
	static int known, answer;
	if (known)
		return answer;
	known = 1;
	if (!rt.gdata_span && !rt.gbss_span)
		return answer = 1;
	if (!loaded)
		load_symbols();
	if (!n_syms)
		return answer = 0;
	for (size_t i = 0; i < n_syms; i++)
		if (!allowed_gvar(&syms[i], rt.gdata_lo, rt.gdata_span) ||
		    !allowed_gvar(&syms[i], rt.gbss_lo, rt.gbss_span))
			return answer = 0;
	return answer = 1;
}
