/*
 * app_file.c — see app_file.h. Reads the ELF header and the program headers with pread and
 * compares every offset + size they declare with the file's size; nothing is mapped.
 */
#define _GNU_SOURCE
#include "common/app_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h> /* ElfW */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PHDRS_MAX 4096 /* a linker writes a few dozen; more means a damaged header */

#if defined(__x86_64__)
#define OWN_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OWN_MACHINE EM_AARCH64
#elif defined(__i386__)
#define OWN_MACHINE EM_386
#elif defined(__arm__)
#define OWN_MACHINE EM_ARM
#elif defined(__riscv)
#define OWN_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define OWN_MACHINE EM_PPC64
#elif defined(__s390x__)
#define OWN_MACHINE EM_S390
#else
#define OWN_MACHINE EM_NONE /* not checked */
#endif

/* true when [off, off + len) lies inside a file of `size` bytes (no overflow) */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

static int truncated(const char *path, uint64_t need, uint64_t size, cs_error *err)
{
    return cs_error_set(err, CS_EINVAL,
                        "application file %s is truncated or damaged: its headers describe %llu "
                        "bytes but the file has %llu",
                        path, (unsigned long long)need, (unsigned long long)size);
}

/* A position-independent executable is ET_DYN too, but dlopen refuses it (DF_1_PIE). */
static bool is_pie(int fd, const ElfW(Phdr) * dyn)
{
    ElfW(Dyn) d[32];
    for (uint64_t off = 0; off + sizeof d[0] <= dyn->p_filesz; off += sizeof d) {
        ssize_t n = pread(fd, d, sizeof d, (off_t)(dyn->p_offset + off));
        if (n <= 0) return false;
        for (size_t i = 0; i < (size_t)n / sizeof d[0]; i++) {
            if (d[i].d_tag == DT_NULL) return false;
            if (d[i].d_tag == DT_FLAGS_1) return (d[i].d_un.d_val & DF_1_PIE) != 0;
        }
    }
    return false;
}

static int check_headers(int fd, const char *path, uint64_t size, cs_error *err)
{
    ElfW(Ehdr) eh;
    ssize_t n = pread(fd, &eh, sizeof eh, 0);
    if (n < 0)
        return cs_error_set(err, CS_EIO, "cannot read application file %s: %s", path,
                            strerror(errno));
    if ((size_t)n < SELFMAG || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return cs_error_set(err, CS_EINVAL,
                            "application file %s is not a shared object (no ELF header; build "
                            "it with cc -shared -fPIC)",
                            path);
    if ((size_t)n < sizeof eh) return truncated(path, sizeof eh, size, err);
    if (eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        (OWN_MACHINE != EM_NONE && eh.e_machine != OWN_MACHINE))
        return cs_error_set(err, CS_EINVAL,
                            "application file %s was built for another architecture (ELF "
                            "machine %u)",
                            path, (unsigned)eh.e_machine);
    if (eh.e_type != ET_DYN)
        return cs_error_set(err, CS_EINVAL,
                            "application file %s is not a shared object (ELF type %u; build it "
                            "with cc -shared -fPIC)",
                            path, (unsigned)eh.e_type);
    if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 || eh.e_phnum > PHDRS_MAX)
        return cs_error_set(err, CS_EINVAL,
                            "application file %s is damaged: %u program headers of %u bytes", path,
                            (unsigned)eh.e_phnum, (unsigned)eh.e_phentsize);
    uint64_t ph_len = (uint64_t)eh.e_phnum * eh.e_phentsize;
    if (!inside(eh.e_phoff, ph_len, size)) return truncated(path, eh.e_phoff + ph_len, size, err);
    if (eh.e_shnum && !inside(eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize, size))
        return truncated(path, eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize, size, err);
    ElfW(Phdr) ph[64];
    for (unsigned i = 0; i < eh.e_phnum;) {
        unsigned k = eh.e_phnum - i < 64 ? eh.e_phnum - i : 64;
        size_t want = (size_t)k * sizeof ph[0];
        if (pread(fd, ph, want, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph[0])) != (ssize_t)want)
            return cs_error_set(err, CS_EIO, "cannot read application file %s: %s", path,
                                errno ? strerror(errno) : "short read");
        for (unsigned j = 0; j < k; j++) {
            if ((ph[j].p_type == PT_LOAD || ph[j].p_type == PT_DYNAMIC) &&
                !inside(ph[j].p_offset, ph[j].p_filesz, size))
                return truncated(path, ph[j].p_offset + ph[j].p_filesz, size, err);
            if (ph[j].p_type == PT_DYNAMIC && is_pie(fd, &ph[j]))
                return cs_error_set(err, CS_EINVAL,
                                    "application file %s is a program, not a shared object "
                                    "(build it with cc -shared -fPIC)",
                                    path);
        }
        i += k;
    }
    return 0;
}

int cs_app_file_check(const char *path, cs_error *err)
{
    struct stat st;
    if (!path || !*path) return cs_error_set(err, CS_EINVAL, "the application file name is empty");
    if (stat(path, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR
                   ? cs_error_set(err, CS_ENOTFOUND, "application file %s not found", path)
                   : cs_error_set(err, CS_EIO, "cannot read application file %s: %s", path,
                                  strerror(errno));
    if (S_ISDIR(st.st_mode))
        return cs_error_set(err, CS_EINVAL,
                            "application file %s is a directory (expected a shared object .so)",
                            path);
    if (!S_ISREG(st.st_mode))
        return cs_error_set(err, CS_EINVAL,
                            "application file %s is not a regular file (expected a shared object "
                            ".so)",
                            path);
    /* O_NONBLOCK: a file replaced by a FIFO between stat and open must not block */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cs_error_set(err, CS_EIO, "cannot read application file %s: %s", path,
                            strerror(errno));
    int rc = fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)
                 ? cs_error_set(err, CS_EINVAL, "application file %s is not a regular file", path)
                 : check_headers(fd, path, (uint64_t)st.st_size, err);
    close(fd);
    return rc;
}

int cs_app_engine_library(char *buf, size_t cap)
{
    Dl_info info;
    if (!dladdr((void *)cs_app_engine_library, &info) || !info.dli_fname || !*info.dli_fname)
        return -1;
    char real[PATH_MAX];
    const char *path = realpath(info.dli_fname, real) ? real : info.dli_fname;
    if (strlen(path) >= cap) return -1;
    snprintf(buf, cap, "%s", path);
    return 0;
}

char *cs_app_file_resolve(const char *name)
{
    char lib[PATH_MAX];
    if (strcmp(name, CS_APP_SPARK_INTERNAL) == 0 && cs_app_engine_library(lib, sizeof lib) == 0)
        return cs_xstrdup(lib);
    return cs_xstrdup(name);
}
