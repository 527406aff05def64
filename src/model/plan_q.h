/* Between plan.c and plan_q.c (models that carry their own int8 quantisation: QDQ pairs and
 * QLinear operators); not installed. plan.c keeps its builder opaque: plan_q.c reaches it
 * through the npk_pb_* functions at the end of plan.c. */
#ifndef NPK_MODEL_PLAN_Q_H
#define NPK_MODEL_PLAN_Q_H

#include "model/plan.h"

struct builder;

/* The extra state of a layer whose int8 weights and scales come from the model. */
typedef struct npk_qlayer {
    int linear;           /* a QLinear operator: the output is requantised by the operator */
    double *bias;         /* per output channel, float64 (QDQ: the dequantised bias, or 0) */
    double *mul;          /* QLinear: x_scale * w_scale[o] / y_scale, float64 */
    double y_scale;       /* QLinear: the output's quantisation */
    int y_zp, y_min, y_max;
    npk_layer shadow;     /* the layer on integer operands: w = the int8 codes, no bias */
} npk_qlayer;

/* plan.c's builder, for plan_q.c */
const npk_model *npk_pb_model(struct builder *b);
npk_plan *npk_pb_plan(struct builder *b);
int npk_pb_fail(struct builder *b, int node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* the tensor holding value v (closing the layer that reached it), or -1 with the message */
int npk_pb_tensor_of(struct builder *b, int node, int v);
/* value v is tensor t (a view) */
void npk_pb_view(struct builder *b, int v, int t);
/* a new layer at node reading value x, open at value out */
npk_layer *npk_pb_start_layer(struct builder *b, int node, npk_layer_kind kind, int x, int out);
int npk_pb_window(struct builder *b, int node, npk_layer *l, const int64_t *kernel);

/* QuantizeLinear, DequantizeLinear, QLinearConv and QLinearMatMul reading the activation x: 0,
 * or -1 with the message. */
int npk_plan_q_node(struct builder *b, int node, int x);
/* A DequantizeLinear of a constant that the reader did not fold (a weight whose scale is not a
 * positive, finite constant): -1 with the message, else 0. */
int npk_plan_q_weight(struct builder *b, int node);
/* After the chain is built: the QDQ layers' int8 weights, the scales, p->qmodel. */
int npk_plan_q_finish(struct builder *b);
/* The float64 run of a layer with l->q: `run` is plan.c's run of a float layer. 0, or -1 when
 * out of memory. */
int npk_plan_q_run(const npk_plan *p, const npk_layer *l, const double *x, double *y,
                   void (*run)(const npk_plan *, const npk_layer *, const double *,
                               const double *, double *));
/* A tensor's own quantisation applied to its values (nothing when t->quant is 0). */
void npk_plan_q_round(const npk_ptensor *t, double *v);
void npk_plan_q_free(npk_layer *l);

#endif
