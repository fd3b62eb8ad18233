"""Where a kernel's warp samples fall, by source line and by file, from two
pages of one Nsight Compute report taken with --section SourceCounters:

    ncu -i R --page source --csv --print-source cuda,sass > LINES.csv
    ncu -i R --page source --csv --print-source sass > SASS.csv
    python3 ncu_lines.py LINES.csv SASS.csv [TOP]

The SASS page gives the whole: every sample once. The cuda,sass page gives
each source line's samples, file by file; a line inlined into another
counts under both, so the shares are of the SASS total and may sum past
100 %. Prints the TOP lines (default 25) with their three largest stall
reasons, then the ten largest files. Used by spme_bench.sh (ncusrcpool)."""
import collections
import csv
import sys

ALL = "Warp Stall Sampling (All Samples)"


def num(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:  # "-" where an instruction has no value
        return 0.0


def sass_total(path):
    rows = [r for r in csv.reader(open(path)) if r]
    for i, r in enumerate(rows):
        if ALL in r:
            col = r.index(ALL)
            return sum(num(x[col]) for x in rows[i + 1:] if len(x) > col)
    raise SystemExit(f"{path}: no column {ALL!r}")


def by_line(path):
    lines = collections.defaultdict(collections.Counter)
    text = {}
    name, head = None, None
    for r in csv.reader(open(path)):
        if not r:
            continue
        if r[0] == "File Path":
            name = r[1].rsplit("/", 1)[-1]
        elif r[0] == "Line No":
            head = r
        elif head and r[0] not in ("", "Function Name", "Kernel Name"):
            key = (name, int(r[0]))
            text[key] = r[1].strip()
            for h, v in zip(head[4:], r[4:]):  # after line, source, address, sass
                lines[key][h] += num(v)
    return lines, text


def main():
    total = sass_total(sys.argv[2])
    lines, text = by_line(sys.argv[1])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    if not total:
        raise SystemExit("no warp samples")
    print(f"{total:.0f} warp samples; the {top} source lines with the most:")
    for key, c in sorted(lines.items(), key=lambda kv: -kv[1][ALL])[:top]:
        s = c[ALL]
        why = sorted(((v, h[6:]) for h, v in c.items()
                      if h.startswith("stall_") and "Not Issued" not in h and v), reverse=True)[:3]
        print(f"  {s / total * 100:5.1f} % {key[0]}:{key[1]} ("
              + ", ".join(f"{h} {v / s * 100:.0f} %" for v, h in why) + f") {text[key][:60]}")
    files = collections.Counter()
    for key, c in lines.items():
        files[key[0]] += c[ALL]
    print("files: " + ", ".join(f"{f} {v / total * 100:.1f} %" for f, v in files.most_common(10)))


if __name__ == "__main__":
    main()
