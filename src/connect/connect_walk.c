/* connect_walk.c — cs_connect_walk (connect_internal.h): a depth-first walk over every message a
 * protobuf-c message holds (set oneof members, singular and repeated message fields, in field
 * order), driven by the descriptors, so the request rewrites that must reach every relation of a
 * plan (cached local relations, persisted relations, plan ids) need no per-message code.
 *
 * Called by connect_artifacts.c, connect_persist.c. Borrows the message for the call; the visitor
 * may change the fields of the message it is given (not the walk's position in its parent).
 */
#include "connect/connect_internal.h"

#define MAX_DEPTH 2100 /* deeper plans are refused by the translation anyway */

static int walk(ProtobufCMessage *m, cs_connect_visit_fn visit, void *arg, int depth)
{
    if (!m || depth > MAX_DEPTH) return 0;
    bool descend = true;
    int rc = visit(arg, m, &descend);
    if (rc != 0 || !descend) return rc;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    char *base = (char *)m;
    for (unsigned i = 0; i < d->n_fields && rc == 0; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
        if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) { /* the union holds another member */
            uint32_t which = *(const uint32_t *)(base + f->quantifier_offset);
            if (which != f->id) continue;
        }
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            ProtobufCMessage **items = *(ProtobufCMessage ***)(base + f->offset);
            for (size_t k = 0; k < n && rc == 0; k++)
                rc = walk(items[k], visit, arg, depth + 1);
        } else {
            rc = walk(*(ProtobufCMessage **)(base + f->offset), visit, arg, depth + 1);
        }
    }
    return rc;
}

int cs_connect_walk(ProtobufCMessage *m, cs_connect_visit_fn visit, void *arg)
{
    return walk(m, visit, arg, 0);
}
