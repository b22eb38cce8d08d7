/* libFuzzer target for the S3 listing page parser (parse_list_page in src/fs/fs_s3a.c, included
 * here to reach the file-local function): the input is a ListObjectsV2 response body, parsed with
 * libxml2 as the client parses it (no network, no entities fetched); every key and prefix it hands
 * over must be a string, and nothing may crash or leak. Built and run by s3_listing.sh. */
#include "../../src/fs/fs_s3a.c"

static int on_entry(void *arg, const char *key, uint64_t size, bool is_prefix)
{
    (void)size, (void)is_prefix;
    size_t *n = arg;
    if (!key) abort();
    *n += strlen(key) > 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    s3a_buf body = {(uint8_t *)data, size, size};
    size_t seen = 0, entries = 0;
    bool truncated = false;
    char *token = NULL;
    cs_error err = {0};
    int rc = parse_list_page(&body, true, on_entry, &seen, &entries, &truncated, &token,
                             "s3a://fuzz/", &err);
    if (rc < 0 && !err.msg[0]) abort(); /* a refusal says why */
    if (!truncated && token) abort();
    free(token);
    return 0;
}
