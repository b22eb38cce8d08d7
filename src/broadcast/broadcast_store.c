/*
 * broadcast_store.c — the broadcast values of one process (see broadcast_store.h): entries by id
 * in a hash map under one mutex, each with its value buffer, piece checksums and presence flags,
 * a pin count and the decoded form. Called by src/api/broadcast.c (driver), the task context
 * (cspark_broadcast_value), the block server and the executor (broadcast_fetch.c).
 */
#include "broadcast/broadcast_store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/hmap.h"
#include "common/work_team.h"

typedef enum { ENTRY_FETCHING, ENTRY_READY, ENTRY_FAILED } entry_state;

/* A value derived from the entry under a key (cs_broadcast_entry_derived): NULL while building,
 * when `team` is the builder's (the callers waiting for it join the team and help). */
typedef struct derived {
    char *key;
    void *value;
    cs_work_team *team;
    broadcast_decoded_free_fn free_fn;
    struct derived *next;
} derived;

struct broadcast_entry {
    int64_t id;
    entry_state state;
    bool removed; /* no longer in the map: freed at the last release */
    int pins;
    uint8_t *data;
    uint64_t size, piece_size;
    int num_pieces;
    uint64_t *checksums;
    bool *present;
    char error[1024]; /* ENTRY_FAILED: why (the waiters' error) */
    /* decoded form (under the store's lock) */
    broadcast_decode_fn decode;
    broadcast_decoded_free_fn decoded_free;
    void *decoded;
    bool decoding;
    derived *derived; /* values derived under keys (under the store's lock) */
};

struct broadcast_store {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a fetch or a decode finished */
    cs_hmap entries;   /* id -> broadcast_entry * */
    broadcast_describe_fn describe;
    broadcast_fetch_fn fetch;
    void *source_arg;
};

uint64_t cs_broadcast_piece_checksum(const void *data, size_t len)
{
    return XXH64(data, len, 0);
}

int cs_broadcast_num_pieces(uint64_t size, uint64_t piece_size)
{
    if (piece_size == 0) return 0;
    return (int)((size + piece_size - 1) / piece_size);
}

broadcast_store *cs_broadcast_store_new(void)
{
    broadcast_store *s = cs_xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    return s;
}

static void entry_free(broadcast_entry *e)
{
    if (e->decoded && e->decoded_free) e->decoded_free(e->decoded);
    while (e->derived) {
        derived *d = e->derived;
        e->derived = d->next;
        if (d->value && d->free_fn) d->free_fn(d->value);
        free(d->key);
        free(d);
    }
    free(e->data);
    free(e->checksums);
    free(e->present);
    free(e);
}

void cs_broadcast_store_free(broadcast_store *s)
{
    if (!s) return;
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&s->entries, &pos, NULL, &v))
        entry_free((broadcast_entry *)(uintptr_t)v);
    cs_hmap_free(&s->entries);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

void cs_broadcast_store_set_source(broadcast_store *s, broadcast_describe_fn describe,
                                   broadcast_fetch_fn fetch, void *arg)
{
    pthread_mutex_lock(&s->mu);
    s->describe = describe;
    s->fetch = fetch;
    s->source_arg = arg;
    pthread_mutex_unlock(&s->mu);
}

static broadcast_entry *entry_new(int64_t id, uint8_t *data, uint64_t size, uint64_t piece_size)
{
    broadcast_entry *e = cs_xcalloc(1, sizeof *e);
    e->id = id;
    e->size = size;
    e->piece_size = piece_size;
    e->num_pieces = cs_broadcast_num_pieces(size, piece_size);
    e->data = data;
    e->checksums = cs_xcalloc((size_t)e->num_pieces + 1, sizeof *e->checksums);
    e->present = cs_xcalloc((size_t)e->num_pieces + 1, sizeof *e->present);
    return e;
}

int cs_broadcast_store_put(broadcast_store *s, int64_t id, const void *data, size_t len,
                           size_t piece_size, cs_error *err)
{
    uint8_t *copy = cs_xmalloc(len ? len : 1);
    if (len) memcpy(copy, data, len);
    return cs_broadcast_store_put_owned(s, id, copy, len, piece_size, err);
}

