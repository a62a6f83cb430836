#!/usr/bin/env bash
# What the test suite needs besides node_modules, checked in one place: `npm test` runs this first (pretest)
# and .ci/run calls it before its test runs. A fresh machine with the repository and `npm ci` then passes
# `npm test`, or is told exactly what to run.
#
#   programs : Debian's chromium (test/e2e/docs-browser.e2e-spec.ts: never a downloaded browser, never
#              skipped), curl (the documentation walk-through); with DATABASE_URL also PostgreSQL 15's server
#              binaries and pg_basebackup (test/e2e/faults.e2e-spec.ts runs a throwaway cluster of its own,
#              test/e2e/read-replicas.e2e-spec.ts a primary and a streaming replica of it)
#   services : PostgreSQL at DATABASE_URL's host and port when DATABASE_URL is set; RabbitMQ and NATS (always:
#              test/e2e/subscriptions-brokers.e2e-spec.ts delivers to them) and any service when a
#              suite needs them (their row in SERVICES below says when; TEST_SERVICES=rabbitmq,nats asks for
#              them now). Services no run needs are only reported.
#
# A missing program is installed with apt-get, and a local service that does not answer is started, when this
# user may (root, or sudo without a password). Otherwise the script prints the command to run and exits 1.
#
#   bash scripts/test-prerequisites.sh [--check]
#     --check        install and start nothing: report, and exit 1 if something is missing
#   environment: CHROMIUM_PATH (default /usr/bin/chromium, as the browser test reads it), DATABASE_URL,
#                RABBITMQ_URL (default amqp://127.0.0.1:5672), NATS_URL (default nats://127.0.0.1:4222),
#                TEST_SERVICES (comma list of services to require besides their rows' rule)
set -uo pipefail

CHECK_ONLY=false
for arg in "$@"; do
  case "$arg" in
    --check) CHECK_ONLY=true ;;
    -h | --help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-prerequisites: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

# Programs: name | file or command that must exist | Debian package | needed when (always, or with:VAR = when VAR is set)
PROGRAMS=(
  "chromium|$CHROMIUM|chromium|always"
  "curl|curl|curl|always"
  "PostgreSQL 15 server|/usr/lib/postgresql/15/bin/pg_ctl|postgresql-15|with:DATABASE_URL"
  "PostgreSQL 15 pg_basebackup|/usr/lib/postgresql/15/bin/pg_basebackup|postgresql-client-15|with:DATABASE_URL"
)

# Services: name | variable holding its URL | URL when that is unset | needed when | command that starts it (local, as root)
#   needed when: always | with:VAR (when VAR is set) | later (reported only, until a suite needs it: then
#   change it to always, or set TEST_SERVICES)
SERVICES=(
  "postgresql|DATABASE_URL||with:DATABASE_URL|pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql | head -n 1) main start"
  "rabbitmq|RABBITMQ_URL|amqp://127.0.0.1:5672|always|rabbitmq-server -detached"
  "nats|NATS_URL|nats://127.0.0.1:4222|always|start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log"
)
DEFAULT_PORTS="postgres=5432 postgresql=5432 amqp=5672 nats=4222"

MISSING=0
APT_UPDATED=false

say() { printf 'test prerequisites: %s\n' "$*"; }
problem() {
  MISSING=$((MISSING + 1))
  printf 'test prerequisites: MISSING %s\n' "$1"
  shift
  for line in "$@"; do printf '    %s\n' "$line"; done
}

# The prefix that runs a command as root here, or nothing and status 1 when this user may not.
as_root() {
  if [[ "$(id -u)" == 0 ]]; then
    ROOT_PREFIX=""
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    ROOT_PREFIX="sudo -n"
  else
    return 1
  fi
}
may_act() { [[ "$CHECK_ONLY" == false ]] && as_root; }
why_not() { if [[ "$CHECK_ONLY" == true ]]; then echo " (--check: nothing is installed or started)"; else echo " (not root, and no sudo without a password)"; fi; }

# needed RULE NAME: is it needed by this run?
needed() {
  local rule="$1" name="$2"
  [[ ",${TEST_SERVICES:-}," == *",$name,"* ]] && return 0
  case "$rule" in
    always) return 0 ;;
    with:*) local var="${rule#with:}"; [[ -n "${!var:-}" ]] ;;
    *) return 1 ;;
  esac
}

