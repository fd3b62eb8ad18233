#!/usr/bin/python3
"""Plots of a Multiverse results file (NetCDF, one row per experiment) over its
swept parameters: a heat map over two of them, or lines over one (one line per
value of another), as PNG files.

    plot.py RESULTS.nc METRIC --x AXIS [--y AXIS | --hue AXIS] [--higher-is-better] -o OUT.png

Axes are swept parameters, named by key (network.cc) or variable (network_cc).
Parameters not plotted are reduced to their best value of METRIC (min, or max
with --higher-is-better). Only ok experiments are plotted: the others (oom,
invalid, failed, timed_out) are skipped, and the command says how many. OUT.png
is written whole under a temporary name, then renamed (never over a folder,
a device or the results file).

From Python: grid(path) gives the results as an xarray Dataset with one
dimension per swept parameter; heatmap() and lines() draw from it.
"""
import argparse
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

FIGSIZE = (6.4, 4.8)  # inches
DPI = 100  # pixels per inch: 640 x 480 pixel images


def swept(ds):
    """Variable names of the swept parameters, in the job's order."""
    return ds.attrs.get("swept_parameters", "").split()


def grid(path):
    """The results as a grid: one dimension per swept parameter. A sparse grid
    (samples, filtered sweeps) has NaN where no experiment is, and status and
    experiment_index -1 there."""
    ds = xr.open_dataset(path)
    axes = swept(ds)
    if not axes:
        raise ValueError(f"{path}: no swept parameters")
    if len(axes) == 1:
        return ds.swap_dims(experiment=axes[0])
    ds = ds.set_index(experiment=axes)
    full = ds.sizes["experiment"] == np.prod([np.unique(ds[a].values).size for a in axes])
    fill = {}  # what a cell without an experiment holds, per variable
    for v in ds.data_vars:
        if not np.issubdtype(ds[v].dtype, np.integer):
            fill[v] = "" if ds[v].dtype == object else np.nan
        elif v in ("status", "experiment_index"):
            fill[v] = -1
        elif full:
            fill[v] = 0  # never used
        else:
            ds[v] = ds[v].astype(float)
            fill[v] = np.nan
    return ds.unstack("experiment", fill_value=fill)


def _name(ds, axis):
    """The variable of a swept parameter given by key or variable name."""
    for v in ds.variables:
        if v == axis or ds[v].attrs.get("sweep_key") == axis:
            return v
    raise ValueError(f"{axis}: not a swept parameter (have {', '.join(swept(ds))})")


def ok_values(g, metric):
    """`metric` where the experiment is ok, NaN elsewhere (a statistic of an
    experiment that did not finish is no value to compare)."""
    return g[metric].where(g["status"] == 0)


def _best(da, keep, higher):
    """Reduces every dimension but `keep` to its best value."""
    others = [d for d in da.dims if d not in keep]
    if not others:
        return da
    return da.max(dim=others) if higher else da.min(dim=others)


def _label(da):
    units = da.attrs.get("units")
    return f"{da.name} ({units})" if units else str(da.name)


