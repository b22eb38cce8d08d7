/*
 * connect_types.h — cspark's column types as Spark Connect's spark.connect.DataType messages (the
 * schema of AnalyzePlan and ExecutePlan responses, DDL parse), as Spark's DataTypeProtoConverter
 * writes them: a struct's fields with their nullability, decimals with precision and scale,
 * intervals with their start and end fields.
 *
 * Called by connect_execute.c and connect_analyze.c. Ownership: the message returned is the
 * caller's, every part of it from malloc, freed with protobuf_c_message_free_unpacked(m, NULL).
 */
#ifndef CSPARK_CONNECT_CONNECT_TYPES_H
#define CSPARK_CONNECT_CONNECT_TYPES_H

#include "columnar/col_type.h"

typedef struct Spark__Connect__DataType Spark__Connect__DataType;

/* The DataType of t (borrowed). Never NULL. */
Spark__Connect__DataType *cs_connect_data_type(const cs_col_type *t);

#endif /* CSPARK_CONNECT_CONNECT_TYPES_H */
