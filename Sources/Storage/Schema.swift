import GRDB

/// The SQLite schema as versioned migrations. A migration, once released, is never edited: a change is a new one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            // Engine-wide counters (generation, revision, clock) as key/value text.
            try db.create(table: "engine_meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            // Pending requests: the JSON as accepted, and the numbers behind deliveryId and implied states.
            try db.create(table: "requests") { t in
                t.primaryKey("identifier", .text)
                t.column("json", .text).notNull()
                t.column("revision", .integer).notNull()
                t.column("firings", .integer).notNull()
                t.column("added_generation", .integer).notNull()
                t.column("added_at", .integer).notNull()
            }
            // Device records (engine-private state text) and what a reader may want without the engine.
            try db.create(table: "devices") { t in
                t.primaryKey("device", .text)
                t.column("last_fix", .integer)
                t.column("last_sighting", .integer)
                t.column("state", .text).notNull()
            }
            // Stored (request, device) pair states; pairs in their implied state have no row.
            try db.create(table: "pair_states") { t in
                t.column("device", .text).notNull().references("devices", onDelete: .cascade)
                t.column("identifier", .text).notNull()
                t.column("revision", .integer).notNull()
                t.column("state", .text).notNull()
                // The engine's pair order: it decides the order in which one fix's notifications fire.
                t.column("position", .integer).notNull()
                t.primaryKey(["device", "identifier"])
            }
            // repeats: false requests that fired and left the pending set.
            try db.create(table: "delivered") { t in
                t.primaryKey("identifier", .text)
                t.column("json", .text).notNull()
                t.column("device", .text).notNull()
                t.column("delivered_at", .integer).notNull()
            }
            // Fired notifications in firing order; `sequence` is the order sinks deliver in.
            try db.create(table: "outbox") { t in
                t.autoIncrementedPrimaryKey("sequence")
                t.column("delivery_id", .text).notNull().unique()
                t.column("identifier", .text).notNull()
                t.column("device", .text).notNull()
                t.column("json", .text).notNull()
                t.column("created_at", .integer).notNull()
            }
            // Per sink, the last outbox sequence it has delivered (acknowledged).
            try db.create(table: "sink_cursors") { t in
                t.primaryKey("sink", .text)
                t.column("sequence", .integer).notNull()
            }
        }
        m.registerMigration("v2") { db in
            // Wall-clock time an entry entered the outbox (firedAt is engine time, which replays set from input):
            // the outbox's age bound and the delivery latency are measured from it. Rows from v1 have none.
            try db.alter(table: "outbox") { t in t.add(column: "enqueued_at", .integer) }
            // Per sink, entries settled (acknowledged or dead-lettered) beyond its cursor: devices are delivered
            // concurrently, so acknowledgements arrive out of sequence order. The cursor moves over the
            // contiguous settled prefix and takes these rows with it.
            try db.execute(sql: """
                CREATE TABLE sink_acks (
                    sink TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    PRIMARY KEY (sink, sequence)
                ) WITHOUT ROWID
                """)
            // Entries a sink refused for good, with its answer; replayable by id.
            try db.create(table: "dead_letters") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("sink", .text).notNull()
                t.column("sequence", .integer).notNull()
                t.column("delivery_id", .text).notNull()
                t.column("device", .text).notNull()
                t.column("json", .text).notNull()
                t.column("status", .integer)
                t.column("response", .text).notNull()
                t.column("enqueued_at", .integer).notNull()
                t.column("failed_at", .integer).notNull()
                t.column("attempts", .integer).notNull()
                // Set by a replay request; cleared when the replay succeeds (the row goes) or fails for good.
                t.column("replay_requested_at", .integer)
            }
            try db.create(index: "dead_letters_by_sink", on: "dead_letters", columns: ["sink", "replay_requested_at"])
        }
        m.registerMigration("v3") { db in
            // API credentials: a salted SHA-256 of the secret, never the secret. `devices` is a JSON array of
            // strings (device scope only). Rows stay after revocation.
            try db.create(table: "credentials") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("scope", .text).notNull()
                t.column("devices", .text).notNull()
                t.column("salt", .blob).notNull()
                t.column("hash", .blob).notNull()
                t.column("created_at", .integer).notNull()
                t.column("revoked_at", .integer)
            }
        }
        return m
    }
}
