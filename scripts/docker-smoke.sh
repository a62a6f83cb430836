#!/usr/bin/env bash
# Docker smoke test without a Docker engine: performs the Dockerfile's steps in clean temporary
# directories and checks the result like a container orchestrator would.
#
#   build stage   : copy the sources, `npm ci`, `npm run build`
#   runtime stage : fresh directory, `npm ci --omit=dev`, copy dist/
#   run           : the Dockerfile's CMD against a fresh PostgreSQL database (smoke_<random>)
#   check         : /health/ready, create + read a resource with curl, the Dockerfile's HEALTHCHECK command
#   stop          : SIGTERM, graceful exit with code 0; the HEALTHCHECK must then fail
#
# Needs node, npm, git, curl, psql and PostgreSQL at $SMOKE_PG_HOST:$SMOKE_PG_PORT (default 127.0.0.1:5432,
# user postgres, trust auth). Exits non-zero with a message naming the failed step.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PG_HOST="${SMOKE_PG_HOST:-127.0.0.1}"
PG_PORT="${SMOKE_PG_PORT:-5432}"
PG_USER="${SMOKE_PG_USER:-postgres}"
PROJECT=smoke
CLIENT_ID=smoke-client
CLIENT_SECRET="smoke-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
SUFFIX="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
DB_NAME="smoke_$(date +%s)_${SUFFIX}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/docker-smoke.XXXXXX")"
BUILD_DIR="$WORK/build"
APP_DIR="$WORK/app"
SERVER_LOG="$WORK/server.log"
SERVER_PID=""
DB_CREATED=""
STEP="start"

log() { printf '[docker-smoke] %s\n' "$*"; }
fail() {
  printf '[docker-smoke] FAILED (%s): %s\n' "$STEP" "$*" >&2
  if [[ -s "$SERVER_LOG" ]]; then
    printf '[docker-smoke] last lines of the server log:\n' >&2
    tail -n 40 "$SERVER_LOG" >&2 || true
  fi
  exit 1
}
psql_admin() { psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

cleanup() {
  local status=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ -n "$DB_CREATED" ]]; then
    psql_admin -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" >/dev/null 2>&1 \
      || printf '[docker-smoke] warning: could not drop database %s\n' "$DB_NAME" >&2
  fi
  rm -rf "$WORK"
  if [[ $status -eq 0 ]]; then log "cleaned up"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in node npm git curl psql; do
  command -v "$tool" >/dev/null 2>&1 || { STEP="tools"; fail "'$tool' is not installed"; }
done

# Reads the Dockerfile's exec-form CMD or HEALTHCHECK as JSON lines, so this script runs exactly what
# the image would run.
dockerfile_exec() {
  node -e '
    const [file, instruction] = process.argv.slice(1);
    const lines = require("fs").readFileSync(file, "utf8").split("\n");
    const line = lines.filter((l) => l.startsWith(instruction + " ")).pop();
    if (!line) { console.error(`no ${instruction} in ${file}`); process.exit(1); }
    const json = instruction === "HEALTHCHECK" ? line.slice(line.indexOf(" CMD ") + 5) : line.slice(instruction.length + 1);
    const argv = JSON.parse(json);
    for (const arg of argv) console.log(arg);
  ' "$ROOT/Dockerfile" "$1"
}

# The runtime stage's ENV settings (after the last FROM), one NAME=value a line; values hold no spaces or quotes.
dockerfile_env() {
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
    const stage = lines.slice(lines.map((l) => l.startsWith("FROM ")).lastIndexOf(true));
    for (const line of stage.filter((l) => l.startsWith("ENV "))) {
      for (const pair of line.slice(4).trim().split(/\s+/)) console.log(pair);
    }
  ' "$ROOT/Dockerfile"
}

# ---------------------------------------------------------------- build stage
STEP="copy sources"
mkdir -p "$BUILD_DIR" "$APP_DIR"
# The files a `docker build .` context would hold: tracked files plus untracked, non-ignored ones
# (a clean CI clone has only tracked files), minus those deleted in the working tree.
(
  cd "$ROOT"
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [[ -f "$f" ]] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf -
) | tar -xf - -C "$BUILD_DIR" || fail "could not copy the sources with git ls-files"
for f in package.json package-lock.json tsconfig.json tsconfig.build.json src/main.ts; do
  [[ -f "$BUILD_DIR/$f" ]] || fail "$f is missing from the copied sources"
done
log "sources copied to $BUILD_DIR ($(find "$BUILD_DIR" -type f | wc -l) files)"

