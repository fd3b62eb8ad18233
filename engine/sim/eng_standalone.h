/* Standalone FCT of a flow (docs/model.md, Outputs): what the ns-3 HPCC format
 * calls standalone_fct, exact for a flow alone in the network. */
#ifndef ENG_STANDALONE_H
#define ENG_STANDALONE_H

#include "sim/eng_params.h"
#include "topo/topo.h"
#include "traffic/trf.h"

/* ps from the flow's start to the arrival of its last ACK; -1 if unroutable. */
int64_t eng_standalone_fct(const topo_t *t, const eng_params_t *p, const trf_flow_t *f);

/* Base RTT of the flow's path (ECMP): one full data packet out, its ACK back,
 * on an idle network, ps. */
int64_t eng_base_rtt(const topo_t *t, const eng_params_t *p, const trf_flow_t *f);

#endif
