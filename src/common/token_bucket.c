/*
 * token_bucket.c — see token_bucket.h.
 */
#include "common/token_bucket.h"

#include <math.h>

void cs_token_bucket_init(cs_token_bucket *b, double rate, double burst, int64_t now_ms)
{
    b->rate = rate;
    b->burst = burst < 1 ? 1 : burst;
    b->tokens = b->burst;
    b->at_ms = now_ms;
}

int64_t cs_token_bucket_take(cs_token_bucket *b, int64_t now_ms)
{
    if (b->rate <= 0) return 0;
    if (now_ms > b->at_ms) b->tokens += (double)(now_ms - b->at_ms) * b->rate / 1000.0;
    if (b->tokens > b->burst) b->tokens = b->burst;
    b->at_ms = now_ms;
    if (b->tokens >= 1) {
        b->tokens -= 1;
        return 0;
    }
    int64_t wait = (int64_t)ceil((1 - b->tokens) * 1000.0 / b->rate);
    return wait < 1 ? 1 : wait;
}
