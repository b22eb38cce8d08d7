/* stage_rdds.h — the RDDs a stage computes, as Spark's StageInfo.rddInfos.
 *
 * A stage runs its final RDD and every narrow ancestor up to the shuffle boundaries; the shuffled
 * RDDs it reads are its own, their map sides belong to the parent stages. The DAG scheduler puts
 * these in its StageSubmitted and StageCompleted events (cs_event.rdd_infos), so the event log
 * carries Spark's "RDD Info" and the history server draws each stage's operations.
 *
 * Ownership: the array is malloc'd for the caller (free it); the names and callsites point into
 * the RDD nodes, which live as long as their lineage graph (borrowed).
 */
#ifndef CSPARK_SCHED_STAGE_RDDS_H
#define CSPARK_SCHED_STAGE_RDDS_H

#include "plan/rdd.h"
#include "sched/listener.h"

/* Fills *out with rdd first, then its narrow ancestors (each once, in depth-first order); returns
 * their number. Names are Spark's RDD class names (MapPartitionsRDD, ShuffledRDD, ...; a text
 * file's RDD is named by its path, as textFile names it), callsites are cspark's RDD names
 * ("map at wordcount.so:cspark_main"), parents are RDD ids (a shuffled RDD's parent is its map
 * side, as Spark's ShuffledRDD's dependency). */
int cs_stage_rdd_infos(const cspark_rdd *rdd, cs_rdd_info **out);

#endif /* CSPARK_SCHED_STAGE_RDDS_H */
