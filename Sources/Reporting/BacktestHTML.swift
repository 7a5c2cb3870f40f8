import IAPBasics
import JSONText

/// backtest.html (docs/backtest.md): what a rule change would do, for the reviewer who signs it
/// off. The two Rules directories, the totals and the per-rule counts are HTML written here;
/// the changed orders are JSON data (`BacktestRow.json`) that the page's one script turns
/// into a table that sorts, filters and pages. It looks like report.html (its style sheet and
/// `ReportAssets.grid`) and is as strict: everything from the data is escaped, and the
/// Content-Security-Policy runs nothing but the page's own script and style, by SHA-256.
public enum BacktestHTML {
    /// The whole page, written in pieces through `emit`.
    /// `hashes`: of `script` and `style`, for the Content-Security-Policy (made with
    /// OpenSSL by the caller, as report.html's are).
    public static func write(
        totals: BacktestTotals, baseline: String, candidate: String, rows: [BacktestRow],
        hashes: ReportHTML.Hashes, emit: ([UInt8]) throws -> Void
    ) throws {
        try emit(
            Array(
                (ReportHTML.documentStart(
                    title: "iapscreen backtest: \(candidate) against \(baseline)",
                    style: style, hashes: hashes)
                    + header(baseline: baseline, candidate: candidate) + totalsSection(totals) + rulesSection(totals)
                    + changesSection(count: rows.count)).utf8))
        if !rows.isEmpty { try writeData(rows, emit: emit) }
        try emit(
            Array(
                ("</section>\n<footer class=\"note\">Written by iapscreen backtest. The same changes are in backtest.csv "
                    + "and backtest.json beside this page.</footer>\n<script>\(script)</script>\n</body></html>\n").utf8
            ))
    }

    static func header(baseline: String, candidate: String) -> String {
        let e = HTMLEscaping.escape
        return """
            <header id="run"><h1>iapscreen backtest</h1>
            <p>The same orders screened under two Rules directories, and the orders whose findings change.</p>
            <dl class="run">
            <dt>Baseline Rules</dt><dd class="mono" id="baseline">\(e(baseline))</dd>
            <dt>Candidate Rules</dt><dd class="mono" id="candidate">\(e(candidate))</dd>
            </dl></header>

            """
    }

    static func totalsSection(_ t: BacktestTotals) -> String {
        func card(_ id: String, _ n: Int, _ label: String, alert: Bool = false) -> String {
            ReportHTML.card(id: id, n, label, alert: alert)
        }
        return
            "<section id=\"totals\"><h2>Totals</h2><p id=\"summary\">\(HTMLEscaping.escape(t.summaryLine))</p><div class=\"cards\">"
            + card("total-orders", t.orders, "orders screened")
            + card("total-flagged-baseline", t.flaggedBaseline, "flagged under the baseline")
            + card("total-flagged-candidate", t.flaggedCandidate, "flagged under the candidate")
            + card("total-newly-flagged", t.newlyFlagged.orders, "newly flagged")
            + card("total-no-longer-flagged", t.noLongerFlagged.orders, "no longer flagged")
            + card("total-rules-changed", t.rulesChanged.orders, "flagged under both with other findings")
            + "</div>\n<h3>Newly flagged, against the ledger</h3><div class=\"cards\">"
            + card("newly-flagged-fraud", t.newlyFlagged.reviewedFraud, "reviewed fraud")
            + card("newly-flagged-legit", t.newlyFlagged.reviewedLegit, "reviewed legit (false alarms)", alert: true)
            + card("newly-flagged-refunded", t.newlyFlagged.refunded, "refunded")
            + "</div>\n<h3>No longer flagged, against the ledger</h3><div class=\"cards\">"
            + card(
                "no-longer-flagged-fraud", t.noLongerFlagged.reviewedFraud, "reviewed fraud (catches lost)", alert: true
            )
            + card("no-longer-flagged-refunded", t.noLongerFlagged.refunded, "refunded", alert: true)
            + "</div>\n<h3>Money at risk</h3>" + atRisk(t) + "</section>\n"
    }

