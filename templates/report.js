// report.js: the only script of bpfspec's HTML report (render_html.c): the
// tooltip of heatmap cells, histogram bars and utilization strips, and
// sorting of tables by a column.  It reads the page's data attributes and
// writes text only (textContent).  The page's Content-Security-Policy
// allows exactly this text by its hash, and forbids every fetch.
(function () {
	'use strict';
	var tip = document.getElementById('tip');

	function dur(ns) {
		ns = Number(ns);
		if (ns >= 1e9) return (ns / 1e9).toPrecision(3) + ' s';
		if (ns >= 1e6) return (ns / 1e6).toPrecision(3) + ' ms';
		if (ns >= 1e3) return (ns / 1e3).toPrecision(3) + ' us';
		return ns + ' ns';
	}

	// The I-th of a comma-separated list of numbers on SVG's data-NAME.
	function nth(svg, name, i) {
		var list = svg && svg.getAttribute('data-' + name);
		return list ? list.split(',')[i] : undefined;
	}

	function describe(r) {
		var svg = r.closest('svg.heatmap, svg.hist, svg.util');
		var d = r.dataset, lines = [];
		if (d.interval !== undefined) {
			var i = Number(d.interval), step = Number(svg.getAttribute('data-interval-ns'));
			lines.push('interval ' + (i + 1) + ' (+' + (i * step / 1e9).toFixed(1) + ' to +' +
				((i + 1) * step / 1e9).toFixed(1) + ' s)');
		}
		if (d.loNs !== undefined)
			lines.push(dur(d.loNs) + ' to ' + dur(d.hiNs) + ': count ' + d.count);
		if (d.utilization !== undefined)
			lines.push('busy ' + (Number(d.utilization) * 100).toFixed(1) + '%');
		if (d.interval !== undefined && nth(svg, 'p50-ns', d.interval) !== undefined)
			lines.push('interval p50 ' + dur(nth(svg, 'p50-ns', d.interval)) + ', p99 ' +
				dur(nth(svg, 'p99-ns', d.interval)));
		return lines.join('\n');
	}

	document.addEventListener('mouseover', function (ev) {
		var r = ev.target;
		if (!(r instanceof SVGRectElement) || !/\b(cell|bar|ucell)\b/.test(r.getAttribute('class'))) {
			tip.hidden = true;
			return;
		}
		tip.textContent = describe(r);
		tip.hidden = false;
		tip.style.left = (ev.pageX + 14) + 'px';
		tip.style.top = (ev.pageY + 14) + 'px';
	});

	// Tables of class "sortable": a click on a header sorts by its column,
	// by each cell's data-sort (a number) or else its text.
	Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
		var heads = table.querySelectorAll('thead th');
		Array.prototype.forEach.call(heads, function (th, col) {
			th.addEventListener('click', function () {
				var asc = th.getAttribute('aria-sort') !== 'ascending';
				Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
				th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
				var body = table.tBodies[0];
				var rows = Array.prototype.slice.call(body.rows);
				function key(row) {
					var c = row.cells[col], s = c && c.getAttribute('data-sort');
					return s !== null && s !== undefined ? Number(s) : (c ? c.textContent : '');
				}
				rows.sort(function (a, b) {
					var x = key(a), y = key(b), o = x < y ? -1 : x > y ? 1 : 0;
					return asc ? o : -o;
				});
				rows.forEach(function (row) { body.appendChild(row); });
			});
		});
	});
})();
