#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the build and the tests need, when run as root; otherwise
# prints the one apt-get line to run and fails. (slurm-wlm and munge: the Slurm tests start
# their own daemons with cluster/testcluster.sh; nothing is configured system-wide.)
set -euo pipefail
pkgs=(cmake make gcc pkg-config libopenmpi-dev openmpi-bin libnetcdf-dev libjansson-dev
      python3-xarray python3-netcdf4 python3-matplotlib slurm-wlm munge
      clang-14 libclang-rt-14-dev libomp-14-dev # clang: the fuzz targets (libFuzzer), make clang
      libprotobuf-c-dev protobuf-c-compiler) # Chakra execution traces (docs/chakra.md)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "multiverse: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "multiverse: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
