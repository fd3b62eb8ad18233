#!/usr/bin/env bash
# A Slurm cluster of one or more nodes in a folder, on one machine, for tests
# and trying the sbatch script: munged, slurmctld and a slurmd per node
# started by hand (no systemd) with a generated minimal slurm.conf
# (select/cons_tres, proctrack/linuxproc, task/none, free ports, state under
# DIR). Several nodes are several slurmd on this machine, each with its own
# name (mv1, mv2, ...), port, spool, log and pid file (Slurm's "multiple
# slurmd": NodeName entries with NodeHostname=localhost and distinct ports);
# each node has CPUS CPUs (the machine's cores, shared). Needs root, Debian's
# slurm-wlm and munge (tools/deps.sh).
#   testcluster.sh start DIR [CPUS] [NODES]  starts it (1 node: "localhost");
#                                            `. DIR/env` points the Slurm
#                                            commands at it (SLURM_CONF)
#   testcluster.sh stop DIR                  stops the daemons it started (by
#                                            the pids they wrote under DIR)
set -euo pipefail
cmd=${1:?usage: testcluster.sh start|stop DIR [CPUS] [NODES]} dir=${2:?usage: testcluster.sh start|stop DIR}

stop() {
  local pid f
  for f in "$dir"/slurmd*.pid "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    pid=$(cat "$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for f in "$dir"/slurmd*.pid "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do # then wait for them
    pid=$(cat "$f" 2>/dev/null || true)
    for _ in $(seq 50); do
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    rm -f "$f"
  done
  return 0
}

# N free TCP ports.
ports() {
  /usr/bin/python3 -c 'import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}

start() {
  local cpus=${3:-$(nproc)} nodes=${4:-1} names="" i
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
  local port=($(ports $((nodes + 1))))
  # Job ids of their own: every test cluster started at 1, so two at once on
  # this machine (two developers' tests) ran two "job 1, step 0" whose ranks
  # Open MPI named alike, and their shared-memory segments met: both jobs'
  # ranks died in their first MPI_Allgather (segfault in the vader BTL; seen
  # in slurm_requeue and slurm_nodes). The milliseconds and this shell's pid.
  local first=$((($(date +%s%N) / 1000000 + $$ * 7919) % 60000000 + 1000))
  cat > "$dir/slurm.conf" <<CONF
ClusterName=mvtest
FirstJobId=$first
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=${port[0]}
SlurmdPort=${port[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
TmpFS=$dir/tmp/%n
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
CONF
  if [ "$nodes" = 1 ]; then
    names=localhost
    echo "NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN" >> "$dir/slurm.conf"
  else
    for i in $(seq "$nodes"); do
      names="$names${names:+,}mv$i"
      echo "NodeName=mv$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=${port[$i]} CPUs=$cpus State=UNKNOWN" >> "$dir/slurm.conf"
    done
  fi
  echo "PartitionName=debug Nodes=$names Default=YES MaxTime=INFINITE State=UP" >> "$dir/slurm.conf"
  echo "export SLURM_CONF=$dir/slurm.conf" > "$dir/env"
  export SLURM_CONF=$dir/slurm.conf
  /usr/sbin/slurmctld -f "$SLURM_CONF"
  for i in ${names//,/ }; do
    mkdir -p "$dir/spool/$i" "$dir/tmp/$i"
    /usr/sbin/slurmd -f "$SLURM_CONF" -N "$i"
  done
  for _ in $(seq 200); do
    if [ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle')" = "$nodes" ]; then return 0; fi
    sleep 0.1
  done
  echo "testcluster.sh: the nodes did not come up; logs in $dir/log" >&2
  return 1
}

case $cmd in
start) start "$@" ;;
stop) stop ;;
*) echo "usage: testcluster.sh start|stop DIR [CPUS] [NODES]" >&2; exit 2 ;;
esac
