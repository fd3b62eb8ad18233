#!/usr/bin/python3
"""Compares two results files experiment by experiment: the same experiments
(index, id) in the same order, and every variable (swept values, results,
status, message, config) equal, floating-point values bit for bit (NaN equal
to NaN). Global attributes (host, date, shards) are not compared. Prints what it compared; exit 1 on the first
differences.

    same_results.py A.nc B.nc
    same_results.py --common A.nc B.nc

With --common, A's experiments are looked up in B by experiment_id (B may
hold more, in any order; the n-th row of an id in A is its n-th in B) and
compared over the variables both files have (a sweep of a part of B's grid
has fewer swept-value variables).

Reads the files with xarray where it is installed, else through the NetCDF C
library itself (ctypes: libnetcdf.so from MV_LIBNETCDF, LD_LIBRARY_PATH or
the loader's paths), as on a GPU machine without numpy;
MV_SAME_RESULTS_READER=ctypes takes that way anywhere.
"""
import array
import ctypes
import ctypes.util
import glob
import math
import os
import struct
import sys


def read_xarray(path):
    """{name: (shape, values)} of the file's data variables, by xarray."""
    import xarray as xr

    with xr.open_dataset(path) as d:
        return {v: (tuple(d[v].shape), d[v].values.ravel().tolist()) for v in d.data_vars}


# NetCDF external types: (array typecode, bytes) of the numeric ones.
NC_TYPES = {1: ("b", 1), 3: ("h", 2), 4: ("i", 4), 5: ("f", 4), 6: ("d", 8), 7: ("B", 1),
            8: ("H", 2), 9: ("I", 4), 10: ("q", 8), 11: ("Q", 8)}
NC_CHAR, NC_STRING = 2, 12


def libnetcdf():
    names = [os.environ["MV_LIBNETCDF"]] if os.environ.get("MV_LIBNETCDF") else []
    for d in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if d:
            names += sorted(glob.glob(os.path.join(d, "libnetcdf.so*")))
    found = ctypes.util.find_library("netcdf")
    names += ([found] if found else []) + ["libnetcdf.so.19", "libnetcdf.so"]
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError:
            continue
    sys.exit("same_results.py: neither xarray nor the NetCDF C library (libnetcdf.so) is found")


def read_ctypes(path):
    """{name: (shape, values)} of the file's variables, by the C library."""
    nc = libnetcdf()

    def ok(rc, what):
        if rc != 0:
            nc.nc_strerror.restype = ctypes.c_char_p
            sys.exit(f"same_results.py: {path}: {what}: {nc.nc_strerror(rc).decode()}")

    ncid, nvars = ctypes.c_int(), ctypes.c_int()
    ok(nc.nc_open(path.encode(), 0, ctypes.byref(ncid)), "open")
    ok(nc.nc_inq_nvars(ncid, ctypes.byref(nvars)), "variables")
    out = {}
    for v in range(nvars.value):
        name = ctypes.create_string_buffer(257)
        xtype, ndims, natts = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        dims = (ctypes.c_int * 1024)()
        ok(nc.nc_inq_var(ncid, v, name, ctypes.byref(xtype), ctypes.byref(ndims), dims,
                         ctypes.byref(natts)), f"variable {v}")
        shape = []
        for k in range(ndims.value):
            n = ctypes.c_size_t()
            ok(nc.nc_inq_dimlen(ncid, dims[k], ctypes.byref(n)), f"{name.value!r}: dimension")
            shape.append(n.value)
        dimnames = []
        for k in range(ndims.value):
            dn = ctypes.create_string_buffer(257)
            ok(nc.nc_inq_dimname(ncid, dims[k], dn), "dimension name")
            dimnames.append(dn.value)
        if ndims.value == 1 and dimnames[0] == name.value:
            continue  # a coordinate variable: xarray's data_vars leave it out
        count = math.prod(shape)
        if xtype.value == NC_STRING:
            ptrs = (ctypes.c_char_p * max(count, 1))()
            ok(nc.nc_get_var_string(ncid, v, ptrs), f"{name.value!r}")
            values = [(p or b"").decode("utf-8", "replace") for p in ptrs[:count]]
            nc.nc_free_string(ctypes.c_size_t(count), ptrs)
        elif xtype.value == NC_CHAR:
            buf = ctypes.create_string_buffer(max(count, 1))
            ok(nc.nc_get_var(ncid, v, buf), f"{name.value!r}")
            values = list(buf.raw[:count])
        elif xtype.value in NC_TYPES:
            code, size = NC_TYPES[xtype.value]
            buf = ctypes.create_string_buffer(max(count * size, 1))
            ok(nc.nc_get_var(ncid, v, buf), f"{name.value!r}")
            values = array.array(code, buf.raw[:count * size]).tolist()
        else:
            sys.exit(f"same_results.py: {path}: {name.value!r}: NetCDF type {xtype.value} not read")
        out[name.value.decode()] = (tuple(shape), values)
    nc.nc_close(ncid)
    return out


