#!/bin/sh
# The streaming replica (docker-compose.cluster.yml runs it as the postgres user). Its first
# start copies the primary with pg_basebackup, whose -R writes standby.signal and the
# primary_conninfo to follow it by; every start then runs PostgreSQL on that copy, read-only.
# PRIMARY_HOST, REPLICATION_PASSWORD; REPLICA_APPLY_DELAY (e.g. 2s) makes it lag on purpose,
# to show that what a client has just written is read from the primary.
set -eu

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    until pg_isready -q -h "$PRIMARY_HOST" -U replicator; do sleep 1; done
    # -S: the slot primary-init.sh made, so the primary keeps what this copy still needs.
    PGPASSWORD="$REPLICATION_PASSWORD" pg_basebackup -h "$PRIMARY_HOST" -U replicator \
        -D "$PGDATA" -X stream -S replica1 -R
    chmod 700 "$PGDATA"
fi

# hot_standby_feedback: a long read here (an export) is not cancelled by the primary's vacuum.
exec postgres -c hot_standby_feedback=on -c "recovery_min_apply_delay=${REPLICA_APPLY_DELAY:-0}" "$@"