STEP="build stage: npm ci"
log "build stage: npm ci"
(cd "$BUILD_DIR" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci failed"
STEP="build stage: npm run build"
log "build stage: npm run build"
(cd "$BUILD_DIR" && npm run build --silent) || fail "npm run build failed"
[[ -f "$BUILD_DIR/dist/src/main.js" ]] || fail "the build produced no dist/src/main.js"

# ---------------------------------------------------------------- runtime stage
STEP="runtime stage: npm ci --omit=dev"
log "runtime stage: npm ci --omit=dev"
cp "$BUILD_DIR/package.json" "$BUILD_DIR/package-lock.json" "$APP_DIR/"
(cd "$APP_DIR" && NODE_ENV=production npm ci --omit=dev --no-audit --no-fund --loglevel=error) \
  || fail "npm ci --omit=dev failed"
[[ ! -d "$APP_DIR/node_modules/jest" && ! -d "$APP_DIR/node_modules/ts-jest" ]] || fail "dev dependencies were installed in the runtime stage"
cp -R "$BUILD_DIR/dist" "$APP_DIR/dist"
mkdir -p "$APP_DIR/data"

# ---------------------------------------------------------------- database
STEP="database"
if ! pg_isready -q -h "$PG_HOST" -p "$PG_PORT" 2>/dev/null; then
  if [[ "$PG_HOST" == 127.0.0.1 || "$PG_HOST" == localhost ]] && command -v pg_ctlcluster >/dev/null 2>&1 && [[ -d /etc/postgresql ]]; then
    log "PostgreSQL is not answering; starting the local cluster"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    for _ in $(seq 1 30); do pg_isready -q -h "$PG_HOST" -p "$PG_PORT" && break; sleep 1; done
  fi
fi
pg_isready -q -h "$PG_HOST" -p "$PG_PORT" || fail "PostgreSQL is not reachable at $PG_HOST:$PG_PORT"
psql_admin -c "CREATE DATABASE \"$DB_NAME\"" >/dev/null || fail "could not create database $DB_NAME"
DB_CREATED=1
DATABASE_URL="postgres://$PG_USER@$PG_HOST:$PG_PORT/$DB_NAME"
log "database $DB_NAME created"

# ---------------------------------------------------------------- run the image's CMD
STEP="start server"
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})')"
BASE="http://127.0.0.1:$PORT"
mapfile -t CMD_ARGV < <(dockerfile_exec CMD) || fail "could not read CMD from the Dockerfile"
mapfile -t HEALTHCHECK_ARGV < <(dockerfile_exec HEALTHCHECK) || fail "could not read HEALTHCHECK from the Dockerfile"
[[ ${#CMD_ARGV[@]} -gt 0 && ${#HEALTHCHECK_ARGV[@]} -gt 0 ]] || fail "CMD or HEALTHCHECK missing in the Dockerfile"
log "CMD: ${CMD_ARGV[*]} (port $PORT)"

# The container's environment: only what the image (its ENV lines) and the operator set; the operator's last.
mapfile -t IMAGE_ENV < <(dockerfile_env) || fail "could not read ENV from the Dockerfile"
RUN_ENV=(
  "${IMAGE_ENV[@]}"
  "PATH=$PATH" "HOME=$WORK" "NODE_ENV=production" "PORT=$PORT" "DATABASE_URL=$DATABASE_URL" "LOG_LEVEL=log"
  "BOOTSTRAP_PROJECT_KEY=$PROJECT" "BOOTSTRAP_CLIENT_ID=$CLIENT_ID" "BOOTSTRAP_CLIENT_SECRET=$CLIENT_SECRET"
  "BOOTSTRAP_SCOPES=manage_test:$PROJECT view_test:$PROJECT"
)
(cd "$APP_DIR" && exec env -i "${RUN_ENV[@]}" "${CMD_ARGV[@]}") >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

STEP="wait for /health/ready"
ready=""
for _ in $(seq 1 120); do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited during start-up"
  if [[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/health/ready" || true)" == 200 ]]; then ready=1; break; fi
  sleep 0.5
done
[[ -n "$ready" ]] || fail "/health/ready did not answer 200 within 60 s"
log "server ready at $BASE"

# ---------------------------------------------------------------- HTTP checks
# json_get FILE PATH: prints a member of a JSON file (dotted path), empty when absent.
json_get() {
  node -e '
    const [file, path] = process.argv.slice(1);
    let v = JSON.parse(require("fs").readFileSync(file, "utf8"));
    for (const p of path.split(".")) v = v == null ? undefined : v[p];
    if (v !== undefined && v !== null) console.log(typeof v === "object" ? JSON.stringify(v) : String(v));
  ' "$1" "$2"
}

STEP="token"
AUTH=()
status="$(curl -s -o "$WORK/token.json" -w '%{http_code}' -u "$CLIENT_ID:$CLIENT_SECRET" \
  -d grant_type=client_credentials "$BASE/oauth/token")"
case "$status" in
  200)
    TOKEN="$(json_get "$WORK/token.json" access_token)"
    [[ -n "$TOKEN" ]] || fail "POST /oauth/token answered 200 without access_token: $(cat "$WORK/token.json")"
    AUTH=(-H "Authorization: Bearer $TOKEN")
    log "token obtained for the bootstrap client"
    ;;
  404) log "no /oauth/token endpoint (access layer not built): requests go without a token" ;;
  *) fail "POST /oauth/token answered $status: $(cat "$WORK/token.json")" ;;
