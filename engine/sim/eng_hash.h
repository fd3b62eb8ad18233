/* Deterministic hashing and counter-based random numbers: ECMP and spraying
 * choices, RED marking and link loss draw from these, keyed by the experiment's
 * seed and a per-entity counter, so results never depend on thread, slot,
 * batch or backend. docs/model.md gives the exact keys. */
#ifndef ENG_HASH_H
#define ENG_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "base/base_hd.h"

/* splitmix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer. */
ENG_INLINE uint64_t eng_mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* Hash of four 32-bit words and a salt. */
ENG_INLINE uint64_t eng_hash4(uint64_t salt, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  uint64_t h = eng_mix64(salt);
  h = eng_mix64(h ^ (((uint64_t)a << 32) | b));
  h = eng_mix64(h ^ (((uint64_t)c << 32) | d));
  return h;
}

/* ECMP: the same 5-tuple (UDP, so the protocol is constant) takes the same port
 * at a node; different nodes decide independently (salted by node id). */
ENG_INLINE uint32_t eng_hash_ecmp(int32_t node, int32_t sip, int32_t dip, uint32_t sport,
                                  uint32_t dport) {
  return (uint32_t)(eng_hash4(0x45434d50u ^ ((uint64_t)(uint32_t)node << 32), (uint32_t)sip,
                              (uint32_t)dip, sport, dport) >>
                    32);
}

/* The IPv4 address the ns-3 HPCC simulator gives node `id`: 11.0.x.y. */
ENG_INLINE uint32_t eng_ns3_ip(int32_t id) {
  return 0x0b000001u + (uint32_t)(id / 256) * 0x10000u + (uint32_t)(id % 256) * 0x100u;
}

/* One 32-bit block of MurmurHash3 (x86_32), mixed into h. */
ENG_INLINE uint32_t eng_murmur3_block(uint32_t h, uint32_t k) {
  k *= 0xcc9e2d51u;
  k = (k << 15) | (k >> 17);
  k *= 0x1b873593u;
  h ^= k;
  h = (h << 13) | (h >> 19);
  return h * 5u + 0xe6546b64u;
}

/* ECMP as the ns-3 HPCC simulator's switches hash (switch-node.cc): MurmurHash3
 * x86_32 of the 12 bytes sip, dip, sport | dport << 16 (little-endian words),
 * seeded with the switch's node id; addresses as eng_ns3_ip. */
ENG_INLINE uint32_t eng_hash_ecmp_ns3(int32_t node, int32_t sip, int32_t dip, uint32_t sport,
                                      uint32_t dport) {
  uint32_t h = (uint32_t)node;
  h = eng_murmur3_block(h, eng_ns3_ip(sip));
  h = eng_murmur3_block(h, eng_ns3_ip(dip));
  h = eng_murmur3_block(h, (sport & 0xffffu) | (dport & 0xffffu) << 16);
  h ^= 12u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16);
}

/* Spraying: every packet of a flow (by direction and sequence number) is hashed
 * on its own. */
ENG_INLINE uint32_t eng_hash_spray(int32_t node, uint32_t flow, uint32_t psn, uint32_t kind) {
  return (uint32_t)(eng_hash4(0x53505259u ^ ((uint64_t)(uint32_t)node << 32), flow, psn, kind, 0) >>
                    32);
}

/* Uniform 32-bit draw number `counter` of stream (a, b) of the experiment `seed`. */
ENG_INLINE uint32_t eng_rng_u32(uint64_t seed, uint32_t a, uint32_t b, uint64_t counter) {
  return (uint32_t)(eng_hash4(seed, a, b, (uint32_t)(counter >> 32), (uint32_t)counter) >> 32);
}

#endif
