/// What the workers of a sharded run keep in the ledger's database until the run is
/// committed (docs/ledger.md): the run and the state of each shard, every shard's orders as
/// claiming needs them, and what each shard's part of the run leaves in the ledger. None of
/// it is the ledger's memory: only a committed run's parts are merged into the ledger's
/// tables (in one transaction, by the shard that finishes last), and then the run's rows go.
///
/// Made on first use by a sharded run (under the migration lock), beside the ledger's
/// tables in schema `iapscreen`; a database no sharded run used has none of them. The
/// staged rows are UNLOGGED (no write-ahead log: a night's staging is written and deleted
/// once), and so are the shards' states, so that a server that crashes forgets both together:
/// the run (logged) is then still going on with no shard staged, and its workers are run
/// again. The ledger's own tables are logged as ever.
enum PostgresShardTables {
    static let create = """
        CREATE TABLE IF NOT EXISTS iapscreen.shard_runs(
            run_id text COLLATE "C" PRIMARY KEY, shards integer NOT NULL,
            started timestamptz NOT NULL DEFAULT now(), touched timestamptz NOT NULL DEFAULT now(),
            committed timestamptz, ledger_run bigint, split_dumps boolean NOT NULL DEFAULT false);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_states(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, staged boolean NOT NULL DEFAULT false,
            finished boolean NOT NULL DEFAULT false, worker text, orders bigint, flagged bigint,
            started_at text, finished_at text, PRIMARY KEY(run_id, shard));
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_orders(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, order_id text COLLATE "C" NOT NULL,
            user_id text COLLATE "C" NOT NULL, created_at bigint NOT NULL, created_ms boolean NOT NULL, position bigint NOT NULL,
            catalog integer,
            candidates text NOT NULL, keys bigint[], several boolean NOT NULL DEFAULT true,
            has_token boolean NOT NULL DEFAULT true);
        CREATE INDEX IF NOT EXISTS shard_orders_by_run ON iapscreen.shard_orders(run_id, shard);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_claims(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, n bigint NOT NULL, key text COLLATE "C" NOT NULL,
            order_id text COLLATE "C" NOT NULL, user_id text COLLATE "C" NOT NULL, created_at bigint NOT NULL,
            product_id text, amount text, currency text, purchase_token text COLLATE "C", platform text);
        CREATE INDEX IF NOT EXISTS shard_claims_by_run ON iapscreen.shard_claims(run_id, shard);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_reported(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, order_id text COLLATE "C" NOT NULL,
            rule text COLLATE "C" NOT NULL);
        CREATE INDEX IF NOT EXISTS shard_reported_by_run ON iapscreen.shard_reported(run_id, shard);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_events(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, n bigint NOT NULL, identity text NOT NULL,
            type text NOT NULL);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_refunds(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, n bigint NOT NULL, key text NOT NULL,
            refunded_at bigint NOT NULL, event text NOT NULL, reason text, source text, identity text NOT NULL,
            reversed_at bigint);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_reversals(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, key text NOT NULL, at bigint NOT NULL);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_consents(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, n bigint NOT NULL, user_id text NOT NULL,
            folded text NOT NULL, consent boolean NOT NULL, said_at bigint NOT NULL, order_id text NOT NULL,
            position bigint NOT NULL DEFAULT 0);
        """ + createFlagged

    /// Each shard's flagged orders for the desk, in `PostgresFlaggedOrders`' staged columns
    /// after (run id, shard); on a database whose shard tables were made before them, made on
    /// its own.
    static let createFlagged = """
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_flagged(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, n bigint NOT NULL, order_id text NOT NULL,
            user_id text, platform text, product_id text, amount text, currency text, created_at text,
            severity integer NOT NULL, rules text NOT NULL, block bigint NOT NULL);
        CREATE INDEX IF NOT EXISTS shard_flagged_by_run ON iapscreen.shard_flagged(run_id, shard);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_flagged_blocks(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, n bigint NOT NULL, data text NOT NULL);
        CREATE INDEX IF NOT EXISTS shard_flagged_blocks_by_run ON iapscreen.shard_flagged_blocks(run_id, shard);
        CREATE UNLOGGED TABLE IF NOT EXISTS iapscreen.shard_flagged_keys(
            run_id text COLLATE "C" NOT NULL, shard integer NOT NULL, order_id text NOT NULL, key text NOT NULL);
        CREATE INDEX IF NOT EXISTS shard_flagged_keys_by_run ON iapscreen.shard_flagged_keys(run_id, shard);
        """

    /// `ledger_run`, the `runs` row a committed run became, on a table made before it.
    static let addLedgerRun = "ALTER TABLE iapscreen.shard_runs ADD COLUMN ledger_run bigint"

    /// What the others' reading is filtered by (`OthersFilter`), on a table made before it:
    /// rows staged without it are sent to every reading.
    static let addOrderFilters = """
        ALTER TABLE iapscreen.shard_orders ADD COLUMN keys bigint[],
            ADD COLUMN several boolean NOT NULL DEFAULT true, ADD COLUMN has_token boolean NOT NULL DEFAULT true
        """

    /// `position`, where a consent's stating order stood (ties between shards), on a table made before it.
    static let addConsentPosition =
        "ALTER TABLE iapscreen.shard_consents ADD COLUMN position bigint NOT NULL DEFAULT 0"

    /// `split_dumps`, whether the run's workers read dumps split by shard, on a table made before it.
    static let addSplitDumps = "ALTER TABLE iapscreen.shard_runs ADD COLUMN split_dumps boolean NOT NULL DEFAULT false"

    /// Every table that holds a run's rows, for clearing a shard's part or the whole run.
    static let partTables = [
        "shard_orders", "shard_claims", "shard_reported", "shard_events", "shard_refunds",
        "shard_reversals", "shard_consents", "shard_flagged", "shard_flagged_blocks", "shard_flagged_keys",
    ]

    /// The tables of what a shard's part leaves in the ledger (all but its orders).
    static let recordTables = partTables.filter { $0 != "shard_orders" }
}