present() { if [[ "$1" == /* ]]; then [[ -x "$1" ]]; else command -v "$1" >/dev/null; fi; }

check_program() {
  local name path package rule
  IFS='|' read -r name path package rule <<<"$1"
  needed "$rule" "$name" || return 0
  if present "$path"; then
    say "$name: ok ($path)"
    return 0
  fi
  local install="apt-get update && apt-get install -y $package"
  if command -v apt-get >/dev/null && may_act; then
    say "$name: $path is absent, installing the Debian package $package"
    if [[ "$APT_UPDATED" == false ]]; then
      timeout 600 $ROOT_PREFIX apt-get update -qq && APT_UPDATED=true
    fi
    DEBIAN_FRONTEND=noninteractive timeout 900 $ROOT_PREFIX apt-get install -y -qq "$package" >/dev/null
    if present "$path"; then
      say "$name: installed ($path)"
      return 0
    fi
    problem "$name: $path is still absent after 'apt-get install -y $package'." "Install it (as root): $install"
  elif command -v apt-get >/dev/null; then
    problem "$name: $path is absent (the tests need it)$(why_not). Run as root, then npm test again:" "$install"
  else
    problem "$name: $path is absent (the tests need it) and there is no apt-get here: install the package '$package'."
  fi
}

# host_port URL: "host port" of a URL (default port by scheme), or nothing when it has no host.
host_port() {
  local url="$1" scheme rest host port
  [[ "$url" =~ ^([a-zA-Z][a-zA-Z0-9+.-]*)://(.*)$ ]] || return 1
  scheme="${BASH_REMATCH[1]}"
  rest="${BASH_REMATCH[2]%%[/?#]*}"
  rest="${rest##*@}"
  if [[ "$rest" =~ ^\[([^]]+)\](:([0-9]+))?$ ]] || [[ "$rest" =~ ^([^:]+)(:([0-9]+))?$ ]]; then
    host="${BASH_REMATCH[1]}"
    port="${BASH_REMATCH[3]}"
  else
    return 1
  fi
  if [[ -z "$port" ]]; then
    for pair in $DEFAULT_PORTS; do [[ "${pair%%=*}" == "$scheme" ]] && port="${pair#*=}"; done
  fi
  [[ -n "$host" && -n "$port" ]] && echo "$host $port"
}

answers() { timeout 3 bash -c ": >/dev/tcp/$1/$2" 2>/dev/null; }
is_local() { [[ "$1" == 127.0.0.1 || "$1" == localhost || "$1" == ::1 ]]; }

check_service() {
  local name var default rule start url hp host port
  IFS='|' read -r name var default rule start <<<"$1"
  url="${!var:-$default}"
  if ! needed "$rule" "$name"; then
    if hp="$(host_port "$url")"; then
      read -r host port <<<"$hp"
      if answers "$host" "$port"; then say "$name: answers at $host:$port (not needed by this run)"
      else say "$name: not running at $host:$port (not needed by this run; start: $start)"; fi
    fi
    return 0
  fi
  if ! hp="$(host_port "$url")"; then
    problem "$name: cannot read a host and port from $var='$url'."
    return 0
  fi
  read -r host port <<<"$hp"
  if answers "$host" "$port"; then
    say "$name: answers at $host:$port"
    return 0
  fi
  if ! is_local "$host"; then
    problem "$name: nothing answers at $host:$port ($var). Start it there, or point $var at a running one."
    return 0
  fi
  if may_act; then
    say "$name: nothing answers at $host:$port, starting it: $start"
    $ROOT_PREFIX bash -c "$start" || true
    for _ in $(seq 1 30); do answers "$host" "$port" && break; sleep 1; done
    if answers "$host" "$port"; then
      say "$name: answers at $host:$port"
      return 0
    fi
    problem "$name: still nothing at $host:$port after starting it with: $start"
  else
    problem "$name: nothing answers at $host:$port ($var)$(why_not). Start it (as root), then npm test again:" "$start"
  fi
}

# PostgreSQL answering is not enough: the database of DATABASE_URL must exist.
check_database() {
  [[ -n "${DATABASE_URL:-}" ]] || return 0
  command -v psql >/dev/null || return 0
  local error hp host port db
  hp="$(host_port "$DATABASE_URL")" || return 0
  read -r host port <<<"$hp"
  answers "$host" "$port" || return 0
  if ! error="$(psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -qAtc 'SELECT 1' 2>&1 >/dev/null)"; then
    db="${DATABASE_URL##*/}"
    db="${db%%\?*}"
    problem "postgresql: cannot use DATABASE_URL: ${error%%$'\n'*}" "To create the database: createdb -h $host -p $port -U postgres $db"
  fi
}

for row in "${PROGRAMS[@]}"; do check_program "$row"; done
for row in "${SERVICES[@]}"; do check_service "$row"; done
check_database

if ((MISSING > 0)); then
  echo "test prerequisites: $MISSING missing (see above); the tests that need them would fail."
  exit 1
fi