int cs_broadcast_store_put_owned(broadcast_store *s, int64_t id, void *data, size_t len,
                                 size_t piece_size, cs_error *err)
{
    if (piece_size == 0) piece_size = CS_BROADCAST_DEFAULT_PIECE;
    if (!data) data = cs_xmalloc(1);
    broadcast_entry *e = entry_new(id, data, len, piece_size);
    for (int i = 0; i < e->num_pieces; i++) {
        size_t n;
        uint8_t *p = cs_broadcast_entry_piece_buf(e, i, &n);
        e->checksums[i] = cs_broadcast_piece_checksum(p, n);
        e->present[i] = true;
    }
    e->state = ENTRY_READY;
    pthread_mutex_lock(&s->mu);
    uint64_t old;
    if (cs_hmap_get(&s->entries, (uint64_t)id, &old)) {
        pthread_mutex_unlock(&s->mu);
        entry_free(e);
        return cs_error_set(err, CS_EINVAL, "broadcast %lld exists", (long long)id);
    }
    cs_hmap_put(&s->entries, (uint64_t)id, (uint64_t)(uintptr_t)e);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* With the lock held: drops one pin; frees a removed entry nobody uses. */
static void unpin_locked(broadcast_entry *e)
{
    if (--e->pins == 0 && e->removed) entry_free(e);
}

void cs_broadcast_store_release(broadcast_store *s, broadcast_entry *e)
{
    if (!e) return;
    pthread_mutex_lock(&s->mu);
    unpin_locked(e);
    pthread_mutex_unlock(&s->mu);
}

/* Gives e (pinned, ENTRY_FETCHING, in the map) its description and buffer, then its pieces
 * through the source, without the lock: peers may fetch the pieces present meanwhile. */
static int fetch_entry(broadcast_store *s, broadcast_entry *e, cs_error *err)
{
    broadcast_desc d = {0};
    uint64_t *sums = NULL;
    int rc = s->describe(s->source_arg, e->id, &d, &sums, err);
    if (rc < 0) {
        free(sums);
        return rc;
    }
    int n = cs_broadcast_num_pieces(d.size, d.piece_size);
    uint8_t *data = cs_xmalloc(d.size ? d.size : 1);
    bool *present = cs_xcalloc((size_t)n + 1, sizeof *present);
    pthread_mutex_lock(&s->mu);
    e->size = d.size;
    e->piece_size = d.piece_size;
    e->num_pieces = n;
    e->checksums = sums;
    e->present = present;
    e->data = data;
    pthread_mutex_unlock(&s->mu);
    return s->fetch(s->source_arg, s, e, err);
}

int cs_broadcast_store_acquire(broadcast_store *s, int64_t id, broadcast_entry **out, cs_error *err)
{
    *out = NULL;
    pthread_mutex_lock(&s->mu);
    uint64_t v;
    broadcast_entry *e = NULL;
    if (cs_hmap_get(&s->entries, (uint64_t)id, &v)) e = (broadcast_entry *)(uintptr_t)v;
    if (e) { /* present, or being fetched by another task: wait for it */
        e->pins++;
        while (e->state == ENTRY_FETCHING && !e->removed)
            pthread_cond_wait(&s->cv, &s->mu);
        if (e->state == ENTRY_READY && !e->removed) {
            pthread_mutex_unlock(&s->mu);
            *out = e;
            return 0;
        }
        int rc = e->error[0] ? cs_error_set(err, CS_EIO, "%s", e->error)
                             : cs_error_set(err, CS_ENOTFOUND, "broadcast %lld was destroyed",
                                            (long long)id);
        unpin_locked(e);
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    if (!s->fetch || !s->describe) {
        pthread_mutex_unlock(&s->mu);
        return cs_error_set(err, CS_ENOTFOUND,
                            "broadcast %lld is unknown or was destroyed (cspark_broadcast "
                            "creates it on the driver)",
                            (long long)id);
    }
    /* absent: this task fetches it; the entry in the map makes the others wait */
    e = cs_xcalloc(1, sizeof *e);
    e->id = id;
    e->state = ENTRY_FETCHING;
    e->pins = 1;
    cs_hmap_put(&s->entries, (uint64_t)id, (uint64_t)(uintptr_t)e);
    pthread_mutex_unlock(&s->mu);

    int rc = fetch_entry(s, e, err);

    pthread_mutex_lock(&s->mu);
    if (rc == 0 && e->removed)
        rc = cs_error_set(err, CS_ENOTFOUND, "broadcast %lld was destroyed", (long long)id);
    if (rc < 0) {
        snprintf(e->error, sizeof e->error, "%s", err && err->msg[0] ? err->msg : "fetch failed");
        if (!e->removed) cs_hmap_del(&s->entries, (uint64_t)id); /* the next task tries again */
        e->removed = true;
        e->state = ENTRY_FAILED;
    } else {
        e->state = ENTRY_READY;
    }
    pthread_cond_broadcast(&s->cv);
    if (rc < 0) {
        unpin_locked(e);
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    pthread_mutex_unlock(&s->mu);
    *out = e;
    return 0;
}

bool cs_broadcast_store_remove(broadcast_store *s, int64_t id)
{
    pthread_mutex_lock(&s->mu);
    uint64_t v;
    bool had = cs_hmap_get(&s->entries, (uint64_t)id, &v);
    if (had) {
        broadcast_entry *e = (broadcast_entry *)(uintptr_t)v;
        cs_hmap_del(&s->entries, (uint64_t)id);
        e->removed = true;
        if (e->pins == 0)
            entry_free(e);
        else
            pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return had;
}

int cs_broadcast_store_piece(broadcast_store *s, int64_t id, int piece, broadcast_entry **out,
                             const uint8_t **data, size_t *len, cs_error *err)
{
    pthread_mutex_lock(&s->mu);
    uint64_t v;
    broadcast_entry *e = NULL;
    if (cs_hmap_get(&s->entries, (uint64_t)id, &v)) e = (broadcast_entry *)(uintptr_t)v;
    if (!e || !e->present || piece < 0 || piece >= e->num_pieces || !e->present[piece]) {
        pthread_mutex_unlock(&s->mu);
        return cs_error_set(err, CS_ENOTFOUND, "broadcast %lld piece %d is not held here",
                            (long long)id, piece);
    }
    e->pins++;
    pthread_mutex_unlock(&s->mu);
    *out = e;
    *data = cs_broadcast_entry_piece_buf(e, piece, len);
    return 0;
}

void cs_broadcast_entry_desc(const broadcast_entry *e, broadcast_desc *out)
{
    out->size = e->size;
    out->piece_size = e->piece_size;
    out->num_pieces = e->num_pieces;
    out->checksums = e->checksums;
}

int64_t cs_broadcast_entry_id(const broadcast_entry *e)
{
    return e->id;
}

const uint8_t *cs_broadcast_entry_data(const broadcast_entry *e, size_t *len)
{
    if (len) *len = (size_t)e->size;
    return e->data;
}

uint8_t *cs_broadcast_entry_piece_buf(broadcast_entry *e, int piece, size_t *len)
{
    uint64_t off = (uint64_t)piece * e->piece_size;
    uint64_t n = e->size - off < e->piece_size ? e->size - off : e->piece_size;
    *len = (size_t)n;
    return e->data + off;
}

uint64_t cs_broadcast_entry_checksum(const broadcast_entry *e, int piece)
{
    return e->checksums[piece];
}

void cs_broadcast_store_piece_done(broadcast_store *s, broadcast_entry *e, int piece)
{
    pthread_mutex_lock(&s->mu); /* the block server may serve it from now on */
    e->present[piece] = true;
    pthread_mutex_unlock(&s->mu);
}

int cs_broadcast_entry_decoded(broadcast_store *s, broadcast_entry *e, broadcast_decode_fn decode,
                               broadcast_decoded_free_fn free_fn, void **out, cs_error *err)
{
    pthread_mutex_lock(&s->mu);
    while (e->decoding)
        pthread_cond_wait(&s->cv, &s->mu);
    if (e->decode && e->decode != decode) {
        pthread_mutex_unlock(&s->mu);
        return cs_error_set(err, CS_EINVAL,
                            "broadcast %lld is already decoded by another function: one decode "
                            "function per broadcast",
                            (long long)e->id);
    }
    if (e->decoded) {
        *out = e->decoded;
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    e->decoding = true;
    pthread_mutex_unlock(&s->mu);
    char *why = NULL;
    void *d = decode(e->data, (size_t)e->size, &why);
    pthread_mutex_lock(&s->mu);
    e->decoding = false;
    if (d) {
        e->decode = decode;
        e->decoded_free = free_fn;
        e->decoded = d;
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (!d) {
        int rc = cs_error_set(err, CS_EINVAL, "decoding broadcast %lld failed: %s",
                              (long long)e->id, why ? why : "the decode function returned NULL");
        free(why);
        return rc;
    }
    *out = d;
    return 0;
}

int cs_broadcast_entry_derived(broadcast_store *s, broadcast_entry *e, const char *key,
                               broadcast_derive_fn derive, void *arg,
                               broadcast_decoded_free_fn free_fn, void **out, cs_error *err)
{
    pthread_mutex_lock(&s->mu);
    derived *d;
    for (;;) {
        for (d = e->derived; d && strcmp(d->key, key) != 0; d = d->next)
            ;
        if (!d || d->value) break;
        int worker;
        if (d->team && cs_work_team_join(d->team, &worker)) {
            /* another task builds it: help it (the team lives until this helper leaves) */
            cs_work_team *t = d->team;
            pthread_mutex_unlock(&s->mu);
            cs_work_team_help(t, worker);
            cs_work_team_leave(t);
            pthread_mutex_lock(&s->mu);
            continue;
        }
        pthread_cond_wait(&s->cv, &s->mu); /* another task builds it */
    }
    if (d) {
        *out = d->value;
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    d = cs_xcalloc(1, sizeof *d); /* the placeholder the others wait on and help */
    d->key = cs_xstrdup(key);
    d->free_fn = free_fn;
    d->team = cs_work_team_new();
    d->next = e->derived;
    e->derived = d;
    cs_work_team *team = d->team;
    pthread_mutex_unlock(&s->mu);
    void *v = derive(arg, e->data, (size_t)e->size, team, err);
    pthread_mutex_lock(&s->mu);
    d->team = NULL; /* no one joins from here on; those who did leave before the close ends */
    pthread_mutex_unlock(&s->mu);
    cs_work_team_close(team);
    pthread_mutex_lock(&s->mu);
    if (v) {
        d->value = v;
    } else { /* failed: the next caller tries again */
        derived **p = &e->derived;
        while (*p != d)
            p = &(*p)->next;
        *p = d->next;
        free(d->key);
        free(d);
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (!v)
        return err->code ? err->code
                         : cs_error_set(err, CS_EINVAL, "deriving from broadcast %lld failed",
                                        (long long)e->id);
    *out = v;
    return 0;
}