    /// Per currency, the amounts of the orders newly flagged and of those no longer flagged.
    static func atRisk(_ t: BacktestTotals) -> String {
        let e = HTMLEscaping.escape
        let currencies = Set(t.newlyFlagged.atRisk.keys).union(t.noLongerFlagged.atRisk.keys).sorted()
        guard !currencies.isEmpty else {
            return "<p id=\"at-risk\" class=\"note\">None: no order newly or no longer flagged carries an amount.</p>"
        }
        var out =
            "<table id=\"at-risk\"><thead><tr><th>currency</th><th class=\"n\">newly flagged</th>"
            + "<th class=\"n\">no longer flagged</th></tr></thead><tbody>"
        for c in currencies {
            let gained = t.newlyFlagged.atRisk[c] ?? .zero
            let lost = t.noLongerFlagged.atRisk[c] ?? .zero
            out +=
                "<tr><td>\(e(c))</td><td class=\"n\">\(e(gained.text(in: c)))</td>"
                + "<td class=\"n\">\(e(lost.text(in: c)))</td></tr>"
        }
        return out + "</tbody></table>"
    }

    static func rulesSection(_ t: BacktestTotals) -> String {
        var out =
            "<section id=\"rules\"><h2>Findings per rule</h2><p class=\"note\">Findings that count (not exempted) under "
            + "each Rules directory; added and removed count the orders that gain or lose the rule.</p>"
        guard !t.byRule.isEmpty else {
            return out + "<p id=\"t-rules\" class=\"empty\">No rule has findings under either.</p></section>\n"
        }
        out +=
            "<table id=\"t-rules\"><thead><tr><th>rule</th><th class=\"n\">baseline</th><th class=\"n\">candidate</th>"
            + "<th class=\"n\">added</th><th class=\"n\">removed</th></tr></thead><tbody>"
        for (rule, c) in t.byRule.sorted(by: { $0.key < $1.key }) {
            out +=
                "<tr><td class=\"mono\">\(HTMLEscaping.escape(rule))</td>"
                + [c.baseline, c.candidate, c.added, c.removed].map { "<td class=\"n\">\(ReportHTML.grouped($0))</td>" }
                .joined()
                + "</tr>"
        }
        return out + "</tbody></table>" + severitySection(t) + "</section>\n"
    }

    /// Rules whose findings count under both at another severity: both severities, counted.
    static func severitySection(_ t: BacktestTotals) -> String {
        guard !t.severityChanged.isEmpty else { return "" }
        var out =
            "<h3>Severity changed</h3><table id=\"t-severity\"><thead><tr><th>rule</th><th>baseline</th>"
            + "<th>candidate</th><th class=\"n\">findings</th><th class=\"n\">orders</th></tr></thead><tbody>"
        for c in SeverityChange.sorted(t.severityChanged) {
            let e = HTMLEscaping.escape
            out +=
                "<tr><td class=\"mono\">\(e(c.rule))</td><td>\(e(c.baseline))</td><td>\(e(c.candidate))</td>"
                + "<td class=\"n\">\(ReportHTML.grouped(c.findings))</td><td class=\"n\">\(ReportHTML.grouped(c.orders))</td></tr>"
        }
        return out + "</tbody></table>"
    }

    /// The section's start, up to where the data goes; `write` closes it.
    static func changesSection(count: Int) -> String {
        let title = "<section id=\"changes\"><h2>Changed orders (\(ReportHTML.grouped(count)))</h2>\n"
        guard count > 0 else { return title + "<p class=\"empty\" id=\"no-changes\">No order's findings change.</p>\n" }
        let filters = [
            ("f-change", "Change", "any"), ("f-rule", "Rule (either list)", "any rule"),
            ("f-verdict", "Verdict", "any"),
        ]
        return title + """
            <p>Every order whose findings differ. In the rules columns a rule the candidate adds is <span class="rule-added">marked</span>
            and one it drops is <span class="rule-removed">struck out</span>. Verdict: the reviewer's, from the ledger
            (<code>iapscreen review</code>); refunded: a store event says so.</p>

            """
            + ReportHTML.gridControls(
                filters, search: "order, user, product…", grid: "changes",
                noscript: "The table needs JavaScript; the same orders are in backtest.csv.")
    }

