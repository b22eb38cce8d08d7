/*
 * arrow_ipc.h — Arrow IPC streams (the "streaming format" of the Arrow columnar spec), read and
 * written byte-compatibly with Apache Arrow: an optional run of messages, each a continuation
 * marker 0xFFFFFFFF, an int32 metadata length, a FlatBuffers Message (Message.fbs, Schema.fbs;
 * metadata V5) padded to 8 bytes, then the message body (buffers, each padded to 8 bytes):
 *   Schema, then DictionaryBatch* and RecordBatch* in any order, then end-of-stream (0xFFFFFFFF 0).
 * Spark Connect sends query results this way and receives createDataFrame data this way.
 *
 * Types follow Spark's ArrowUtils: boolean Bool, byte/short/int/long Int(8/16/32/64, signed),
 * float/double FloatingPoint(SINGLE/DOUBLE), decimal(p,s) Decimal(p, s, 128), string Utf8,
 * binary Binary, date Date(DAY), timestamp Timestamp(MICROSECOND, "UTC" on write; any zone on
 * read), timestamp_ntz Timestamp(MICROSECOND, no zone), array List<element>, struct Struct_,
 * map Map<entries: Struct<key, value>>, interval year to month Interval(YEAR_MONTH), interval day
 * to second Duration(MICROSECOND) (read back as those two, Spark's defaults). Anything else
 * (unsigned ints, other time units, large offsets, unions) is refused with one line naming the
 * field and the type. Bodies compressed with LZ4 frames or zstd (BodyCompression, as pyarrow's
 * compression="lz4"/"zstd") are read, and written when cs_ipc_writer_set_compression asks
 * (uncompressed by default, as Arrow). A dictionary-encoded string/binary column stays encoded both
 * ways (top-level columns; the writer sends a DictionaryBatch when a batch brings a new dictionary,
 * and replaces it later).
 *
 * Writer: the schema message goes out with the first batch (or at close); a field is dictionary
 * encoded in the stream when its column is in the first batch. Reader: everything it decodes is
 * checked (cs_column_validate) before a batch is returned; a truncated or lying stream is one
 * error naming the stream, never a crash or an allocation the input did not pay for.
 *
 * Ownership: the caller owns writers and readers (free them); batches returned are references
 * the caller unrefs; the schema returned by cs_ipc_reader_schema is borrowed from the reader.
 * Single-threaded.
 */
#ifndef CSPARK_FORMATS_ARROW_IPC_H
#define CSPARK_FORMATS_ARROW_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"

/* Writes n bytes: 0 or a negative code with err filled. */
typedef int (*cs_ipc_write_fn)(void *arg, const void *p, size_t n, cs_error *err);
/* Reads up to n bytes into p; *got = 0 at the end of the input. 0 or a negative code. */
typedef int (*cs_ipc_read_fn)(void *arg, void *p, size_t n, size_t *got, cs_error *err);

/* Sinks and sources: into a cs_sbuf (arg: the cs_sbuf), to and from a file descriptor (arg: an
 * int * holding it), from memory (arg: a cs_ipc_mem_source). */
int cs_ipc_write_sbuf(void *arg, const void *p, size_t n, cs_error *err);
int cs_ipc_write_fd(void *arg, const void *p, size_t n, cs_error *err);
int cs_ipc_read_fd(void *arg, void *p, size_t n, size_t *got, cs_error *err);
typedef struct cs_ipc_mem_source {
    const uint8_t *data;
    size_t len, pos;
} cs_ipc_mem_source;
int cs_ipc_read_mem(void *arg, void *p, size_t n, size_t *got, cs_error *err);

typedef struct cs_ipc_writer cs_ipc_writer;
/* A writer of batches of `schema` (a struct type; a reference is taken) to fn(arg). */
cs_ipc_writer *cs_ipc_writer_new(cs_col_type *schema, cs_ipc_write_fn fn, void *arg);
/* "none" (or NULL), "lz4" or "zstd" for the bodies of the messages written from now on. */
int cs_ipc_writer_set_compression(cs_ipc_writer *w, const char *codec, cs_error *err);
/* The schema is written with the fields of each nested struct that share a name renamed name_0,
 * name_1, ... (top-level names kept), as Spark's ArrowUtils.toArrowSchema does with
 * errorOnDuplicatedFieldNames = false for Spark Connect's results: Arrow's readers (pyarrow's
 * to_pylist) refuse a struct with two fields of one name. Before the first batch. */
void cs_ipc_writer_set_unique_nested_names(cs_ipc_writer *w);
int cs_ipc_writer_write(cs_ipc_writer *w, const cs_col_batch *b, cs_error *err);
/* Writes the schema if no batch did, then end-of-stream. */
int cs_ipc_writer_close(cs_ipc_writer *w, cs_error *err);
void cs_ipc_writer_free(cs_ipc_writer *w);

typedef struct cs_ipc_reader cs_ipc_reader;
/* Reads the schema message. name names the stream in errors (a path, "a client's batch").
 * alloc (NULL: the default) pays for the columns. */
int cs_ipc_reader_open(cs_col_allocator *alloc, cs_ipc_read_fn fn, void *arg, const char *name,
                       cs_ipc_reader **out, cs_error *err);
const cs_col_type *cs_ipc_reader_schema(const cs_ipc_reader *r);
/* 1 and *out set: a batch; 0: the end of the stream; < 0: an error naming the stream. */
int cs_ipc_reader_next(cs_ipc_reader *r, cs_col_batch **out, cs_error *err);
void cs_ipc_reader_free(cs_ipc_reader *r);

/* One batch as a lone RecordBatch message (no schema, no dictionaries: encoded columns go out
 * decoded, no end-of-stream) for readers that know the schema: the SQL engine's exchange
 * records (sqlexec/exchange_codec.c). */
int cs_ipc_write_batch_message(const cs_col_batch *b, cs_ipc_write_fn fn, void *arg, cs_error *err);
/* The batch of `schema` in buf[0..len), one RecordBatch message as written above and nothing
 * after it; columns from alloc (NULL: the default). CS_EPROTO naming `name` on bad input. */
int cs_ipc_read_batch_message(cs_col_allocator *alloc, const cs_col_type *schema,
                              const uint8_t *buf, size_t len, const char *name, cs_col_batch **out,
                              cs_error *err);

#endif /* CSPARK_FORMATS_ARROW_IPC_H */
