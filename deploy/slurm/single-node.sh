#!/usr/bin/env bash
# A throw-away single-node Slurm cluster, for trying submit.sh and for the
# test that runs it (TestSlurmArray). Debian's packages, no systemd: munged,
# slurmctld and slurmd run as the calling user (root, for slurmd) with their
# pid files, logs, state and socket in WORKDIR; no accounting.
#
#   sudo apt-get install -y --no-install-recommends slurm-wlm munge
#   deploy/slurm/single-node.sh start WORKDIR   # then: export SLURM_CONF=WORKDIR/slurm.conf
#   deploy/slurm/single-node.sh stop WORKDIR
#
# SLURM_PORT (default 16817) and SLURM_PORT+1 are the daemons' ports.
set -euo pipefail
action=${1:-} w=${2:-}
if [ -z "$w" ] || { [ "$action" != start ] && [ "$action" != stop ]; }; then
  echo "usage: single-node.sh start|stop WORKDIR" >&2; exit 2
fi
mkdir -p "$w"
w=$(cd "$w" && pwd)

stop() {
  for d in slurmd slurmctld munged; do
    if [ -f "$w/$d.pid" ]; then
      pid=$(cat "$w/$d.pid")
      # Only our daemon: the pid file's process, if it is still that program.
      if [ -n "$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$d" ]; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      fi
      rm -f "$w/$d.pid"
    fi
  done
}
if [ "$action" = stop ]; then stop; exit 0; fi

for p in munged slurmctld slurmd sbatch; do
  command -v $p >/dev/null || [ -x /usr/sbin/$p ] || { echo "single-node.sh: $p not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
done
export PATH=$PATH:/usr/sbin
port=${SLURM_PORT:-16817}
host=$(hostname -s)
mkdir -p "$w/state" "$w/spool" "$w/munge"
chmod 700 "$w/munge"
if [ ! -f "$w/munge/munge.key" ]; then
  head -c 1024 /dev/urandom > "$w/munge/munge.key"
  chmod 400 "$w/munge/munge.key"
fi
# --force: munged refuses to run as root, or with a key in a folder it
# does not own, without it; this munged serves this cluster alone.
munged --force --key-file="$w/munge/munge.key" --socket="$w/munge/munge.sock" \
  --pid-file="$w/munged.pid" --log-file="$w/munged.log" --seed-file="$w/munge/seed"

mem=$(awk '/MemTotal/ {print int($2/1024/2)}' /proc/meminfo)
cat > "$w/slurm.conf" <<CONF
ClusterName=fresgld-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$w/munge/munge.sock
StateSaveLocation=$w/state
SlurmdSpoolDir=$w/spool
SlurmctldPidFile=$w/slurmctld.pid
SlurmdPidFile=$w/slurmd.pid
SlurmctldLogFile=$w/slurmctld.log
SlurmdLogFile=$w/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
KillWait=10
MinJobAge=600
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$w/slurm.conf
slurmctld -i
slurmd -N "$host"
for _ in $(seq 100); do
  if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "single-node Slurm up: export SLURM_CONF=$w/slurm.conf"
    exit 0
  fi
  sleep 0.2
done
echo "single-node.sh: the node did not come up in 20 s; see $w/slurmctld.log and $w/slurmd.log" >&2
sinfo >&2 || true
exit 1
