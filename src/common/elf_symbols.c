/*
 * elf_symbols.c — see elf_symbols.h. The loaded object and its load bias come from dladdr1
 * (RTLD_DL_LINKMAP); its file is mapped read-only and its section headers checked against the
 * file's size before any table is read, so a damaged file gives no name rather than a crash.
 */
#define _GNU_SOURCE
#include "common/elf_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h> /* ElfW, struct link_map, dl_iterate_phdr */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void copy_name(char *dst, size_t cap, const char *src, size_t avail)
{
    size_t n = strnlen(src, avail < cap - 1 ? avail : cap - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* The function symbol of `image` (size bytes, an ELF file) whose range holds vaddr, from the
 * table of type `table_type`; copies its name and sets *value. False when there is none. */
static bool find_in_table(const uint8_t *image, size_t size, unsigned table_type, uintptr_t vaddr,
                          char *name, size_t cap, uintptr_t *value)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)image;
    if (eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
        return false;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(image + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != table_type || sh[i].sh_link >= eh->e_shnum) continue;
        const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
            strs->sh_offset > size || strs->sh_size > size - strs->sh_offset ||
            sh[i].sh_entsize != sizeof(ElfW(Sym)))
            continue;
        const ElfW(Sym) *sym = (const ElfW(Sym) *)(image + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
        for (size_t k = 0; k < n; k++) {
            unsigned type = ELF64_ST_TYPE(sym[k].st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[k].st_shndx == SHN_UNDEF)
                continue;
            uintptr_t start = (uintptr_t)sym[k].st_value;
            uintptr_t len = sym[k].st_size ? (uintptr_t)sym[k].st_size : 1;
            if (vaddr < start || vaddr - start >= len || sym[k].st_name >= strs->sh_size) continue;
            const char *s = (const char *)image + strs->sh_offset + sym[k].st_name;
            copy_name(name, cap, s, strs->sh_size - sym[k].st_name);
            *value = start;
            return true;
        }
    }
    return false;
}

bool cs_elf_locate(const void *addr, cs_elf_location *loc)
{
    memset(loc, 0, sizeof *loc);
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return false;
    const char *path = lm->l_name && lm->l_name[0] ? lm->l_name : "/proc/self/exe";
    const char *base = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
    base = base ? base + 1 : info.dli_fname ? info.dli_fname : "";
    copy_name(loc->object, sizeof loc->object, base, sizeof loc->object);
    uintptr_t vaddr = (uintptr_t)addr - (uintptr_t)lm->l_addr, value = 0;
    loc->offset = (uintptr_t)addr - (uintptr_t)info.dli_fbase;
    bool found = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size > sizeof(ElfW(Ehdr))) {
        size_t size = (size_t)st.st_size;
        void *image = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (image != MAP_FAILED) {
            if (memcmp(image, ELFMAG, SELFMAG) == 0)
                found = find_in_table(image, size, SHT_SYMTAB, vaddr, loc->function,
                                      sizeof loc->function, &value) ||
                        find_in_table(image, size, SHT_DYNSYM, vaddr, loc->function,
                                      sizeof loc->function, &value);
            munmap(image, size);
        }
    }
    if (fd >= 0) close(fd);
    if (found) {
        loc->offset = vaddr - value;
        loc->exported = info.dli_sname && strcmp(info.dli_sname, loc->function) == 0 &&
                        (uintptr_t)info.dli_saddr == (uintptr_t)lm->l_addr + value;
    }
    return true;
}

typedef struct range_query {
    uintptr_t bias;
    const char *name;
    uintptr_t start, end;
    bool found;
} range_query;

static int on_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    range_query *q = arg;
    if ((uintptr_t)info->dlpi_addr != q->bias || strcmp(info->dlpi_name, q->name) != 0) return 0;
    q->start = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t s = q->bias + (uintptr_t)ph->p_vaddr, e = s + (uintptr_t)ph->p_memsz;
        if (s < q->start) q->start = s;
        if (e > q->end) q->end = e;
    }
    q->found = q->end > q->start;
    return 1;
}

bool cs_elf_object_range(void *handle, uintptr_t *start, uintptr_t *end)
{
    struct link_map *lm = NULL;
    if (!handle || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return false;
    range_query q = {.bias = (uintptr_t)lm->l_addr, .name = lm->l_name ? lm->l_name : ""};
    dl_iterate_phdr(on_object, &q);
    if (!q.found) return false;
    *start = q.start;
    *end = q.end;
    return true;
}
