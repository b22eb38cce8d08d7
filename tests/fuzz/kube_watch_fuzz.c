/* libFuzzer target for the Kubernetes watch stream decoder (src/kube/kube_watch.c, included here
 * so that its file-local feed_stream can be driven without a server): the input bytes are fed in
 * pieces whose sizes come from the first byte (so lines split at every position), as curl would
 * hand them over; when the decoder ends a stream the state is reset as a reconnect does. It must
 * never crash or leak, deliver only objects, and hold no more than the stream's unread line.
 * Built and run by kube_watch.sh. */
#include "../../src/kube/kube_watch.c"

static void on_event(void *arg, const char *type, const json_t *obj)
{
    (void)arg;
    if (!type || !json_is_object(obj)) abort(); /* handle_line delivers only objects */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t piece = (size_t)data[0] % 64 + 1;
    data++, size--;
    kube_watch w = {0};
    w.resource = "pods";
    w.ns = "default";
    w.fn = on_event;
    atomic_init(&w.stop, false);
    for (size_t off = 0; off < size;) {
        size_t n = size - off < piece ? size - off : piece;
        if (feed_stream(&w, (const char *)data + off, n) == 0) {
            /* the transfer ended: a new connection starts with an empty buffer */
            if (w.buf.len != 0) abort();
            w.relist_needed = w.stream_error = false;
        }
        if (w.scanned > w.buf.len) abort();
        off += n;
    }
    cs_sbuf_free(&w.buf);
    return 0;
}
