/// The style sheet and the one script of report.html (backtest.html reuses the style sheet
/// and `grid`). The page's Content-Security-Policy allows exactly these two by their SHA-256,
/// so neither may change at run time, and the script builds every node with createElement
/// and textContent: data never becomes markup.
public enum ReportAssets {
    public static let style = #"""
        :root{--critical:#b00020;--high:#d35400;--medium:#b7950b;--low:#2e86c1;--info:#7f8c8d}
        *{box-sizing:border-box}
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;padding:1.5em 2em;max-width:1280px;color:#1d1d1f;background:#fff}
        h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.25em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd;padding-bottom:.2em}
        h3{font-size:1em;margin:.8em 0 .3em}
        code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;word-break:break-all}
        table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d8d8d8;padding:3px 7px;vertical-align:top;text-align:left}
        th{background:#f4f4f6;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        .run{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:.6em 0}.run dt{color:#555}.run dd{margin:0}
        .cards{display:flex;flex-wrap:wrap;gap:10px;margin:.8em 0}
        .card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:120px}
        .card b{display:block;font-size:1.5em;font-variant-numeric:tabular-nums}.card span{color:#555}
        .card.alert{border-color:var(--critical)}.card.alert b{color:var(--critical)}
        .status-ok{color:#1e7e34}.status-fail{color:var(--critical);font-weight:600}
        .charts{display:flex;flex-wrap:wrap;gap:18px}
        .chart-box{margin:0;border:1px solid #e3e3e3;border-radius:6px;padding:10px;flex:1 1 100%;overflow-x:auto}
        .chart-body{display:flex;flex-wrap:wrap;gap:10px 28px;align-items:flex-start}.chart-draw{max-width:100%}
        ul.numbers.days{max-width:460px}
        figcaption{font-weight:600;margin-bottom:4px}
        svg.chart{display:block;max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#333}svg text.axis{fill:#666}
        .legend{margin:2px 0}.swatch{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px}
        .sev-critical{color:var(--critical);font-weight:600}.sev-high{color:var(--high);font-weight:600}.sev-medium{color:var(--medium)}
        .sev-low{color:var(--low)}.sev-info{color:var(--info)}
        .swatch.sev-critical{background:var(--critical)}.swatch.sev-high{background:var(--high)}.swatch.sev-medium{background:var(--medium)}
        .swatch.sev-low{background:var(--low)}.swatch.sev-info{background:var(--info)}
        ul.numbers{list-style:none;padding:0;margin:.4em 0;display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;max-width:740px}
        ul.numbers span{color:#555}td.about{color:#555;font-size:12px;max-width:380px}
        .note,.empty{color:#666;font-size:12px}.currency{font-weight:600;margin:.6em 0 0}
        .controls{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;margin:.5em 0}
        .controls label{display:flex;flex-direction:column;font-size:12px;color:#444}
        .controls select,.controls input{font:inherit;padding:3px}.controls input[type=search]{min-width:260px}
        button{font:inherit;cursor:pointer}
        .view{color:#444;margin:.3em 0}
        table.grid{width:100%}table.grid th{cursor:pointer;user-select:none;white-space:nowrap}
        table.grid th[aria-sort=ascending]::after{content:" \25B2"}table.grid th[aria-sort=descending]::after{content:" \25BC"}
        table.grid td{max-width:340px;overflow-wrap:anywhere}
        table.grid tr.open>td{background:#fff8e6}
        button.toggle{border:1px solid #bbb;background:#fafafa;border-radius:3px;padding:0 6px}
        tr.detail>td{background:#fcfcfc;padding:8px 14px}
        .finding{border-left:4px solid #ccc;padding:2px 10px;margin:6px 0}
        .finding.f-critical{border-color:var(--critical)}.finding.f-high{border-color:var(--high)}
        .finding.f-medium{border-color:var(--medium)}.finding.f-low{border-color:var(--low)}
        td.nowrap{white-space:nowrap}
        .wide{overflow-x:auto}table.requests td{white-space:nowrap}table.requests td.words{white-space:normal}
        .finding h4{margin:2px 0;font-size:13px}.finding p{margin:2px 0;font-weight:normal;color:#1d1d1f}
        table.ev th{width:180px;background:#f7f7f7}
        .replay{background:#fdecea;border:1px solid #f5c6cb;padding:4px 8px;border-radius:4px}
        .tag{display:inline-block;border-radius:3px;padding:0 5px;font-size:12px;border:1px solid #ccc;font-weight:normal}
        .tag.new{background:#fff3cd;border-color:#e0c060}.tag.fraud{background:#f8d7da;border-color:#e08a93}
        .tag.legit{background:#d4edda;border-color:#8fc99c}.tag.seen{background:#eef}.tag.exempted{background:#e2e3e5}
        tr.legit>td{color:#666}
        .pager{display:flex;gap:6px;align-items:center;margin:.4em 0}
        .printonly{display:none}
        @media print{
          body{padding:0;max-width:none;font-size:11px}
          .controls,.pager button,.pager select,button.toggle,noscript{display:none}
          .printonly{display:block}
          .chart-box{break-inside:avoid;border:none}h2{break-after:avoid}
          table.grid tr{break-inside:avoid}a{color:inherit;text-decoration:none}
          table.grid th[aria-sort]::after{content:""}
        }
        """#

    public static let script = #"""
        (function () {
          'use strict';
          var SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];
          var STANDING = { 'new': 'new', seen: 'seen', fraud: 'reviewed: fraud', legit: 'reviewed: legit', '': '\u2014' };
          // Table row fields (see ReportData.swift); trailing fields left out take their defaults.
          var O = 0, U = 1, PL = 2, PR = 3, AM = 4, CU = 5, CR = 6, FS = 7, ST = 8, RV = 9, RF = 10, KD = 11;
          var t0 = performance.now();

        \#(grid)
          // Values that repeat are written once in the shared strings and referred to by index.
          var STRINGS = parse('data-strings');
          if (!Array.isArray(STRINGS)) { STRINGS = []; }
          function S(v) { return typeof v === 'number' ? (STRINGS[v] !== undefined ? STRINGS[v] : '') : v; }
          function given(v) { return v !== null && v !== undefined; }
          // Evidence keys and values, [key, value, …], as an object.
          function extras(v) {
            var x = {};
            if (Array.isArray(v)) { for (var k = 0; k + 1 < v.length; k += 2) { x[str(S(v[k]))] = v[k + 1]; } }
            return x;
          }
          // A severity is written as its rank.
          function sevName(v) { return typeof v === 'number' ? (SEVERITIES[v] || '') : str(v); }
          function sevRank(s) { return SEVERITIES.indexOf(s); }
          function shellQuote(s) { return "'" + s.split("'").join("'\\''") + "'"; }

          // ---- The listed orders ----
          var rows = readData('data-rows');
          var tParsed = performance.now();
          // What sorting and filtering need of every row, in one tight pass: the highest severity and
          // the rules of its findings that are not exempted, and its amount. The rest of a row is
          // filled out (the defaults the data leaves out) only when it is drawn or searched.
          var n = rows.length, SEV = new Int8Array(n), AMOUNT = new Float64Array(n), RULESOF = new Array(n);
          var TEXT = new Array(n), FILLED = new Uint8Array(n);
          for (var i = 0; i < n; i++) {
            var r = rows[i], fs = r[FS], sev = -1, list = [];
            if (!Array.isArray(fs)) { fs = r[FS] = []; }
            for (var k = 0; k < fs.length; k++) {
              var f = fs[k];
              if (!Array.isArray(f)) { continue; }
              var name = f[0] = str(S(f[0]));
              if (given(f[7])) { continue; }
              var rank = typeof f[1] === 'number' ? f[1] : sevRank(str(f[1]));
              if (rank > sev) { sev = rank; }
              if (list.indexOf(name) < 0) { list.push(name); }
            }
            if (list.length > 1) { list.sort(); }
            SEV[i] = sev;
            RULESOF[i] = list;
            r[PL] = S(r[PL]);
            r[PR] = S(r[PR]);
            r[AM] = S(r[AM]);
            r[CU] = S(r[CU]);
            r[ST] = str(S(r[ST]));
            var kind = S(r[KD]);
            r[KD] = kind === 'receipt' || kind === 'event' ? kind : 'order';
            var amount = parseFloat(r[AM]);
            AMOUNT[i] = isNaN(amount) ? -1 : amount;
          }
          // Amounts sort within their currency: different currencies are never compared.
          function amountKey(r, i) {
            var a = AMOUNT[i] < 0 ? '' : ('0000000000000000' + AMOUNT[i].toFixed(4)).slice(-21);
            return str(r[CU]) + ' ' + a;
          }
          function fill(i) {
            var r = rows[i];
            if (FILLED[i]) { return r; }
            r[FS] = r[FS].filter(Array.isArray);
            r[FS].forEach(function (f) {
              f[1] = sevName(f[1]);
              f[3] = S(f[3]);
              f[4] = S(f[4]);
              f[5] = extras(f[5]);
              f[6] = str(S(f[6]));
              f[7] = given(f[7]) ? str(S(f[7])) : null;
            });
            r[RV] = Array.isArray(r[RV]) ? r[RV] : null;
            r[RF] = Array.isArray(r[RF]) ? r[RF] : [];
            FILLED[i] = 1;
            return r;
          }
          // The id a row opens by (#open=ID) and is written back with: its order's, else the place of
          // the record its finding is about (FILE:LINE, as its message says), else its number.
          function rowID(i) {
            var r = rows[i];
            if (given(r[O])) { return str(r[O]); }
            var f = fill(i)[FS][0], x = f ? f[5] : {};
            if (given(x.file) && given(x.line)) { return str(x.file) + ':' + str(x.line); }
            if (given(x.file) && given(x.row)) { return str(x.file) + ' row ' + str(x.row); }
            return '#' + (i + 1);
          }
          // The rows of each id: an order may have a row of its own and a store event's naming it.
          var ids = null;
          function rowsOf(id) {
            if (!ids) {
              ids = Object.create(null);
              for (var i = 0; i < n; i++) { var k = rowID(i); (ids[k] = ids[k] || []).push(i); }
            }
            return ids[id] || [];
          }
          // The order's own row, for a replay's button to it; -1 when the table has none.
          function rowOfOrder(id) {
            var own = rowsOf(id).filter(function (i) { return rows[i][KD] === 'order'; });
            return own.length ? own[0] : -1;
          }
          function searchText(i) {
            if (TEXT[i] === undefined) {
              var r = fill(i), parts = [r[O], r[U], r[PL], r[PR], r[AM], r[CU], r[CR]];
              r[FS].forEach(function (f) {
                parts.push(f[0], f[2], f[3], f[4]);
                Object.keys(f[5]).forEach(function (k) { parts.push(str(f[5][k])); });
              });
              r[RF].forEach(function (kv) { if (Array.isArray(kv)) { parts.push(kv[1]); } });
              TEXT[i] = parts.map(str).join('\n').toLowerCase();
            }
            return TEXT[i];
          }

          var filters = { rule: '', sev: '', platform: '', status: '', q: '' };
          function keepRow(i) {
            var r = rows[i];
            if (filters.rule && RULESOF[i].indexOf(filters.rule) < 0) { return false; }
            if (filters.sev && SEV[i] < sevRank(filters.sev)) { return false; }
            if (filters.platform && str(r[PL]) !== filters.platform) { return false; }
            if (filters.status) {
              var s = str(r[ST]);
              if (filters.status === 'reviewed' ? (s !== 'fraud' && s !== 'legit')
                : filters.status === 'open' ? (s !== 'new' && s !== 'seen') : s !== filters.status) { return false; }
            }
            if (filters.q && searchText(i).indexOf(filters.q.toLowerCase()) < 0) { return false; }
            return true;
          }

          function tag(cls, text) { return el('span', 'tag ' + cls, text); }
          function evidenceTable(f) {
            var t = el('table', 'ev'), tb = add(t, el('tbody'));
            var line = function (k, v) {
              var tr = add(tb, el('tr'));
              add(tr, el('th', '', k));
              add(tr, el('td', 'mono', v === null || v === undefined ? 'null' : str(v)));
            };
            line('expected', f[3]);
            line('actual', f[4]);
            Object.keys(f[5]).forEach(function (k) { line(k, f[5][k]); });
            return t;
          }
          function detailOf(i) {
            var r = fill(i), box = el('div', 'evidence');
            r[FS].forEach(function (f) {
              var div = add(box, el('div', 'finding f-' + str(f[1])));
              var h = add(div, el('h4'));
              add(h, el('span', 'mono', str(f[0])));
              h.appendChild(document.createTextNode(' \u00B7 ' + str(f[1]) + ' '));
              if (f[6]) { add(h, tag(f[6] === 'reviewed' ? 'seen' : f[6], f[6])); }
              if (f[7]) { add(h, tag('exempted', 'exempted: ' + str(f[7]))); }
              add(div, el('p', '', str(f[2])));
              var x = f[5];
              if (f[0] === 'replayed-transaction' && x.original_order_id !== undefined) {
                var rp = add(div, el('p', 'replay'));
                rp.appendChild(document.createTextNode('Replays order '));
                add(rp, el('b', 'mono', str(x.original_order_id)));
                var said = [];
                if (x.original_user_id !== undefined) { said.push('user ' + str(x.original_user_id)); }
                if (x.original_created_at !== undefined) { said.push('credited ' + str(x.original_created_at)); }
                if (x.transaction_id !== undefined) { said.push('transaction ' + str(x.transaction_id)); }
                if (said.length) { rp.appendChild(document.createTextNode(' (' + said.join(', ') + ')')); }
                var at = rowOfOrder(str(x.original_order_id));
                if (at >= 0 && at !== i) {
                  rp.appendChild(document.createTextNode(' '));
                  var b = add(rp, el('button', '', 'show it'));
                  b.type = 'button';
                  b.addEventListener('click', function () { showOrder(at); });
                } else {
                  rp.appendChild(document.createTextNode(' \u2014 the earlier order is not flagged in this report.'));
                }
              }
              div.appendChild(evidenceTable(f));
            });
            var fields = r[RF];
            if (fields.length) {
              add(box, el('h3', '', 'Receipt'));
              var t = add(box, el('table', 'ev receipt')), tb = add(t, el('tbody'));
              fields.forEach(function (kv) {
                if (!Array.isArray(kv)) { return; }
                var tr = add(tb, el('tr'));
                add(tr, el('th', '', str(kv[0])));
                add(tr, el('td', 'mono', str(kv[1])));
              });
            }
            if (Array.isArray(r[RV])) {
              var rv = add(box, el('p'));
              rv.appendChild(document.createTextNode('Reviewed '));
              add(rv, tag(str(r[RV][0]), str(r[RV][0])));
              rv.appendChild(document.createTextNode(' by ' + (str(r[RV][2]) || 'unknown') + ' on ' + str(r[RV][3])
                + (r[RV][1] ? ': ' + str(r[RV][1]) : '')));
            }
            if (r[KD] === 'order' && r[O] !== null) {
              var cmd = add(box, el('p', 'cmd'));
              cmd.appendChild(document.createTextNode('Record a verdict: '));
              add(cmd, el('code', '', 'iapscreen review --order=' + shellQuote(str(r[O])) + ' --verdict fraud|legit --note \u2026'));
            }
            return box;
          }

          var grid = new Grid({
            rows: rows, table: 't-rows', pager: 'p-rows', view: 'v-rows', noun: 'listed orders',
            keep: keepRow, detail: detailOf, prepare: fill, sort: 'severity', dir: 'desc',
            rowClass: function (r) { return r[ST] === 'legit' ? 'legit' : ''; },
            changed: function () { writeHash(); },
            columns: [
              { id: 'open', title: '', cell: function (td, r, i, g) {
                var b = add(td, el('button', 'toggle', g.open[i] ? '\u25BE' : '\u25B8'));
                b.type = 'button';
                b.setAttribute('aria-expanded', g.open[i] ? 'true' : 'false');
                b.setAttribute('aria-label', 'evidence');
                b.addEventListener('click', function () { g.toggle(i); });
              } },
              { id: 'order', title: 'Order', key: function (r, i) { return rowID(i); }, cell: function (td, r, i) {
                td.className = 'mono';
                td.textContent = rowID(i);
                // What a row that flags no order is: a receipt without its order, or a store event.
                var what = r[KD] === 'receipt' ? 'receipt only' : r[KD] !== 'event' ? ''
                  : given(r[O]) ? 'store event' : 'store event naming no order';
                if (what && td.textContent) { td.appendChild(document.createTextNode(' ')); }
                if (what) { add(td, tag('seen', what)); }
              } },
              { id: 'user', title: 'User', key: function (r) { return str(r[U]); }, cell: textCell(function (r) { return str(r[U]); }) },
              { id: 'platform', title: 'Platform', key: function (r) { return str(r[PL]); }, cell: textCell(function (r) { return str(r[PL]); }) },
              { id: 'product', title: 'Product', key: function (r) { return str(r[PR]); }, cell: textCell(function (r) { return str(r[PR]); }) },
              { id: 'amount', title: 'Amount', numeric: true, cls: 'nowrap', firstDir: 'desc', key: amountKey,
                cell: textCell(function (r) { return r[AM] === null ? '' : str(r[AM]) + ' ' + str(r[CU]); }) },
              { id: 'created', title: 'Credited (UTC)', cls: 'nowrap', firstDir: 'desc', key: function (r) { return str(r[CR]); },
                cell: textCell(function (r) { return str(r[CR]); }) },
              { id: 'severity', title: 'Severity', firstDir: 'desc', key: function (r, i) { return SEV[i]; },
                cell: function (td, r, i) { var s = SEVERITIES[SEV[i]] || ''; td.textContent = s; td.className = 'sev-' + s; } },
              { id: 'rules', title: 'Rules', key: function (r, i) { return RULESOF[i].join(' '); },
                cell: function (td, r, i) { td.textContent = RULESOF[i].join(', '); } },
              { id: 'status', title: 'Status', key: function (r) { return str(r[ST]); }, cell: function (td, r) {
                var s = str(r[ST]);
                if (s) { add(td, tag(s, STANDING[s] || s)); } else { td.textContent = STANDING['']; }
              } }
            ]
          });

          function showOrder(i) {
            filters.rule = filters.sev = filters.platform = filters.status = filters.q = '';
            syncControls();
            grid.open[i] = true;
            grid.refresh();
            grid.showRow(i);
            grid.render();
            writeHash();
          }

          // ---- Controls and the URL fragment (rule=…&sev=…&platform=…&status=…&q=…&sort=…&dir=…&page=…&open=ID) ----
          var controls = { rule: byId('f-rule'), sev: byId('f-sev'), platform: byId('f-platform'), status: byId('f-status'), q: byId('f-q') };
          (function fill() {
            var ruleCount = {}, platforms = {};
            rows.forEach(function (r, i) {
              RULESOF[i].forEach(function (x) { ruleCount[x] = (ruleCount[x] || 0) + 1; });
              if (r[PL] !== null && r[PL] !== undefined) { platforms[str(r[PL])] = true; }
            });
            options(controls.rule, Object.keys(ruleCount).sort().map(function (x) { return [x, x + ' (' + number(ruleCount[x]) + ')']; }));
            options(controls.sev, SEVERITIES.slice().reverse().map(function (s) { return [s, s + (s === 'info' ? '' : ' or worse')]; }));
            options(controls.platform, Object.keys(platforms).sort().map(function (p) { return [p, p]; }));
            options(controls.status, [['new', 'new'], ['seen', 'seen before'], ['open', 'not reviewed'], ['reviewed', 'reviewed'],
              ['fraud', 'reviewed: fraud'], ['legit', 'reviewed: legit']]);
          })();
          function syncControls() {
            Object.keys(controls).forEach(function (k) { controls[k].value = filters[k]; });
          }
          function readHash() {
            var p = fragment();
            if (!p) { return; }
            grid.readView(p, filters, controls);
            grid.open = {};
            var first = -1;
            p.getAll('open').forEach(function (id) {
              rowsOf(id).forEach(function (i) { grid.open[i] = true; if (first < 0) { first = i; } });
            });
            grid.refresh();
            var page = Number(p.get('page'));
            if (page >= 1) { grid.page = page; } else if (first >= 0) { grid.showRow(first); }
            grid.render();
          }
          function writeHash() {
            var p = grid.writeView(filters);
            var written = Object.create(null);
            Object.keys(grid.open).forEach(function (i) {
              var id = rows[i] ? rowID(Number(i)) : null;
              if (id !== null && !written[id]) { written[id] = true; p.append('open', id); }
            });
            setFragment(p);
            byId('print-view').textContent = 'Printed view: ' + (p.toString() ? decodeURIComponent(p.toString().replace(/\+/g, ' ')) : 'all listed orders') + '.';
          }
          bindControls(grid, filters, controls, readHash, writeHash, function () { grid.open = {}; });

          // ---- Audit sections: reviewer-exempted findings, malformed records ----
          function searchable(gridOpts, inputId) {
            var q = '', g, input = byId(inputId);
            gridOpts.keep = function (i) {
              if (!q) { return true; }
              return gridOpts.rows[i].map(str).join('\n').toLowerCase().indexOf(q) >= 0;
            };
            g = new Grid(gridOpts);
            var t = null;
            input.addEventListener('input', function () {
              clearTimeout(t);
              t = setTimeout(function () { q = input.value.toLowerCase(); g.page = 1; g.refresh(); }, 200);
            });
            g.refresh();
            return g;
          }
          function col(id, title, k, cls) {
            return { id: id, title: title, key: function (r) { return str(r[k]); },
              cell: function (td, r) { td.textContent = str(r[k]); if (cls) { td.className = cls(r); } } };
          }
          var exempted = readData('data-exempted');
          exempted.forEach(function (r) { r[2] = str(S(r[2])); r[3] = sevName(r[3]); r[5] = S(r[5]); r[6] = S(r[6]); r[7] = extras(r[7]); });
          searchable({
            rows: exempted, table: 't-exempted', pager: 'p-exempted', view: 'v-exempted', noun: 'exempted findings',
            columns: [col('order', 'Order', 0), col('user', 'User', 1), col('rule', 'Rule', 2),
              col('severity', 'Severity', 3, function (r) { return 'sev-' + str(r[3]); }), col('message', 'Finding', 4),
              col('expected', 'Expected', 5), col('actual', 'Actual', 6)]
          }, 'q-exempted');
          var malformed = readData('data-malformed');
          malformed.forEach(function (r) { r[0] = S(r[0]); });
          searchable({
            rows: malformed, table: 't-malformed', pager: 'p-malformed', view: 'v-malformed', noun: 'malformed records',
            columns: [col('file', 'File', 0), col('place', 'Where', 1), col('order', 'Order', 2), col('user', 'User', 3),
              col('message', 'Why', 4)]
          }, 'q-malformed');

          // When the page was ready, for tests and `iapscreen-bench report` (milliseconds since navigation).
          var tEnd = performance.now();
          var timings = 'page ready at ' + Math.round(tEnd) + ' ms: data read in ' + Math.round(tParsed - t0)
            + ' ms, prepared and drawn in ' + Math.round(tEnd - tParsed) + ' ms';
          document.body.setAttribute('data-ready', String(Math.round(tEnd)));
          document.body.setAttribute('data-timings', timings);
          if (window.console && console.info) { console.info('iapscreen report: ' + number(rows.length) + ' listed orders, ' + timings); }
        })();
        """#

    /// What the scripts of report.html and backtest.html share, pasted inside each one's
    /// function: DOM helpers, the data reader and `Grid`, the paged and sortable table.
    public static let grid = #"""
          function byId(id) { return document.getElementById(id); }
          function el(tag, cls, text) {
            var e = document.createElement(tag);
            if (cls) { e.className = cls; }
            if (text !== undefined && text !== null) { e.textContent = String(text); }
            return e;
          }
          function add(parent, child) { parent.appendChild(child); return child; }
          function str(v) {
            if (v === null || v === undefined) { return ''; }
            return typeof v === 'string' ? v : JSON.stringify(v);
          }
          function parse(id) {
            var node = byId(id);
            try { return node ? JSON.parse(node.textContent) : null; } catch (e) { return null; }
          }
          // The data's element leaves the document once read: its text is not needed twice.
          // Its elements are arrays unless `keep` says what else they may be.
          function readData(id, keep) {
            var v = parse(id), node = byId(id);
            if (node && node.parentNode) { node.parentNode.removeChild(node); }
            return Array.isArray(v) ? v.filter(keep || Array.isArray) : [];
          }
          function number(n) { return n.toLocaleString('en-US'); }

          // A paged, sortable table over rows of data; `keep(i)` filters, `detail(i)` opens a row.
          function Grid(opts) {
            this.rows = opts.rows;
            this.columns = opts.columns;
            this.table = byId(opts.table);
            this.body = this.table.tBodies[0];
            this.pager = byId(opts.pager);
            this.view = byId(opts.view);
            this.noun = opts.noun;
            this.keep = opts.keep || null;
            this.detail = opts.detail || null;
            this.rowClass = opts.rowClass || null;
            this.prepare = opts.prepare || null;
            this.changed = opts.changed || function () {};
            this.sort = opts.sort || null;
            this.dir = opts.dir || 'asc';
            this.defaultSort = this.sort;
            this.defaultDir = this.dir;
            this.page = 1;
            this.size = 100;
            this.open = {};
            this.order = [];
            this.header();
          }
          Grid.prototype.header = function () {
            var self = this;
            var tr = add(this.table.tHead || this.table.createTHead(), el('tr'));
            this.columns.forEach(function (c) {
              var th = add(tr, el('th', c.numeric ? 'n' : '', c.title));
              if (!c.key) { return; }
              th.tabIndex = 0;
              th.setAttribute('data-col', c.id);
              var go = function () {
                if (self.sort === c.id) { self.dir = self.dir === 'asc' ? 'desc' : 'asc'; }
                else { self.sort = c.id; self.dir = c.firstDir || 'asc'; }
                self.page = 1;
                self.refresh();
                self.changed();
              };
              th.addEventListener('click', go);
              th.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') { go(); } });
            });
          };
          Grid.prototype.column = function (id) {
            for (var k = 0; k < this.columns.length; k++) { if (this.columns[k].id === id) { return this.columns[k]; } }
            return null;
          };
          Grid.prototype.refresh = function () {
            var rows = this.rows, order = [], i;
            for (i = 0; i < rows.length; i++) { if (!this.keep || this.keep(i)) { order.push(i); } }
            var col = this.column(this.sort);
            if (col && col.key) {
              var keys = new Array(rows.length), d = this.dir === 'desc' ? -1 : 1;
              for (i = 0; i < order.length; i++) { keys[order[i]] = col.key(rows[order[i]], order[i]); }
              order.sort(function (a, b) {
                var x = keys[a], y = keys[b];
                if (x < y) { return -d; }
                if (x > y) { return d; }
                return a - b;
              });
            }
            this.order = order;
            var heads = this.table.tHead.rows[0].cells;
            for (i = 0; i < heads.length; i++) {
              var id = heads[i].getAttribute('data-col');
              if (id && id === this.sort) { heads[i].setAttribute('aria-sort', this.dir === 'desc' ? 'descending' : 'ascending'); }
              else { heads[i].removeAttribute('aria-sort'); }
            }
            this.render();
          };
          Grid.prototype.pages = function () { return Math.max(1, Math.ceil(this.order.length / this.size)); };
          Grid.prototype.showRow = function (i) {
            var at = this.order.indexOf(i);
            if (at >= 0) { this.page = Math.floor(at / this.size) + 1; }
            return at >= 0;
          };
          Grid.prototype.render = function () {
            var self = this;
            this.page = Math.min(Math.max(1, this.page), this.pages());
            var start = (this.page - 1) * this.size, end = Math.min(this.order.length, start + this.size);
            var frag = document.createDocumentFragment();
            for (var k = start; k < end; k++) {
              var i = this.order[k], row = this.prepare ? this.prepare(i) : this.rows[i], tr = el('tr');
              tr.setAttribute('data-row', String(i));
              if (this.rowClass) { tr.className = this.rowClass(row); }
              this.columns.forEach(function (c) {
                var td = add(tr, el('td', (c.numeric ? 'n ' : '') + (c.cls || '')));
                c.cell(td, row, i, self);
              });
              frag.appendChild(tr);
              if (this.detail && this.open[i]) {
                tr.classList.add('open');
                var dt = el('tr', 'detail'), td = add(dt, el('td'));
                td.colSpan = this.columns.length;
                td.appendChild(this.detail(i));
                frag.appendChild(dt);
              }
            }
            this.body.textContent = '';
            this.body.appendChild(frag);
            var shown = this.rows.length === 0 ? 'None' : this.order.length === 0 ? 'No ' + this.noun + ' match'
              : 'Showing ' + number(start + 1) + '\u2013' + number(end) + ' of ' + number(this.order.length) + ' ' + this.noun;
            if (this.order.length !== this.rows.length) { shown += ' (filtered from ' + number(this.rows.length) + ')'; }
            this.view.textContent = shown + '.';
            this.renderPager();
          };
          Grid.prototype.renderPager = function () {
            var self = this, p = this.pager;
            p.textContent = '';
            var go = function (page) { return function () { self.page = page; self.render(); self.changed(); }; };
            var last = this.pages();
            [['\u00AB first', 1], ['\u2039 previous', this.page - 1], ['next \u203A', this.page + 1], ['last \u00BB', last]]
              .forEach(function (b) {
                var btn = add(p, el('button', '', b[0]));
                btn.type = 'button';
                btn.disabled = b[1] < 1 || b[1] > last || b[1] === self.page;
                btn.addEventListener('click', go(b[1]));
              });
            add(p, el('span', '', 'page ' + number(this.page) + ' of ' + number(last)));
            var size = add(p, el('select'));
            size.setAttribute('aria-label', 'rows per page');
            [25, 100, 250, 1000].forEach(function (n) {
              var o = add(size, el('option', '', n + ' a page'));
              o.value = String(n);
              o.selected = n === self.size;
            });
            size.addEventListener('change', function () { self.size = Number(size.value) || 100; self.page = 1; self.render(); self.changed(); });
          };
          Grid.prototype.toggle = function (i) {
            if (this.open[i]) { delete this.open[i]; } else { this.open[i] = true; }
            this.render();
            this.changed();
          };

          function textCell(get) { return function (td, row) { td.textContent = get(row); }; }

          // The view in the URL fragment: the filters (`filters[k]` shown by `controls[k]`), sort, size, page.
          function fragment() {
            try { return new URLSearchParams(location.hash.replace(/^#/, '')); } catch (e) { return null; }
          }
          function setFragment(p) {
            try { history.replaceState(null, '', '#' + p.toString()); } catch (e) { /* a file: URL that refuses: the view still works */ }
          }
          // A select takes only a value it offers: anything else from the fragment filters nothing.
          Grid.prototype.readView = function (p, filters, controls) {
            Object.keys(controls).forEach(function (k) { controls[k].value = p.get(k) || ''; filters[k] = controls[k].value; });
            if (p.get('sort') && this.column(p.get('sort'))) { this.sort = p.get('sort'); }
            if (p.get('dir') === 'asc' || p.get('dir') === 'desc') { this.dir = p.get('dir'); }
            var size = Number(p.get('size'));
            if ([25, 100, 250, 1000].indexOf(size) >= 0) { this.size = size; }
          };
          Grid.prototype.writeView = function (filters) {
            var p = new URLSearchParams();
            Object.keys(filters).forEach(function (k) { if (filters[k]) { p.set(k, filters[k]); } });
            if (this.sort !== this.defaultSort || this.dir !== this.defaultDir) { p.set('sort', this.sort); p.set('dir', this.dir); }
            if (this.size !== 100) { p.set('size', String(this.size)); }
            if (this.page > 1) { p.set('page', String(this.page)); }
            return p;
          };
          // A control's change filters the grid from its first page (the search box waits for typing to
          // pause); Clear (#f-clear) empties every filter and calls `cleared` for what the page adds; the
          // fragment is read now and whenever it changes.
          function bindControls(grid, filters, controls, readHash, writeHash, cleared) {
            var timer = null;
            Object.keys(controls).forEach(function (k) {
              var c = controls[k];
              c.addEventListener(k === 'q' ? 'input' : 'change', function () {
                var apply = function () { filters[k] = c.value; grid.page = 1; grid.refresh(); writeHash(); };
                if (k === 'q') { clearTimeout(timer); timer = setTimeout(apply, 200); } else { apply(); }
              });
            });
            byId('f-clear').addEventListener('click', function () {
              Object.keys(controls).forEach(function (k) { filters[k] = controls[k].value = ''; });
              if (cleared) { cleared(); }
              grid.page = 1;
              grid.refresh();
              writeHash();
            });
            window.addEventListener('hashchange', readHash);
            readHash();
            writeHash();
          }
          function options(select, values) {
            values.forEach(function (v) {
              var o = add(select, el('option', '', v[1]));
              o.value = v[0];
            });
          }
        """#
}
