/*
 * arrow_ipc_schema.h — private to src/formats/arrow_ipc_*.c: Arrow's FlatBuffers ids (Message.fbs,
 * Schema.fbs) and the Schema table <-> Spark struct type mapping of arrow_ipc.h.
 */
#ifndef CSPARK_FORMATS_ARROW_IPC_SCHEMA_H
#define CSPARK_FORMATS_ARROW_IPC_SCHEMA_H

#include "columnar/col_type.h"
#include "formats/flatbuf.h"

/* nesting deeper than this is refused (a reader's stack is not the input's to choose) */
#define CS_IPC_MAX_DEPTH 64
#define CS_IPC_METADATA_V4 3
#define CS_IPC_METADATA_V5 4

enum { MESSAGE_VERSION, MESSAGE_HEADER_TYPE, MESSAGE_HEADER, MESSAGE_BODY_LENGTH };
enum { HEADER_SCHEMA = 1, HEADER_DICTIONARY_BATCH = 2, HEADER_RECORD_BATCH = 3 };
enum { SCHEMA_ENDIANNESS, SCHEMA_FIELDS };
enum { BATCH_LENGTH, BATCH_NODES, BATCH_BUFFERS, BATCH_COMPRESSION };
enum { DICT_ID, DICT_DATA, DICT_IS_DELTA };

/* Encodes the Schema table of `schema` (a struct type). dict_ids[i] >= 0 marks top-level field i
 * as dictionary-encoded (int32 indices) under that id; dict_ids may be NULL. With
 * unique_nested_names, the fields of a nested struct that share a name are written name_0,
 * name_1, ... (top-level names as they are). */
cs_fb_ref cs_ipc_schema_encode(cs_fb_builder *b, const cs_col_type *schema, const int64_t *dict_ids,
                               bool unique_nested_names);

/* A top-level field's dictionary encoding as read: id (-1: not encoded), index width in bytes. */
typedef struct cs_ipc_dict_field {
    int64_t id;
    int index_bytes;
} cs_ipc_dict_field;

/* Decodes a Schema table into a new struct type and, per top-level field, its dictionary
 * encoding (*dicts: malloc'd, one per field). CS_EUNSUPPORTED / CS_EPROTO naming the field. */
int cs_ipc_schema_decode(const cs_fb_table *schema, cs_col_type **out, cs_ipc_dict_field **dicts,
                         cs_error *err);

#endif /* CSPARK_FORMATS_ARROW_IPC_SCHEMA_H */
