/* Shared between the ONNX reader (onnx.c) and shape inference (infer.c); not installed. */
#ifndef NPK_MODEL_INTERNAL_H
#define NPK_MODEL_INTERNAL_H

#include "model/model.h"

typedef struct npk_reader {
    npk_model *m;
    const char *name;        /* the file, for messages */
    char *err;
    size_t err_size;
    size_t cap_values;
    int *slots;              /* open-addressing table of value indices by name */
    size_t n_slots;
} npk_reader;

/* Format "NAME: node I 'N' (OP): message" (node >= 0) or "NAME: message"; returns -1. */
int npk_model_fail(npk_reader *r, int node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int npk_model_find(npk_reader *r, const char *name);
int npk_model_add_value(npk_reader *r, const char *name);
int npk_model_set_shape(npk_reader *r, int node, npk_value *v, int rank, const int64_t *dims);
/* `tensor` is an Onnx__TensorProto. */
int npk_model_set_tensor(npk_reader *r, int node, npk_value *v, const void *tensor);
/* `graph` is an Onnx__GraphProto. */
int npk_model_order(npk_reader *r, const void *graph);
/* Infer the outputs of node `idx` (type, shape, params, MACs), fold it when its inputs are
 * constants and folding is cheap. `proto` is its Onnx__NodeProto. */
int npk_model_infer(npk_reader *r, int idx, const void *proto);

#endif