def with_xarray():
    """Whether the files are read by xarray (see the module's text)."""
    if os.environ.get("MV_SAME_RESULTS_READER", "") == "ctypes":
        return False
    try:
        import numpy  # noqa: F401
        import xarray  # noqa: F401
    except ImportError:
        return False
    return True


def read_file(path, use_xarray=None):
    """{name: (shape, values)} of the file's data variables, by xarray or the
    C library (None: as with_xarray says)."""
    if use_xarray is None:
        use_xarray = with_xarray()
    return read_xarray(path) if use_xarray else read_ctypes(path)


def same(x, y):
    """Equal values; floats bit for bit (0.0 is not -0.0), NaN equal to NaN."""
    if isinstance(x, float) and isinstance(y, float):
        return (x != x and y != y) or struct.pack("<d", x) == struct.pack("<d", y)
    return x == y


def rows(var, n):
    """The per-experiment rows of variable var = (shape, values) of a file of
    n experiments (its first dimension), or None when it has no such dimension."""
    shape, values = var
    if not shape or shape[0] != n:
        return None
    width = math.prod(shape[1:])
    return [values[i * width:(i + 1) * width] for i in range(n)]


def main_common(a_path, b_path):
    """A's experiments found in B by id and equal there (--common)."""
    use_xarray = with_xarray()
    a, b = read_file(a_path, use_xarray), read_file(b_path, use_xarray)
    ids_a, ids_b = a["experiment_id"][1], b["experiment_id"][1]
    rows_b = {}  # an id's rows in B: a job may repeat an experiment, its n-th row to A's n-th
    for i, e in enumerate(ids_b):
        rows_b.setdefault(e, []).append(i)
    at, seen, missing = [], {}, []
    for e in ids_a:
        n = seen[e] = seen.get(e, -1) + 1
        if n < len(rows_b.get(e, [])):
            at.append(rows_b[e][n])
        else:
            missing.append(e)
    if missing:
        print(f"{a_path}: {len(missing)} of {len(ids_a)} experiments are not in {b_path}"
              f" (first: {missing[0]})")
        return 1
    bad, compared = [], []
    for v in sorted(set(a) & set(b) - {"experiment_index"}):
        ra, rb = rows(a[v], len(ids_a)), rows(b[v], len(ids_b))
        if ra is None or rb is None:
            continue
        compared.append(v)
        for i, e in enumerate(ids_a):
            x, y = ra[i], rb[at[i]]
            if len(x) != len(y) or not all(same(p, q) for p, q in zip(x, y)):
                bad.append(f"{v} (experiment {e}): {x[:4]!r} vs {y[:4]!r}")
                break
    if bad:
        print(f"{a_path} and {b_path} differ:\n  " + "\n  ".join(bad[:6]))
        return 1
    print(f"{a_path} within {b_path}: {len(ids_a)} experiments, {len(compared)} variables"
          f"{'' if use_xarray else ' (read by the NetCDF C library)'}")
    return 0


def main(a_path, b_path):
    use_xarray = with_xarray()
    a, b = read_file(a_path, use_xarray), read_file(b_path, use_xarray)
    bad = []
    if sorted(a) != sorted(b):
        bad.append(f"variables differ: {sorted(a)} vs {sorted(b)}")
    index = a.get("experiment_index", ((), []))[1]
    for v in a:
        if v not in b:
            continue
        (sx, x), (sy, y) = a[v], b[v]
        if sx != sy:
            bad.append(f"{v}: shapes {sx} and {sy}")
            continue
        differ = [k for k in range(len(x)) if not same(x[k], y[k])]
        for k in differ[:3]:
            e = index[k] if len(sx) == 1 and k < len(index) else "?"
            bad.append(f"{v}[{k}] (experiment {e}): {x[k]!r} vs {y[k]!r}")
    if bad:
        print(f"{a_path} and {b_path} differ:\n  " + "\n  ".join(bad))
        return 1
    n = len(a.get("experiment_index", ((), []))[1])
    print(f"{a_path} == {b_path}: {n} experiments, {len(a)} variables"
          f"{'' if use_xarray else ' (read by the NetCDF C library)'}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--common"]:
        sys.exit(main_common(*sys.argv[2:4]))
    sys.exit(main(*sys.argv[1:3]))
