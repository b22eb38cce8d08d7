/*
 * file_format_list.h — every file format cspark reads and writes, one line each. A line
 * X(name) declares the table `cs_file_format_<name>` (a const cs_file_format, file_format.h),
 * defined in the format's own folder, and puts it in the registry (file_format.c) under its
 * `name` field.
 *
 * Adding a format: write its table in src/formats/<format>/, append its line here, test it.
 */
#ifndef CSPARK_FORMATS_FILE_FORMAT_LIST_H
#define CSPARK_FORMATS_FILE_FORMAT_LIST_H

/* clang-format off */
#define CS_FILE_FORMAT_LIST(X) \
    X(csv) \
    X(json) \
    X(parquet) \
    X(text)
/* clang-format on */

#endif /* CSPARK_FORMATS_FILE_FORMAT_LIST_H */
