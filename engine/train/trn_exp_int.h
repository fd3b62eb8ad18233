/* trn_exp internals shared by the experiment kind's files. */
#ifndef TRN_EXP_INT_H
#define TRN_EXP_INT_H

#include "train/trn_exp.h"
#include "train/trn_int.h"

/* Per GPU, when its work ended (ps; -1 none), and the GPU that ends last. */
int32_t trn_exp_last_gpu(const trn_exp_t *x, const eng_batch_t *b, int32_t e);

#endif
