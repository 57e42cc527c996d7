# Elasticsearch for the SIEM (siem_c) and storage tests: a single node on 127.0.0.1:19200 (HTTP) and 127.0.0.1:19300
# (transport), with security on: basic auth as user "threatlib", password "threatlib-e2e-password" (superuser, file
# realm; loopback only, for tests). State in $SVC_STATE.
#
# The server is Elastic's integration-test distribution from Maven Central
# (org.elasticsearch.distribution.integ-test-zip:elasticsearch, a zip), fetched once with mvn (~107 MB, kept in
# ~/.m2 like Kafka's jars) and unpacked into .cache/elasticsearch-$version. It is the server with only four modules:
# transport-netty4, x-pack-core, x-pack-security (so basic auth, users and API keys work) and apm. It has no bundled
# JDK, so it runs on the machine's Java (17 or newer: ES_JAVA_HOME is set from `java` on PATH), and it lacks what the
# other modules bring: rest-root (no `GET /`: it answers 405, so use _cluster/health or _nodes for the version),
# analysis-common (custom analyzers' extra filters), painless (scripts), reindex (_reindex, _delete_by_query,
# _update_by_query), ingest-common, mapper-extras (scaled_float, search_as_you_type), ILM, Kibana. The standard
# analyzer, index templates, _bulk, search with the core aggregations (terms, min, max, date_histogram, ...) and index
# deletion are all there.
#
# Elasticsearch refuses to run as root: when this script runs as root the node runs as the system user threatlib-es
# (created here if missing), which owns the node's config, data, logs and temp folders under $SVC_STATE and only
# reads the unpacked distribution. HTTP is plain (no TLS); security needs transport TLS only when the node would form
# a cluster, and single-node discovery on loopback skips that bootstrap check. The disk-watermark allocator is off so
# that a nearly full disk does not turn the test indices read-only.

es_version=8.19.21
es_port=19200
es_transport_port=19300
es_user=threatlib
es_password=threatlib-e2e-password
es_system_user=threatlib-es

svc_port() { echo "$es_port"; }

es_home() {
  local root
  root="$(cd "$E2E_STATE/../.." && pwd)"
  echo "${THREATLIB_CACHE_DIR:-$root/.cache}/elasticsearch-$es_version"
}

# The prefix that runs a command as the user the node runs as: threatlib-es when we are root, ourselves otherwise.
es_as_user_prefix() {
  es_as=()
  if [ "$(id -u)" -eq 0 ]; then
    es_as=(setpriv --reuid="$es_system_user" --regid="$es_system_user" --init-groups --)
  fi
}

es_as_user() {
  local es_as
  es_as_user_prefix
  "${es_as[@]}" "$@"
}

# The Java home of `java` on PATH (or ES_JAVA_HOME when set), if it is Java 17 or newer.
es_java_home() {
  local java_bin home major
  if [ -n "${ES_JAVA_HOME:-}" ]; then
    home="$ES_JAVA_HOME"
  else
    java_bin="$(command -v java)" || return 1
    home="$(dirname "$(dirname "$(readlink -f "$java_bin")")")"
  fi
  major="$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')"
  [ -n "$major" ] && [ "${major%%.*}" -ge 17 ] || return 1
  echo "$home"
}

svc_install() {
  local missing=()
  command -v java >/dev/null 2>&1 || [ -n "${ES_JAVA_HOME:-}" ] || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  command -v unzip >/dev/null 2>&1 || missing+=(unzip)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
  if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "elasticsearch: missing ${missing[*]} and apt-get is missing; install them" >&2
      return 1
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
  fi
  es_java_home >/dev/null || {
    echo "elasticsearch: needs Java 17 or newer (java on PATH, or ES_JAVA_HOME)" >&2
    return 1
  }
  if [ "$(id -u)" -eq 0 ] && ! id "$es_system_user" >/dev/null 2>&1; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$es_system_user"
  fi

  local home
  home="$(es_home)"
  if [ ! -f "$home/.complete" ]; then
    local download="$home.download"
    rm -rf "$download" "$home.partial"
    mkdir -p "$download"
    echo "elasticsearch: fetching the integration-test distribution $es_version from Maven Central" >&2
    mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.11.0:copy \
      -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$es_version:zip" \
      -DoutputDirectory="$download" >"$SVC_STATE/mvn.log" 2>&1 || {
      echo "elasticsearch: mvn dependency:copy failed; see $SVC_STATE/mvn.log" >&2
      tail -n 20 "$SVC_STATE/mvn.log" >&2
      return 1
    }
    unzip -q "$download/elasticsearch-$es_version.zip" -d "$home.partial"
    mv "$home.partial/elasticsearch-$es_version" "$home.partial/dist"
    rm -rf "$download" "$home"
    mv "$home.partial/dist" "$home"
    rmdir "$home.partial"
    touch "$home/.complete"
  fi
  if ! es_as_user test -r "$home/lib/elasticsearch-$es_version.jar"; then
    echo "elasticsearch: user $es_system_user cannot read $home (is a parent folder private?)" >&2
    return 1
  fi
}