esac

STEP="create resource"
KEY="smoke-$SUFFIX"
BODY='{"key":"'"$KEY"'","objectTypeProperty":{"arrayOfIntExample":[9223372036854775807,1],"arrayOfUniqueIntExample":[1,2],"arrayOfTwonumbersExample":[1.5,2.5],"arrayOfFloatExample":[0.5],"arrayOfNumberNoDefaultsExample":[1500],"arrayOfStringExample":["smoke"],"arrayOfObjectType":[{"integerExample":-9223372036854775808,"integerExampleInt32":7}]}}'
status="$(curl -s -o "$WORK/created.json" -D "$WORK/created.headers" -w '%{http_code}' "${AUTH[@]}" \
  -H 'Content-Type: application/json' --data-binary "$BODY" "$BASE/$PROJECT/resource")"
[[ "$status" == 201 ]] || fail "POST /$PROJECT/resource answered $status (expected 201): $(cat "$WORK/created.json")"
ID="$(json_get "$WORK/created.json" id)"
[[ "$ID" =~ ^[0-9a-f-]{36}$ ]] || fail "the created resource has no UUID id: $(cat "$WORK/created.json")"
[[ "$(json_get "$WORK/created.json" version)" == 1 ]] || fail "a new resource must have version 1"
[[ "$(json_get "$WORK/created.json" key)" == "$KEY" ]] || fail "the created resource lost its key"
grep -qi "^location: /$PROJECT/resource/$ID" "$WORK/created.headers" || fail "missing Location header on 201"
grep -q '9223372036854775807' "$WORK/created.json" || fail "a 64-bit integer was not returned exactly"
log "created resource $ID"

STEP="read resource"
status="$(curl -s -o "$WORK/read.json" -w '%{http_code}' "${AUTH[@]}" "$BASE/$PROJECT/resource/$ID")"
[[ "$status" == 200 ]] || fail "GET /$PROJECT/resource/$ID answered $status (expected 200): $(cat "$WORK/read.json")"
cmp -s "$WORK/created.json" "$WORK/read.json" || fail "the read resource differs from the created one"
status="$(curl -s -o "$WORK/by-key.json" -w '%{http_code}' "${AUTH[@]}" "$BASE/$PROJECT/resource/key=$KEY")"
[[ "$status" == 200 && "$(json_get "$WORK/by-key.json" id)" == "$ID" ]] || fail "GET by key answered $status"
status="$(curl -s -o "$WORK/missing.json" -w '%{http_code}' "${AUTH[@]}" "$BASE/$PROJECT/resource/00000000-0000-4000-8000-000000000000")"
[[ "$status" == 404 && "$(json_get "$WORK/missing.json" errors.0.code)" == ResourceNotFound ]] \
  || fail "GET of an unknown id answered $status, not a 404 ResourceNotFound envelope"
log "read back by id and by key"

STEP="HEALTHCHECK"
(cd "$APP_DIR" && env -i "PATH=$PATH" "PORT=$PORT" "${HEALTHCHECK_ARGV[@]}") \
  || fail "the Dockerfile's HEALTHCHECK command failed against the running server"
log "HEALTHCHECK passes while the server runs"

# ---------------------------------------------------------------- stop
STEP="stop server"
kill -TERM "$SERVER_PID"
stopped=""
for _ in $(seq 1 75); do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then stopped=1; break; fi
  sleep 0.2
done
[[ -n "$stopped" ]] || fail "the server did not exit within 15 s of SIGTERM"
exit_code=0
wait "$SERVER_PID" 2>/dev/null || exit_code=$?
SERVER_PID=""
[[ "$exit_code" -eq 0 ]] || fail "the server exited with code $exit_code after SIGTERM (a graceful stop exits 0)"
if (cd "$APP_DIR" && env -i "PATH=$PATH" "PORT=$PORT" "${HEALTHCHECK_ARGV[@]}"); then
  fail "the HEALTHCHECK command succeeded with no server running"
fi
log "server stopped on SIGTERM; HEALTHCHECK now fails as it should"
STEP="done"
log "PASSED"
