/*
 * elf_symbols.h — the name of the function at an address of a loaded shared object, from the
 * object's own symbol table (.symtab, which holds static functions too; .dynsym when the file is
 * stripped), read from its file with <elf.h>'s structures. dladdr only sees exported symbols, so
 * the function-reference check (plan/fn_ref.c) and the crash report (exec/task_context.c) use
 * this to name a static function instead of printing its address.
 *
 * Async-signal-safe: it only opens, maps, reads and unmaps the file (no malloc, no locks apart
 * from dladdr1's), so the crash handler may call it. Any thread.
 */
#ifndef CSPARK_COMMON_ELF_SYMBOLS_H
#define CSPARK_COMMON_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cs_elf_location {
    char object[256];   /* the object's file name without its directory ("app.so"), or "" */
    char function[256]; /* the function containing the address, or "" when none is known */
    uintptr_t offset;   /* from the function's start, or from the object's base without one */
    bool exported;      /* the function is in the dynamic symbol table (dlsym finds it) */
} cs_elf_location;

/* Fills *loc for addr (any address of a loaded object: code of a function, a return address).
 * False when addr is in no loaded object. Names come from the object's file, so a file replaced
 * since it was loaded may give a wrong name; a stripped file gives exported names only. */
bool cs_elf_locate(const void *addr, cs_elf_location *loc);

/* The load range of the object dlopen returned `handle` for: [*start, *end) over its PT_LOAD
 * segments. False when it cannot be told. Not async-signal-safe (dl_iterate_phdr takes the
 * loader's lock): the crash handler keeps the range it is given beforehand. */
bool cs_elf_object_range(void *handle, uintptr_t *start, uintptr_t *end);

#endif
