/*
 * connect_errors.h — cspark's errors as a Spark Connect client expects Spark's server to send
 * them (Spark's ErrorUtils): gRPC status INTERNAL with the error's message, and in
 * grpc-status-details-bin a google.rpc.Status whose details hold a google.rpc.ErrorInfo with
 * reason = the exception's class, domain "org.apache.spark", and metadata "classes" (the class and
 * its superclasses, a JSON array: the client picks its exception type from them), "errorClass",
 * "sqlState", "messageParameters" (a JSON object) and "errorId" (for FetchErrorDetails).
 *
 * The exception class follows from the error's Spark error class and SQLSTATE through one table
 * (never from its text): parse errors are ParseException, other 42xxx AnalysisException,
 * DIVIDE_BY_ZERO and overflows SparkArithmeticException, bad casts SparkNumberFormatException or
 * SparkDateTimeException, a cancelled operation SparkException, ...
 *
 * Called by the service (connect_service.c) on its job thread. Ownership: returned buffers are
 * the caller's (free()).
 */
#ifndef CSPARK_CONNECT_CONNECT_ERRORS_H
#define CSPARK_CONNECT_CONNECT_ERRORS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct Spark__Connect__FetchErrorDetailsResponse Spark__Connect__FetchErrorDetailsResponse;

/* The fully qualified Java class of the exception Spark would throw for err, and the list of it
 * and its superclasses (NULL-terminated, static). */
const char *const *cs_connect_error_classes(const cs_error *err);

/* The google.rpc.Status (code INTERNAL, message = err's message) for err, serialized: a malloc'd
 * buffer and *len. error_id: "" or NULL for none. */
uint8_t *cs_connect_error_status(const cs_error *err, const char *error_id, size_t *len);
/* err as a client is shown it (the gRPC message, FetchErrorDetails): itself, or for a Python
 * UDF's exception (sqlexec's PYTHON_EXCEPTION: Spark's PythonException, which has no error class)
 * view filled with the worker's traceback alone and no class. */
const cs_error *cs_connect_error_shown(const cs_error *err, cs_error *view);

/* FetchErrorDetails' answer for err (one error, the root), serialized: a malloc'd buffer and *len.
 * session_id / server_side_session_id are echoed. err NULL: an answer without errors. */
uint8_t *cs_connect_error_details(const cs_error *err, const char *session_id,
                                  const char *server_side_session_id, size_t *len);

#endif /* CSPARK_CONNECT_CONNECT_ERRORS_H */
