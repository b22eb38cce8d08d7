/*
 * token_bucket.h — a token bucket over explicit times: `rate` tokens per second up to `burst`,
 * taking one token per event. The callers pace themselves with it (the Kubernetes client's
 * cspark.kubernetes.client.qps/burst, the pod allocator's cspark.kubernetes.allocation.
 * maxCreateRate) and wait as long as it says; the bucket never reads a clock, so its rule is
 * unit-tested with the times a test gives (tests/unit/common/test_token_bucket.c).
 *
 * A cs_token_bucket is a plain caller-owned value; not thread-safe (callers lock).
 */
#ifndef CSPARK_COMMON_TOKEN_BUCKET_H
#define CSPARK_COMMON_TOKEN_BUCKET_H

#include <stdint.h>

typedef struct cs_token_bucket {
    double rate;   /* tokens per second; <= 0: unlimited */
    double burst;  /* most tokens held */
    double tokens; /* held now */
    int64_t at_ms; /* when tokens was last brought up to date */
} cs_token_bucket;

/* A full bucket at now_ms. */
void cs_token_bucket_init(cs_token_bucket *b, double rate, double burst, int64_t now_ms);
/* Takes a token at now_ms: 0 when taken, else how many ms (>= 1) to wait before asking again. */
int64_t cs_token_bucket_take(cs_token_bucket *b, int64_t now_ms);

#endif