es_env() {
  export ES_JAVA_HOME
  ES_JAVA_HOME="$(es_java_home)"
  export ES_PATH_CONF="$SVC_STATE/config"
  export ES_TMPDIR="$SVC_STATE/tmp"
  # The launcher's own JVM writes its scratch files here too, not in /tmp.
  export CLI_JAVA_OPTS="-Djava.io.tmpdir=$SVC_STATE/tmp"
  unset ES_JAVA_OPTS JAVA_HOME
}

es_write_config() {
  local home conf="$SVC_STATE/config"
  home="$(es_home)"
  # The temp folder holds only the last run's scratch files (the launcher leaves a folder there each start).
  rm -rf "$SVC_STATE/tmp"
  mkdir -p "$conf/jvm.options.d" "$SVC_STATE/data" "$SVC_STATE/logs" "$SVC_STATE/tmp" "$SVC_STATE/run"
  # The distribution's files, refreshed each start; users, users_roles and the keystore are kept.
  cp "$home/config/jvm.options" "$home/config/log4j2.properties" "$home/config/roles.yml" \
    "$home/config/role_mapping.yml" "$conf/"
  [ -f "$conf/users" ] || : >"$conf/users"
  [ -f "$conf/users_roles" ] || : >"$conf/users_roles"
  cat >"$conf/elasticsearch.yml" <<EOF
cluster.name: threatlib-e2e
node.name: threatlib-e2e
path.data: $SVC_STATE/data
path.logs: $SVC_STATE/logs
network.host: 127.0.0.1
http.port: $es_port
transport.port: $es_transport_port
discovery.type: single-node
xpack.security.enabled: true
xpack.security.http.ssl.enabled: false
xpack.security.transport.ssl.enabled: false
# The tests delete their indices by pattern (threatlib-test-*).
action.destructive_requires_name: false
cluster.routing.allocation.disk.threshold_enabled: false
EOF
  # Later lines win: a small heap, and no GC log (the distribution's keeps up to 2 GB of it).
  cat >"$conf/jvm.options.d/threatlib.options" <<EOF
-Xms512m
-Xmx512m
-XX:HeapDumpPath=$SVC_STATE/logs
-XX:ErrorFile=$SVC_STATE/logs/hs_err_pid%p.log
-Xlog:disable
-Xlog:all=warning:stderr:utctime,level,tags
EOF
  if [ "$(id -u)" -eq 0 ]; then
    chown -R "$es_system_user:$es_system_user" "$conf" "$SVC_STATE/data" "$SVC_STATE/logs" "$SVC_STATE/tmp" \
      "$SVC_STATE/run"
  fi
}

# Adds the test user to the file realm, or resets its password to the one above.
es_write_user() {
  local home verb=useradd
  home="$(es_home)"
  if grep -q "^$es_user:" "$SVC_STATE/config/users"; then verb=passwd; fi
  (
    es_env
    if [ "$verb" = useradd ]; then
      es_as_user "$home/bin/elasticsearch-users" useradd "$es_user" -p "$es_password" -r superuser
    else
      es_as_user "$home/bin/elasticsearch-users" passwd "$es_user" -p "$es_password"
    fi
  ) >"$SVC_STATE/users.out" 2>&1 || {
    echo "elasticsearch: elasticsearch-users $verb failed:" >&2
    cat "$SVC_STATE/users.out" >&2
    return 1
  }
}

svc_start() {
  if svc_healthy; then return 0; fi
  es_write_config
  es_write_user
  rm -f "$SVC_STATE/elasticsearch.pid" "$SVC_STATE/run/server.pid"
  local home
  home="$(es_home)"
  # A session of its own: the node must outlive the shell (and the test process) that started it. The subshell
  # execs setsid, which execs setpriv and then the launcher's JVM, so $! is the launcher; it starts the server JVM
  # (whose pid the server writes to run/server.pid) and stops it cleanly on SIGTERM.
  (
    es_env
    es_as_user_prefix
    exec setsid "${es_as[@]}" "$home/bin/elasticsearch" -p "$SVC_STATE/run/server.pid"
  ) >"$SVC_STATE/elasticsearch.log" 2>&1 </dev/null &
  echo $! >"$SVC_STATE/elasticsearch.pid"
}

svc_stop() {
  # SIGTERM to the launcher shuts the server down cleanly (flushes, releases the node lock); the server's own pid is
  # the fallback if the launcher is gone.
  svc_stop_pid "$SVC_STATE/elasticsearch.pid" 60 kill
  svc_stop_pid "$SVC_STATE/run/server.pid" 30 kill
  svc_wait_closed elasticsearch "$es_port"
  svc_wait_closed elasticsearch "$es_transport_port"
}

svc_healthy() {
  command -v curl >/dev/null 2>&1 || return 1
  local health
  health="$(curl -s --max-time 5 -u "$es_user:$es_password" "http://127.0.0.1:$es_port/_cluster/health" 2>/dev/null)" ||
    return 1
  case "$health" in
    *'"status":"green"'* | *'"status":"yellow"'*) return 0 ;;
    *) return 1 ;;
  esac
}