def heatmap(g, metric, x, y, out, higher=False):
    """Heat map of `metric` over swept parameters x and y, saved as PNG."""
    x, y = _name(g, x), _name(g, y)
    da = _best(ok_values(g, metric), (x, y), higher).transpose(y, x)
    fig, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    im = ax.imshow(da.values, origin="lower", aspect="auto", cmap="viridis")
    ax.set_xticks(range(da.sizes[x]), [str(v) for v in da[x].values])
    ax.set_yticks(range(da.sizes[y]), [str(v) for v in da[y].values])
    ax.set_xlabel(g[x].attrs.get("sweep_key", x))
    ax.set_ylabel(g[y].attrs.get("sweep_key", y))
    for (j, i), v in np.ndenumerate(da.values):
        if np.isfinite(v):
            ax.text(i, j, f"{v:.3g}", ha="center", va="center", color="w", fontsize=8)
    fig.colorbar(im, ax=ax, label=_label(g[metric]))
    others = [g[d].attrs.get("sweep_key", d) for d in g[metric].dims if d not in (x, y)]
    how = "max" if higher else "min"
    ax.set_title(f"{metric}, {how} over {', '.join(others)}" if others else metric)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def lines(g, metric, x, out, hue=None, higher=False):
    """`metric` against swept parameter x, one line per value of `hue`."""
    x = _name(g, x)
    keep = (x,) if hue is None else (x, _name(g, hue))
    da = _best(ok_values(g, metric), keep, higher)
    fig, ax = plt.subplots(figsize=FIGSIZE, dpi=DPI)
    if hue is None:
        ax.plot(range(da.sizes[x]), da.values, marker="o")
    else:
        h = keep[1]
        for v in da[h].values:
            ax.plot(range(da.sizes[x]), da.sel({h: v}).values, marker="o", label=str(v))
        ax.legend(title=g[h].attrs.get("sweep_key", h))
    ax.set_xticks(range(da.sizes[x]), [str(v) for v in da[x].values])
    ax.set_xlabel(g[x].attrs.get("sweep_key", x))
    ax.set_ylabel(_label(g[metric]))
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)


def _metric(ds, metric):
    """Checks that `metric` is a numeric result of the file."""
    if metric not in ds.data_vars:
        raise ValueError(f"{metric}: no such result")
    if metric in swept(ds) or metric in ("status", "experiment_index", "experiment_id", "message",
                                         "config_json"):
        raise ValueError(f"{metric}: not a result to plot (give a result such as "
                         f"iteration_time or p99_slowdown)")
    if not np.issubdtype(ds[metric].dtype, np.number):
        raise ValueError(f"{metric}: not a number")


def _output(path, results):
    """-o by the output rule (docs/outputs.md): a file in a folder that exists,
    not a folder or device, not the results file."""
    if os.path.exists(path):
        if not os.path.isfile(path):
            raise OSError(f"-o {path}: not a regular file: give a file's path")
        if os.path.exists(results) and os.path.samefile(path, results):
            raise OSError(f"-o {path}: is the results file: give another file")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise OSError(f"-o {path}: no folder {folder}")


def save(fig, out):
    """Writes the figure whole under a temporary name beside `out`, then renames it."""
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(out) + ".mvtmp-",
                               dir=os.path.dirname(out) or ".")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=DPI, format="png")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results")
    p.add_argument("metric")
    p.add_argument("--x", required=True)
    p.add_argument("--y")
    p.add_argument("--hue")
    p.add_argument("--higher-is-better", action="store_true")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    if a.y and a.hue:
        print("plot.py: give --y (a heat map) or --hue (lines), not both", file=sys.stderr)
        return 2
    try:
        _output(a.output, a.results)
    except OSError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    try:
        try:
            ds = xr.open_dataset(a.results)
        except (ValueError, OSError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ValueError(f"not a results file that reads ({first})") from None
        _metric(ds, a.metric)
        n = ds.sizes.get("experiment", 0)
        if n == 0:
            raise ValueError("no experiments: nothing to plot")
        not_ok = int((ds["status"].values != 0).sum())
        if not_ok == n:
            raise ValueError(f"none of its {n} experiments is ok: nothing to plot")
        axes = [_name(ds, v) for v in [a.x] + [v for v in (a.y, a.hue) if v]]
        if len(set(axes)) < len(axes):
            raise ValueError(f"{a.x}: give two different swept parameters")
        g = grid(a.results)
        if a.y:
            heatmap(g, a.metric, a.x, a.y, a.output, a.higher_is_better)
        else:
            lines(g, a.metric, a.x, a.output, a.hue, a.higher_is_better)
    except (ValueError, OSError) as e:
        print(f"plot.py: {a.results}: {e}", file=sys.stderr)
        return 2
    if not_ok:
        print(f"plot.py: skipped {not_ok} of {n} experiments that are not ok "
              f"(oom, invalid, failed or timed_out)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
