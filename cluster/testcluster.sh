#!/usr/bin/env bash
# A one-node Slurm cluster in a folder, for tests and trying the sbatch script
# on one machine: munged, slurmctld and slurmd started by hand (no systemd)
# with a generated minimal slurm.conf (select/cons_tres, proctrack/linuxproc,
# task/none, free ports, state under DIR). Needs root, Debian's slurm-wlm and
# munge (tools/deps.sh).
#   testcluster.sh start DIR [CPUS]   starts it; `. DIR/env` points the Slurm
#                                     commands at it (SLURM_CONF)
#   testcluster.sh stop DIR           stops the daemons it started (by the
#                                     pids they wrote under DIR)
set -euo pipefail
cmd=${1:?usage: testcluster.sh start|stop DIR [CPUS]} dir=${2:?usage: testcluster.sh start|stop DIR}

stop() {
  local pid
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    pid=$(cat "$dir/$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do # then wait for them
    pid=$(cat "$dir/$f" 2>/dev/null || true)
    for _ in $(seq 50); do
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    rm -f "$dir/$f"
  done
  return 0
}

# Two free TCP ports.
ports() {
  /usr/bin/python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])'
}

start() {
  local cpus=${3:-$(nproc)}
  [ "$(id -u)" = 0 ] || { echo "testcluster.sh: needs root" >&2; return 1; }
  for b in munged slurmctld slurmd; do
    command -v $b > /dev/null || [ -x /usr/sbin/$b ] || { echo "testcluster.sh: no $b (tools/deps.sh)" >&2; return 1; }
  done
  [ "$cpus" -ge 2 ] || cpus=2
  rm -rf "$dir" && mkdir -p "$dir"/{state,spool,munge,log}
  dir=$(cd "$dir" && pwd)
  chmod 700 "$dir/munge"
  head -c 1024 /dev/urandom > "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
  /usr/sbin/munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/seed" --force
  read -r ctld_port slurmd_port < <(ports)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=mvtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
SchedulerType=sched/builtin
ReturnToService=2
JobRequeue=1
MinJobAge=600
KillWait=10
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  echo "export SLURM_CONF=$dir/slurm.conf" > "$dir/env"
  export SLURM_CONF=$dir/slurm.conf
  /usr/sbin/slurmctld -f "$SLURM_CONF"
  /usr/sbin/slurmd -f "$SLURM_CONF" -N localhost
  for _ in $(seq 200); do
    if sinfo -h -N -o '%t' 2>/dev/null | grep -q '^idle'; then return 0; fi
    sleep 0.1
  done
  echo "testcluster.sh: the node did not come up; logs in $dir/log" >&2
  return 1
}

case $cmd in
start) start "$@" ;;
stop) stop ;;
*) echo "usage: testcluster.sh start|stop DIR [CPUS]" >&2; exit 2 ;;
esac
