/*
 * exec_services.h — state of an executor that layers above exec keep for its tasks and that
 * lives as long as the executor: Spark's SparkEnv holding, e.g., the Python worker factories
 * (sqlexec/python_worker_factory.h). A service is made on first use by the create function its
 * user gives, found again by its name, and destroyed when the executor stops
 * (cs_exec_services_free: executor.c at its stop, the local backend at its stop), in the reverse
 * order of creation.
 *
 * Ownership: the registry owns each service's value (destroyed by its destroy function) and its
 * name's copy; a value returned by cs_exec_service is borrowed until the executor stops (a task
 * never outlives it). Thread-safe: tasks on any core thread call cs_exec_service; creation runs
 * under the registry's lock, once per name.
 */
#ifndef CSPARK_EXEC_EXEC_SERVICES_H
#define CSPARK_EXEC_EXEC_SERVICES_H

typedef struct cs_exec_services cs_exec_services;

typedef void *(*cs_exec_service_create_fn)(void *arg);
typedef void (*cs_exec_service_destroy_fn)(void *value);

cs_exec_services *cs_exec_services_new(void);

/* The service called name, made by create(arg) if there is none yet; NULL when create returns
 * NULL (tried again at the next call). s NULL: NULL (a process with no executor). */
void *cs_exec_service(cs_exec_services *s, const char *name, cs_exec_service_create_fn create,
                      cs_exec_service_destroy_fn destroy, void *arg);

/* Destroys every service, newest first, and frees s (NULL: nothing). */
void cs_exec_services_free(cs_exec_services *s);

#endif /* CSPARK_EXEC_EXEC_SERVICES_H */
