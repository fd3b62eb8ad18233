/* Rates and delays: exact decimal parsing into bit/s and ps, and what is refused. */
#include "mvtest.h"
#include "topo/topo.h"

int main(void) {
  CHECK_EQ_I64(topo_parse_rate("100Gbps"), 100000000000LL);
  CHECK_EQ_I64(topo_parse_rate("400Gbps"), 400000000000LL);
  CHECK_EQ_I64(topo_parse_rate("25Gb/s"), 25000000000LL);
  CHECK_EQ_I64(topo_parse_rate("10Mbps"), 10000000LL);
  CHECK_EQ_I64(topo_parse_rate("1Tbps"), 1000000000000LL);
  CHECK_EQ_I64(topo_parse_rate("1.6Tbps"), 1600000000000LL);
  CHECK_EQ_I64(topo_parse_rate("500Kbps"), 500000LL);
  CHECK_EQ_I64(topo_parse_rate("500kbps"), 500000LL);
  CHECK_EQ_I64(topo_parse_rate("100bps"), 100LL);
  CHECK_EQ_I64(topo_parse_rate("400G"), 400000000000LL);
  CHECK_EQ_I64(topo_parse_rate("2.5000Gbps"), 2500000000LL); /* trailing zeros are exact */
  CHECK_EQ_I64(topo_parse_rate("100"), -1);                  /* no unit */
  CHECK_EQ_I64(topo_parse_rate("-100Gbps"), -1);
  CHECK_EQ_I64(topo_parse_rate("0Gbps"), -1);
  CHECK_EQ_I64(topo_parse_rate("Gbps"), -1);
  CHECK_EQ_I64(topo_parse_rate("100GBps"), -1); /* bytes: refused, not guessed */
  CHECK_EQ_I64(topo_parse_rate("100 Gbps"), -1);
  CHECK_EQ_I64(topo_parse_rate("1.5bps"), -1); /* not a whole bit/s */
  CHECK_EQ_I64(topo_parse_rate("99999999999Tbps"), -1);
  CHECK_EQ_I64(topo_parse_rate(""), -1);

  CHECK_EQ_I64(topo_parse_delay("0.001ms"), 1000000);
  CHECK_EQ_I64(topo_parse_delay("1us"), 1000000);
  CHECK_EQ_I64(topo_parse_delay("1000ns"), 1000000);
  CHECK_EQ_I64(topo_parse_delay("5ps"), 5);
  CHECK_EQ_I64(topo_parse_delay("2s"), 2000000000000LL);
  CHECK_EQ_I64(topo_parse_delay("1.5ns"), 1500);
  CHECK_EQ_I64(topo_parse_delay("0.000000000001s"), 1);
  CHECK_EQ_I64(topo_parse_delay("0.00100000000000000000000ms"), 1000000); /* zeros are exact */
  CHECK_EQ_I64(topo_parse_delay("0ms"), 0); /* zero: callers say "delay must be > 0" */
  CHECK_EQ_I64(topo_parse_delay("0.0000000000001s"), -1); /* finer than 1 ps */
  CHECK_EQ_I64(topo_parse_delay("1.5ps"), -1);
  CHECK_EQ_I64(topo_parse_delay("0.001"), -1); /* no unit */
  CHECK_EQ_I64(topo_parse_delay("-1us"), -1);
  CHECK_EQ_I64(topo_parse_delay("1min"), -1);
  CHECK_EQ_I64(topo_parse_delay("ms"), -1);
  CHECK_EQ_I64(topo_parse_delay("10000000000s"), -1); /* 10^22 ps overflows int64 */
  return mvtest_end();
}
