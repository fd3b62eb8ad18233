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
 * on an idle network, ps; with base_rtt_ns3, twice the path's delay plus one
 * MTU payload's serialisation per hop (whole ns each, truncated). */
int64_t eng_base_rtt(const topo_t *t, const eng_params_t *p, const trf_flow_t *f);

/* The largest base RTT between two hosts over all their shortest paths
 * (hpcc_global_t), ps; -1 if no two hosts are connected. */
int64_t eng_max_base_rtt(const topo_t *t, const eng_params_t *p);

#endif