    /// The rows as one JSON array, HTML-safe, a chunk at a time: 10⁵ rows never make one string.
    static func writeData(_ rows: [BacktestRow], emit: ([UInt8]) throws -> Void) throws {
        let writer = JSONWriter(htmlSafe: true)
        var chunk = Array("<script type=\"application/json\" id=\"data-changes\">[\n".utf8)
        chunk.reserveCapacity((1 << 16) + 1024)
        for (i, row) in rows.enumerated() {
            if i > 0 { chunk.append(contentsOf: ",\n".utf8) }
            writer.write(.object(row.json), to: &chunk)
            if chunk.count >= 1 << 16 {
                try emit(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        chunk.append(contentsOf: "]</script>\n".utf8)
        try emit(chunk)
    }

    public static let style =
        ReportAssets.style + "\n" + #"""
            .tag.newly-flagged{background:#f8d7da;border-color:#e08a93}.tag.no-longer-flagged{background:#d4edda;border-color:#8fc99c}
            .tag.rules-changed{background:#eef}.severity-change{font-size:.85em;white-space:nowrap}
            .rule-added{color:var(--critical);font-weight:600}.rule-removed{color:#666;text-decoration:line-through}
            """#

    public static let script = #"""
        (function () {
          'use strict';
        \#(ReportAssets.grid)
          var CHANGES = ['newly-flagged', 'no-longer-flagged', 'rules-changed'];
          var CHANGE_LABEL = ['newly flagged', 'no longer flagged', 'rules changed'];
          function tag(cls, text) { return el('span', 'tag ' + cls, text); }
          function list(v) { return Array.isArray(v) ? v.map(str) : []; }
          function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

          // ---- The changed orders (BacktestRow.json), when there are any ----
          function changes() {
            var rows = readData('data-changes', isObject), n = rows.length, AMOUNT = new Float64Array(n), TEXT = new Array(n);
            rows.forEach(function (r, i) {
              r.baseline_rules = list(r.baseline_rules);
              r.candidate_rules = list(r.candidate_rules);
              r.change = str(r.change);
              r.verdict = str(r.verdict);
              r.refunded = r.refunded === true;
              r.severity_changes = Array.isArray(r.severity_changes) ? r.severity_changes.filter(isObject) : [];
              var amount = parseFloat(str(r.amount));
              AMOUNT[i] = isNaN(amount) ? -1 : amount;
            });
            function field(k) { return function (r) { return str(r[k]); }; }
            function searchText(i) {
              if (TEXT[i] === undefined) {
                var r = rows[i];
                TEXT[i] = [r.order_id, r.user_id, r.product_id, r.created_at].map(str).join('\n').toLowerCase();
              }
              return TEXT[i];
            }
            // Amounts sort within their currency: different currencies are never compared.
            function amountKey(r, i) {
              return str(r.currency) + ' ' + (AMOUNT[i] < 0 ? '' : ('0000000000000000' + AMOUNT[i].toFixed(4)).slice(-21));
            }
            // A rule the other list lacks is marked: added under the candidate, dropped from the baseline.
            function rulesCell(own, other, cls) {
              return function (td, r) {
                if (!r[own].length) { td.textContent = '\u2014'; return; }
                r[own].forEach(function (x, k) {
                  if (k > 0) { td.appendChild(document.createTextNode(', ')); }
                  add(td, el('span', r[other].indexOf(x) < 0 ? cls : '', x));
                });
              };
            }
            function column(id, title, k, extra) {
              var c = { id: id, title: title, key: field(k), cell: textCell(field(k)) };
              Object.keys(extra || {}).forEach(function (x) { c[x] = extra[x]; });
              return c;
            }

            var filters = { change: '', rule: '', verdict: '', q: '' };
            function keep(i) {
              var r = rows[i];
              if (filters.change && r.change !== filters.change) { return false; }
              if (filters.rule && r.baseline_rules.indexOf(filters.rule) < 0 && r.candidate_rules.indexOf(filters.rule) < 0) { return false; }
              if (filters.verdict && r.verdict !== (filters.verdict === 'none' ? '' : filters.verdict)) { return false; }
              if (filters.q && searchText(i).indexOf(filters.q.toLowerCase()) < 0) { return false; }
              return true;
            }
            var grid = new Grid({
              rows: rows, table: 't-changes', pager: 'p-changes', view: 'v-changes', noun: 'changed orders',
              keep: keep, sort: 'change', dir: 'asc', changed: function () { writeHash(); },
              columns: [
                column('order', 'Order', 'order_id', { cls: 'mono' }),
                column('user', 'User', 'user_id'),
                column('created', 'Credited (UTC)', 'created_at', { cls: 'nowrap', firstDir: 'desc' }),
                column('product', 'Product', 'product_id'),
                column('amount', 'Amount', 'amount', { numeric: true, cls: 'nowrap', firstDir: 'desc', key: amountKey }),
                column('currency', 'Currency', 'currency'),
                { id: 'baseline', title: 'Baseline rules', key: function (r) { return r.baseline_rules.join(' '); },
                  cell: rulesCell('baseline_rules', 'candidate_rules', 'rule-removed') },
                { id: 'candidate', title: 'Candidate rules', key: function (r) { return r.candidate_rules.join(' '); },
                  cell: rulesCell('candidate_rules', 'baseline_rules', 'rule-added') },
                { id: 'change', title: 'Change', key: function (r) { var k = CHANGES.indexOf(r.change); return k < 0 ? CHANGES.length : k; },
                  cell: function (td, r) {
                    var k = CHANGES.indexOf(r.change);
                    add(td, tag(k < 0 ? '' : r.change, k < 0 ? r.change : CHANGE_LABEL[k]));
                    // Where a severity changed, both severities.
                    r.severity_changes.forEach(function (c) {
                      add(td, el('div', 'severity-change', str(c.rule) + ' ' + str(c.baseline) + ' \u2192 ' + str(c.candidate)));
                    });
                  } },
                { id: 'verdict', title: 'Verdict', key: function (r) { return r.verdict; }, cell: function (td, r) {
                  if (r.verdict) { add(td, tag(r.verdict === 'fraud' || r.verdict === 'legit' ? r.verdict : '', r.verdict)); } else { td.textContent = '\u2014'; }
                } },
                { id: 'refunded', title: 'Refunded', key: function (r) { return r.refunded ? 1 : 0; }, firstDir: 'desc',
                  cell: function (td, r) { td.textContent = r.refunded ? 'yes' : 'no'; } }
              ]
            });

            // ---- Controls and the URL fragment (change=…&rule=…&verdict=…&q=…&sort=…&dir=…&size=…&page=…) ----
            var controls = { change: byId('f-change'), rule: byId('f-rule'), verdict: byId('f-verdict'), q: byId('f-q') };
            var changeCount = {}, ruleCount = {};
            rows.forEach(function (r) {
              changeCount[r.change] = (changeCount[r.change] || 0) + 1;
              r.baseline_rules.concat(r.candidate_rules.filter(function (x) { return r.baseline_rules.indexOf(x) < 0; }))
                .forEach(function (x) { ruleCount[x] = (ruleCount[x] || 0) + 1; });
            });
            options(controls.change, CHANGES.filter(function (c) { return changeCount[c]; })
              .map(function (c) { return [c, CHANGE_LABEL[CHANGES.indexOf(c)] + ' (' + number(changeCount[c]) + ')']; }));
            options(controls.rule, Object.keys(ruleCount).sort().map(function (x) { return [x, x + ' (' + number(ruleCount[x]) + ')']; }));
            options(controls.verdict, [['fraud', 'reviewed fraud'], ['legit', 'reviewed legit'], ['none', 'not reviewed']]);

            function readHash() {
              var p = fragment();
              if (!p) { return; }
              grid.readView(p, filters, controls);
              grid.page = Math.max(1, Number(p.get('page')) || 1);
              grid.refresh();
            }
            function writeHash() { setFragment(grid.writeView(filters)); }
            bindControls(grid, filters, controls, readHash, writeHash);
          }
          if (byId('t-changes')) { changes(); }

          // When the page was ready, for tests (milliseconds since navigation).
          document.body.setAttribute('data-ready', String(Math.round(performance.now())));
        })();
        """#
}
