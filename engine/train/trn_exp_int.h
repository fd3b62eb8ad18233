/* trn_exp internals shared by the experiment kind's files. */
#ifndef TRN_EXP_INT_H
#define TRN_EXP_INT_H

#include "train/trn_exp.h"
#include "train/trn_int.h"

/* The topology of network.topology (default rail_optimized) sized to the cluster;
 * `where` names the network object. 0 or -1 with a message. */
int trn_exp_topology(const json_t *net, const trn_cluster_t *c, const char *where,
                     const char *base_dir, topo_t *t, char *err, size_t errlen);

/* Per GPU, when its work ended (ps; -1 none), and the GPU that ends last. */
int32_t trn_exp_last_gpu(const trn_exp_t *x, const eng_batch_t *b, int32_t e);

#endif
