#!/usr/bin/env bash
# A one-machine Slurm cluster for trying and testing whittle's Slurm executor: munged, slurmctld
# and slurmd with a minimal configuration under one state directory.
#
#   scripts/slurm-local.sh start     # install (Debian: slurm-wlm, munge) if needed, then start
#   scripts/slurm-local.sh status    # is it up? prints the SLURM_CONF to export
#   scripts/slurm-local.sh stop      # stop the daemons, munged too when start started it (the state
#                                    # directory stays; start clears its jobs)
#   scripts/slurm-local.sh env       # prints `export SLURM_CONF=...` for eval
#
# The state lives in $WHITTLE_SLURM_DIR (default /tmp/whittle-slurm). The node offers every CPU
# of the machine, oversubscribed 8 times, so windows larger than the CPU count can be tried.
# Starting the daemons needs root (they run as root here: it is a test cluster on loopback).
set -euo pipefail

dir=${WHITTLE_SLURM_DIR:-/tmp/whittle-slurm}
conf="$dir/slurm.conf"
node=$(hostname -s)

die() {
    echo "slurm-local: $*" >&2
    exit 1
}

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v srun >/dev/null && command -v munged >/dev/null; then
        return
    fi
    command -v apt-get >/dev/null || die "slurmctld/slurmd/munged are missing and apt-get is not here"
    [ "$(id -u)" = 0 ] || die "installing slurm-wlm and munge needs root"
    echo "slurm-local: installing slurm-wlm and munge" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
}

write_config() {
    mkdir -p "$dir/state" "$dir/spool"
    cat >"$conf" <<EOF
ClusterName=whittle-local
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=${WHITTLE_SLURMCTLD_PORT:-6817}
SlurmdPort=${WHITTLE_SLURMD_PORT:-6818}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
NodeName=$node CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
}

start_munge() {
    if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        return
    fi
    [ -f /etc/munge/munge.key ] || {
        if command -v mungekey >/dev/null; then mungekey --create >/dev/null; else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null
        fi
        chown munge:munge /etc/munge/munge.key 2>/dev/null || true
        chmod 400 /etc/munge/munge.key
    }
    mkdir -p /run/munge /var/log/munge /var/lib/munge
    chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
    # Started here, so stopped here too (`stop`).
    touch "$dir/munged.started"
    if id munge >/dev/null 2>&1 && command -v runuser >/dev/null; then
        runuser -u munge -- /usr/sbin/munged
    else
        /usr/sbin/munged --force
    fi
    for _ in $(seq 50); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return
        sleep 0.1
    done
    die "munged did not come up"
}

is_up() {
    SLURM_CONF="$conf" timeout 5 sinfo -h -o '%T' 2>/dev/null | grep -Eq 'idle|mixed|alloc'
}

start() {
    install_packages
    [ "$(id -u)" = 0 ] || die "starting the daemons needs root"
    write_config
    start_munge
    if is_up; then
        echo "slurm-local: already up; export SLURM_CONF=$conf"
        return
    fi
    export SLURM_CONF="$conf"
    # A fresh controller: jobs an earlier run left in the state directory would hold the node.
    slurmctld -c -f "$conf"
    slurmd -f "$conf"
    for _ in $(seq 100); do
        if is_up; then
            echo "slurm-local: up; export SLURM_CONF=$conf"
            return
        fi
        sleep 0.2
    done
    tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    die "the node did not become idle"
}

stop() {
    for daemon in slurmd slurmctld; do
        if [ -f "$dir/$daemon.pid" ]; then
            kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
        fi
    done
    for _ in $(seq 50); do
        pgrep -f "slurm(ctld|d) -f $conf" >/dev/null || break
        sleep 0.1
    done
    pkill -9 -f "slurm(ctld|d) -f $conf" 2>/dev/null || true
    if [ -f "$dir/munged.started" ] && [ -f /run/munge/munged.pid ]; then
        kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true
    fi
    rm -f "$dir/munged.started"
    echo "slurm-local: stopped"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status)
        if is_up; then echo "slurm-local: up; export SLURM_CONF=$conf"; else
            echo "slurm-local: down"
            exit 1
        fi
        ;;
    env) echo "export SLURM_CONF=$conf" ;;
    *) die "usage: $0 start|stop|status|env" ;;
esac
