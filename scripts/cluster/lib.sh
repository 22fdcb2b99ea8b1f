# Shared by scripts/cluster/up and scripts/cluster/down: where the test cluster lives and how
# to tell whether one of its daemons is alive. Sourced, not executed.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file

CLUSTER_DIR="${CAMPAIGN_CLUSTER_DIR:-/tmp/campaign-cluster}"
case "$CLUSTER_DIR" in
  /*) ;;
  *) CLUSTER_DIR="$PWD/$CLUSTER_DIR" ;;
esac
CLUSTER_DIR="${CLUSTER_DIR%/}"

CLUSTER_NAME="campaign-test"
SLURMCTLD_PORT="${CAMPAIGN_SLURMCTLD_PORT:-16817}"
SLURMD_PORT="${CAMPAIGN_SLURMD_PORT:-16818}"
SLURMDBD_PORT="${CAMPAIGN_SLURMDBD_PORT:-16819}"
MARIADB_PORT="${CAMPAIGN_MARIADB_PORT:-16306}"

ETC="$CLUSTER_DIR/etc"
RUN="$CLUSTER_DIR/run"
LOG="$CLUSTER_DIR/log"
STATE="$CLUSTER_DIR/state"
MUNGE_DIR="$CLUSTER_DIR/munge"
MYSQL_DIR="$CLUSTER_DIR/mysql"
MUNGE_SOCKET="$RUN/munge.socket"
MARIADB_SOCKET="$MYSQL_DIR/run/mysqld.sock"
# MariaDB drops to the mysql user before it writes its pid file, so the file goes where the
# package lets that user write; its name is derived from the scratch dir so that two scratch
# dirs, or the package's own server (mysqld.pid), never share one. That file is mode 660, so
# `up` copies the pid into $RUN/mariadb.pid, the one the other checks read.
MARIADB_PIDFILE="/run/mysqld/campaign-cluster-$(printf %s "$CLUSTER_DIR" | cksum | cut -d' ' -f1).pid"
MARKER="$CLUSTER_DIR/.campaign-cluster"
READY="$CLUSTER_DIR/ready"
ENV_FILE="$CLUSTER_DIR/env"
export SLURM_CONF="$ETC/slurm.conf"
export PATH="$PATH:/usr/sbin:/sbin"

# The daemons in start order: name, the process name (/proc/PID/comm) and the pid file.
DAEMONS=(munge mariadb slurmdbd slurmctld slurmd)
daemon_comm() {
  case "$1" in
    munge) echo munged ;;
    mariadb) echo mariadbd ;;
    *) echo "$1" ;;
  esac
}
daemon_pidfile() {
  case "$1" in
    munge) echo "$RUN/munged.pid" ;;
    *) echo "$RUN/$1.pid" ;;
  esac
}

# proc_state PID: the one-letter state of a process, empty if there is none.
proc_state() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  stat="${stat##*) }"
  echo "${stat%% *}"
}

# proc_alive PID: the process exists and is not a zombie (PID 1 here reaps slowly).
proc_alive() {
  local s
  s="$(proc_state "$1")"
  [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}

# daemon_pid NAME: the pid of our daemon NAME if its pid file names a live process with the
# right process name; nothing (and status 1) otherwise.
daemon_pid() {
  local pidfile pid comm
  pidfile="$(daemon_pidfile "$1")"
  [ -r "$pidfile" ] || return 1
  pid="$(tr -dc 0-9 <"$pidfile")"
  [ -n "$pid" ] || return 1
  proc_alive "$pid" || return 1
  comm="$(cat "/proc/$pid/comm" 2>/dev/null)" || return 1
  [ "$comm" = "$(daemon_comm "$1")" ] || return 1
  echo "$pid"
}

# wait_gone PID SECONDS: waits for a process to exit (a zombie counts as gone).
wait_gone() {
  local pid="$1" deadline=$((SECONDS + $2))
  while proc_alive "$pid"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# stop_daemon NAME: TERM, wait up to 30 s, then KILL; only if the pid file is ours and alive.
stop_daemon() {
  local name="$1" pid
  pid="$(daemon_pid "$name")" || return 0
  echo "cluster: stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_gone "$pid" 30; then
    echo "cluster: $name (pid $pid) did not exit after 30 s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait_gone "$pid" 10 || echo "cluster: $name (pid $pid) still alive" >&2
  fi
  rm -f "$(daemon_pidfile "$name")"
}
