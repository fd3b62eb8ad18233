#!/usr/bin/python3
"""Plots of a Multiverse results file (NetCDF, one row per experiment) over its
swept parameters: a heat map over two of them, or lines over one (one line per
value of another), as PNG files.

    plot.py RESULTS.nc METRIC --x AXIS [--y AXIS | --hue AXIS] [--higher-is-better] -o OUT.png

Axes are swept parameters, named by key (network.cc) or variable (network_cc).
Parameters not plotted are reduced to their best value of METRIC (min, or max
with --higher-is-better). Experiments that are not ok carry no value (NaN).

From Python: grid(path) gives the results as an xarray Dataset with one
dimension per swept parameter; heatmap() and lines() draw from it.
"""
import argparse
import sys

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
    da = _best(g[metric], (x, y), higher).transpose(y, x)
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
    fig.savefig(out, dpi=DPI)
    plt.close(fig)


def lines(g, metric, x, out, hue=None, higher=False):
    """`metric` against swept parameter x, one line per value of `hue`."""
    x = _name(g, x)
    keep = (x,) if hue is None else (x, _name(g, hue))
    da = _best(g[metric], keep, higher)
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
    fig.savefig(out, dpi=DPI)
    plt.close(fig)


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
    try:
        g = grid(a.results)
        if a.metric not in g:
            raise ValueError(f"{a.metric}: no such result")
        if a.y:
            heatmap(g, a.metric, a.x, a.y, a.output, a.higher_is_better)
        else:
            lines(g, a.metric, a.x, a.output, a.hue, a.higher_is_better)
    except (ValueError, OSError) as e:
        print(f"plot.py: {a.results}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
