#!/usr/bin/python3
"""Compare a Multiverse FCT file with the ns-3 HPCC simulator's, flow by flow.

Both files are in ns-3's format, one flow a line:
    SIP DIP SPORT DPORT SIZE START_NS FCT_NS STANDALONE_FCT_NS
Flows are matched by (SIP, DIP, SPORT, DPORT). For every matched flow the ratio
ours/ns-3 of FCT_NS is taken; the report gives its p5, median and p95 (linear
interpolation between order statistics), the fraction of flows whose FCT is
within +-5% and +-20% of ns-3's (|ours - ns3| <= 5% of ns3, exactly), and the
flows furthest from 1 on either side. Flows of one file only are counted, not
compared; matched flows must have the same SIZE.

usage: ns3_compare.py OURS NS3 [--top N] [--label TEXT] [--row]
  --top N    list the N largest and N smallest ratios (default 5)
  --label    a name for the case, printed in the summary
  --row      print only one Markdown table row:
             | label | matched | p5 | median | p95 | within 5% | within 20% |
Exit status: 0, or 2 with a one-line error naming the file and line.
"""

import signal
import sys


def fail(msg):
    sys.stderr.write("ns3_compare: " + msg + "\n")
    sys.exit(2)


def read_fct(path):
    """{(sip, dip, sport, dport): (size, start_ns, fct_ns, standalone_ns)}"""
    flows = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                col = line.split()
                if not col:
                    continue
                if len(col) != 8:
                    fail("%s:%d: expected 8 columns, got %d" % (path, n, len(col)))
                try:
                    key = (int(col[0], 16), int(col[1], 16), int(col[2]), int(col[3]))
                    val = tuple(int(c) for c in col[4:])
                except ValueError:
                    fail("%s:%d: not a number in %r" % (path, n, line.strip()))
                if key in flows:
                    fail("%s:%d: flow %s seen twice" % (path, n, fmt_key(key)))
                if val[2] <= 0:
                    fail("%s:%d: FCT must be > 0" % (path, n))
                flows[key] = val
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    return flows


def node(ip):
    """ns-3 gives node id the address 11.0.x.y with id = (ip >> 8) & 0xffff."""
    return (ip >> 8) & 0xFFFF


def fmt_key(key):
    return "%d->%d sport %d dport %d" % (node(key[0]), node(key[1]), key[2], key[3])


def quantile(sorted_vals, q):
    """Linear interpolation between order statistics (numpy's default)."""
    pos = q * (len(sorted_vals) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def parse_args(argv):
    files, top, label, row = [], 5, "", False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            sys.stdout.write(__doc__)
            sys.exit(0)
        if a in ("--top", "--label"):
            if i + 1 == len(argv):
                fail("%s needs a value" % a)
            if a == "--top":
                try:
                    top = int(argv[i + 1])
                except ValueError:
                    fail("--top: not an integer: %r" % argv[i + 1])
            else:
                label = argv[i + 1]
            i += 2
            continue
        if a == "--row":
            row = True
        elif a.startswith("-"):
            fail("unknown option %s" % a)
        else:
            files.append(a)
        i += 1
    if len(files) != 2:
        fail("usage: ns3_compare.py OURS NS3 [--top N] [--label TEXT] [--row]")
    return files[0], files[1], top, label or files[0], row


def main(argv):
    ours_path, ns3_path, top, label, row = parse_args(argv)
    ours, ns3 = read_fct(ours_path), read_fct(ns3_path)
    keys = sorted(k for k in ours if k in ns3)
    if not keys:
        fail("no flow of %s is in %s" % (ours_path, ns3_path))
    for k in keys:
        if ours[k][0] != ns3[k][0]:
            fail("flow %s: size %d in %s, %d in %s" % (fmt_key(k), ours[k][0], ours_path,
                                                       ns3[k][0], ns3_path))
    ratio = {k: ours[k][2] / ns3[k][2] for k in keys}
    r = sorted(ratio.values())

    def within(pct):  # |ours - ns3| <= pct% of ns3, in integers (no rounding at the edge)
        n = sum(1 for k in keys if 100 * abs(ours[k][2] - ns3[k][2]) <= pct * ns3[k][2])
        return n / len(keys)

    within5, within20 = within(5), within(20)
    p5, p50, p95 = quantile(r, 0.05), quantile(r, 0.5), quantile(r, 0.95)
    if row:
        print("| %s | %d | %.3f | %.3f | %.3f | %.1f%% | %.1f%% |" %
              (label, len(r), p5, p50, p95, 100 * within5, 100 * within20))
        return
    print("%s: %d flows matched (%d only in ours, %d only in ns-3)" %
          (label, len(keys), len(ours) - len(keys), len(ns3) - len(keys)))
    print("FCT ratio ours/ns-3: p5 %.3f  median %.3f  p95 %.3f  min %.3f  max %.3f" %
          (p5, p50, p95, r[0], r[-1]))
    print("within +-5%%: %.1f%%  within +-20%%: %.1f%%" % (100 * within5, 100 * within20))
    by_ratio = sorted(keys, key=lambda k: (ratio[k], k))
    hdr = "%-28s %10s %12s %12s %12s %8s" % ("flow", "size", "start_ns", "ours_fct_ns",
                                          "ns3_fct_ns", "ratio")
    for title, sel in (("slowest", by_ratio[::-1][:top]), ("fastest", by_ratio[:top])):
        if top <= 0:
            break
        print("%s %d (largest ratio first):" % (title, len(sel)) if title == "slowest" else
              "%s %d (smallest ratio first):" % (title, len(sel)))
        print(hdr)
        for k in sel:
            print("%-28s %10d %12d %12d %12d %8.3f" % (fmt_key(k), ours[k][0], ours[k][1],
                                                     ours[k][2], ns3[k][2], ratio[k]))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    main(sys.argv[1:])
