/*
 * codec.h — compression codecs by file extension, as Hadoop's CompressionCodecFactory: `.gz`
 * (GzipCodec, zlib), `.deflate` (DefaultCodec, zlib format), `.bz2` (BZip2Codec, libbz2), `.zst`
 * (ZStandardCodec, zstd frames), `.lz4` (the lz4 frame format of the lz4 tool). Concatenated
 * members/streams/frames are read one after another, as Hadoop's decompressors do. None of them
 * is split here: a compressed file is one task's input.
 *
 * A codec reader wraps a cs_fs_reader of the compressed bytes and returns the decompressed ones;
 * a damaged or truncated stream fails with one line naming the file and the codec. A codec writer
 * wraps a cs_fs_writer and compresses what is written to it. Called by fs.c (cs_fs_open_input,
 * cs_fs_create), by the output sinks to pick an output codec, and by the event log.
 *
 * Ownership: codecs are static descriptors. A codec reader/writer owns the reader/writer it
 * wraps (closing or aborting it), also when its constructor fails.
 */
#ifndef CSPARK_FS_CODEC_H
#define CSPARK_FS_CODEC_H

#include <stdbool.h>

#include "fs/fs.h"

typedef struct cs_codec {
    const char *name;         /* short name: gzip, deflate, bzip2, zstd, lz4 */
    const char *extension;    /* ".gz" */
    const char *hadoop_class; /* org.apache.hadoop.io.compress.GzipCodec */
    int kind;                 /* private to codec.c */
} cs_codec;

/* The codec whose extension ends path (case-sensitive, as Hadoop), or NULL. */
const cs_codec *cs_codec_for_path(const char *path);
/* By short name (case-insensitive: "gzip", "gz", "bzip2", "zstd", "zst", "lz4", "deflate") or
 * Hadoop class name (org.apache.hadoop.io.compress.GzipCodec, simple name GzipCodec too); NULL
 * when unknown. */
const cs_codec *cs_codec_for_name(const char *name);
/* "gzip, deflate, bzip2, zstd or lz4 (or a Hadoop codec class such as ...GzipCodec)" for
 * messages that list what is accepted. */
const char *cs_codec_names(void);

cs_fs_reader *cs_codec_reader_new(const cs_codec *codec, cs_fs_reader *raw, const char *uri,
                                  cs_error *err);
cs_fs_writer *cs_codec_writer_new(const cs_codec *codec, cs_fs_writer *inner, const char *uri,
                                  cs_error *err);

#endif
