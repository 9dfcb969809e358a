#!/bin/sh
# Runs once, when the primary's data directory is created (the postgres image runs
# /docker-entrypoint-initdb.d/*): the role the replica copies and follows the primary with, the
# slot that keeps the WAL the replica has not received yet, and the pg_hba line that lets the
# replica connect from another container (the image's own lines allow databases, not
# replication).
set -eu

psql -v ON_ERROR_STOP=1 -v password="$REPLICATION_PASSWORD" \
    --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SELECT pg_create_physical_replication_slot('replica1');
SQL

echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
