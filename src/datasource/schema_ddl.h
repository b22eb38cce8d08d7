/*
 * schema_ddl.h — a schema given as Spark's DDL string ("value STRING, n INT") parsed into a
 * struct type. Ownership: the type returned is the caller's (cs_col_type_unref).
 */
#ifndef CSPARK_DATASOURCE_SCHEMA_DDL_H
#define CSPARK_DATASOURCE_SCHEMA_DDL_H

#include "columnar/col_type.h"
#include "common/err.h"

/* NULL + err (naming the schema and what is wrong) when ddl is not a list of name-type pairs. */
cs_col_type *cs_ds_parse_ddl(const char *ddl, cs_error *err);

#endif
