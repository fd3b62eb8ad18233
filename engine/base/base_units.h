/* base: the program's units and the factors between them, in one place. Time
 * is integer picoseconds, sizes bytes, rates bit/s (docs/model.md: Units);
 * what users read and write (ns, us, s, KiB, MiB, GiB, GB, Gb/s, Mb/s) converts
 * through these. Integer constants where the factor is whole (exact in
 * integer and double arithmetic alike). */
#ifndef BASE_UNITS_H
#define BASE_UNITS_H

#define BASE_PS_PER_NS 1000LL
#define BASE_PS_PER_US 1000000LL
#define BASE_PS_PER_S 1000000000000LL
#define BASE_S_PER_PS 1e-12 /* the inverse, for results in seconds */
#define BASE_NS_PER_US 1000LL
#define BASE_NS_PER_S 1000000000LL
#define BASE_BYTES_PER_KIB 1024LL
#define BASE_BYTES_PER_MIB 1048576LL
#define BASE_BYTES_PER_GIB 1073741824LL
#define BASE_BYTES_PER_GB 1000000000LL
#define BASE_BPS_PER_MBPS 1000000LL    /* bit/s per Mb/s */
#define BASE_BPS_PER_GBPS 1000000000LL /* bit/s per Gb/s */

#endif
