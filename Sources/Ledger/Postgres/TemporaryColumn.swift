import PostgresClient

extension PostgresConnection {
    /// A temporary table `pg_temp.<table>` of one column holding `count` values (what `value`
    /// adds for each index), gone at the end of the transaction and analyzed, so that the
    /// planner joins a query to it by its size: a hash join for many, index probes for few.
    func temporaryColumn(
        _ table: String, _ column: String, count: Int, _ value: (inout PostgresCopyRows, Int) -> Void
    ) throws(PostgresError) {
        try execute("CREATE TEMP TABLE IF NOT EXISTS \(table)(\(column)) ON COMMIT DROP; TRUNCATE pg_temp.\(table)")
        try copyIn("COPY pg_temp.\(table) FROM STDIN", count: count) { rows, i in
            value(&rows, i)
            rows.endRow()
        }
        try execute("ANALYZE pg_temp.\(table)")
    }
}
