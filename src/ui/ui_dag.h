/* ui_dag.h — the stage DAG of a job as inline SVG (the job page, and the stage page with its
 * own stage highlighted).
 *
 * Nodes are stages; an edge runs from each parent (the stage whose shuffle output a stage reads)
 * to the stage. The same drawing shows the RDDs a stage computes (nodes with a title), an edge
 * from each RDD to the RDD built from it. The layout is layered: a stage sits one column right of
 * its deepest parent, stages of a column stacked in id order, so the picture reads left to right as
 * the job runs. Pure function of its input: appends to a caller-owned buffer, keeps nothing.
 */
#ifndef CSPARK_UI_DAG_H
#define CSPARK_UI_DAG_H

#include "common/strutil.h"

typedef enum { UI_DAG_NORMAL, UI_DAG_CURRENT, UI_DAG_SKIPPED, UI_DAG_FAILED } ui_dag_style;

typedef struct ui_dag_node {
    const char *title; /* first line of the box; NULL: "Stage <id>" (a stage), else an RDD */
    int id;            /* stage id */
    const char *label; /* second line of the box (the stage's name); borrowed */
    const char *href;  /* link of the box, or NULL; borrowed */
    ui_dag_style style;
    const int *parents; /* parent stage ids; those not among the nodes are ignored; borrowed */
    int num_parents;
} ui_dag_node;

/* Appends <svg>...</svg> (inside a <div class="dag">) for nodes[0..n); nothing when n <= 0. */
void cs_ui_dag_svg(cs_sbuf *b, const ui_dag_node *nodes, int n);

#endif /* CSPARK_UI_DAG_H */
