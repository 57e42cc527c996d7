# Kafka for the queue tests: a single-node KRaft broker (broker and controller in one JVM) on 127.0.0.1:9092, its
# controller on 127.0.0.1:9093, state in $SVC_STATE.
#
# There is no Debian package for Kafka, so the jars come from Maven Central: a generated pom names kafka_2.13 at a
# pinned version and `mvn dependency:copy-dependencies` fetches it with its runtime dependencies into $SVC_STATE/lib
# (about 46 MB, once). The broker is started with `java -cp lib/* kafka.Kafka`, which is all `kafka-server-start.sh`
# does. 3.9 is the last line that kafkajs 2.x negotiates with cleanly (4.0 dropped protocol versions kafkajs still
# sends for some requests) and it runs on the machine's Java 17.
#
# The storage is formatted once with a fixed cluster id; the data survives `down`/`up`, as a real broker's would, and
# the tests use topic names of their own so nothing leaks between runs. Topics are created on first use.

kafka_version=3.9.1
kafka_port=9092
kafka_controller_port=9093
# 16 bytes ("threatlib-kafka1") in URL-safe base64, as `kafka-storage random-uuid` prints an id.
kafka_cluster_id=dGhyZWF0bGliLWthZmthMQ

svc_port() { echo "$kafka_port"; }

kafka_lib() { echo "$SVC_STATE/lib-$kafka_version"; }

# Runs a Kafka tool's main class with the broker's class path.
kafka_java() {
  java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$SVC_STATE/log4j.properties" -cp "$(kafka_lib)/*" "$@"
}

svc_install() {
  if ! command -v java >/dev/null 2>&1; then
    echo "kafka: java is not on PATH; install a JDK 17 (Debian: openjdk-17-jre-headless)" >&2
    return 1
  fi
  local lib
  lib="$(kafka_lib)"
  if [ -f "$lib/.complete" ]; then return 0; fi
  if ! command -v mvn >/dev/null 2>&1; then
    echo "kafka: mvn is not on PATH; it fetches the Kafka jars from Maven Central (Debian: maven)" >&2
    return 1
  fi
  local build="$SVC_STATE/pom"
  mkdir -p "$build"
  cat >"$build/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>threatlib.e2e</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$kafka_version</version>
    </dependency>
    <!-- Kafka logs through slf4j; this binding (what the Kafka distribution ships) writes them to kafka.log. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
EOF
  rm -rf "$lib.partial"
  echo "kafka: fetching kafka_2.13 $kafka_version and its runtime dependencies from Maven Central" >&2
  mvn -q -B -f "$build/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$lib.partial" >"$SVC_STATE/mvn.log" 2>&1 || {
    echo "kafka: mvn dependency:copy-dependencies failed; see $SVC_STATE/mvn.log" >&2
    tail -n 20 "$SVC_STATE/mvn.log" >&2
    return 1
  }
  touch "$lib.partial/.complete"
  rm -rf "$lib"
  mv "$lib.partial" "$lib"
}

kafka_write_config() {
  cat >"$SVC_STATE/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$kafka_controller_port
listeners=PLAINTEXT://127.0.0.1:$kafka_port,CONTROLLER://127.0.0.1:$kafka_controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka_port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$SVC_STATE/data
auto.create.topics.enable=true
num.partitions=1
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=5
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=5
min.insync.replicas=1
# A consumer group that forms waits this long for more members; a single-node test setup has no one else to wait for.
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=67108864
EOF
  cat >"$SVC_STATE/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
EOF
}

svc_start() {
  if svc_healthy; then return 0; fi
  kafka_write_config
  if [ ! -f "$SVC_STATE/data/meta.properties" ]; then
    mkdir -p "$SVC_STATE/data"
    kafka_java kafka.tools.StorageTool format --ignore-formatted -t "$kafka_cluster_id" \
      -c "$SVC_STATE/server.properties" >"$SVC_STATE/format.log" 2>&1 || {
      echo "kafka: formatting the storage failed:" >&2
      cat "$SVC_STATE/format.log" >&2
      return 1
    }
  fi
  rm -f "$SVC_STATE/kafka.pid"
  : >"$SVC_STATE/kafka.log"
  # A session of its own: the broker must outlive the shell (and the test process) that started it. The subshell
  # execs setsid, which execs java, so $! is the broker's pid.
  (exec setsid java -Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$SVC_STATE/log4j.properties" -cp "$(kafka_lib)/*" \
    kafka.Kafka "$SVC_STATE/server.properties") >>"$SVC_STATE/kafka.log" 2>&1 </dev/null &
  echo $! >"$SVC_STATE/kafka.pid"
}

kafka_port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

svc_stop() {
  # SIGTERM is a controlled shutdown: the log is flushed, the next start needs no recovery.
  svc_stop_pid "$SVC_STATE/kafka.pid" 30 kill
  svc_wait_closed kafka "$kafka_port"
}

svc_healthy() {
  kafka_port_open "$kafka_port" || return 1
  # The port opens before the broker has caught up with the metadata log; "started" is logged once it serves.
  grep -q 'Kafka Server started' "$SVC_STATE/kafka.log" 2>/dev/null
}
