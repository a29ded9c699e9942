// report.js: the only script of bpfspec's HTML report (render_html.c).  It
// draws the heatmaps and utilization strips (their numbers are in data
// attributes of each <figure>, packed by render_html_charts.c), shows the
// tooltip of their cells and of histogram bars, and sorts tables by a
// column.  It writes text only (textContent).  The page's
// Content-Security-Policy allows exactly this text by its hash, and
// forbids every fetch.
(function () {
	'use strict';
	var tip = document.getElementById('tip');
	var HEAT_LEVELS = 9; // .h0 to .h8 of report.css

	function dur(ns) {
		ns = Number(ns);
		if (ns >= 1e9) return (ns / 1e9).toPrecision(3) + ' s';
		if (ns >= 1e6) return (ns / 1e6).toPrecision(3) + ' ms';
		if (ns >= 1e3) return (ns / 1e3).toPrecision(3) + ' us';
		return ns + ' ns';
	}

	// The numbers of a packed data attribute, one by one (next()):
	// unsigned varints (7 bits a byte, low bits first, high bit set on all
	// but a number's last byte) in base64.
	function Reader(text) {
		this.bin = atob(text || '');
		this.at = 0;
	}
	Reader.prototype.next = function () {
		var bin = this.bin, v = 0, scale = 1, b;
		do {
			b = bin.charCodeAt(this.at++);
			v += (b & 127) * scale;
			scale *= 128;
		} while (b & 128);
		return v;
	};
	Reader.prototype.all = function () {
		var out = [];
		while (this.at < this.bin.length)
			out.push(this.next());
		return out;
	};

	function unpack(text) {
		return new Reader(text).all();
	}

	function numbers(list) {
		return (list || '').split(',').map(Number);
	}

	// [r, g, b] of a colour as getComputedStyle gives it: "rgb(r, g, b)".
	function rgb(css) {
		var m = /(\d+)\D+(\d+)\D+(\d+)/.exec(css);
		return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
	}

	// The figure a canvas belongs to, with what it draws (by canvas).
	var figures = new Map();

	function interval(f, i) {
		return 'interval ' + (i + 1) + ' (+' + (i * f.step / 1e9).toFixed(1) + ' to +' +
			((i + 1) * f.step / 1e9).toFixed(1) + ' s)';
	}

	// A canvas kept in memory, not on a GPU: drawn once from pixels, and
	// read back by the tests (a quarter less time for a page of an hour).
	function context(canvas) {
		return canvas.getContext('2d', { willReadFrequently: true });
	}

	// The canvases of FIG (several side by side past 8192 intervals: a
	// browser draws nothing on a canvas much wider), each placed over its
	// intervals' part of the plot; N intervals in all.
	function canvases(fig, n) {
		var plotWidth = Number(fig.getAttribute('data-plot-width'));
		return Array.prototype.map.call(fig.querySelectorAll('canvas.cells'), function (canvas) {
			var first = Number(canvas.getAttribute('data-first'));
			canvas.style.left = (64 + first / n * plotWidth) + 'px';
			canvas.style.width = (canvas.width / n * plotWidth) + 'px';
			canvas.style.height = fig.getAttribute('data-plot-height') + 'px';
			return { canvas: canvas, first: first, width: canvas.width };
		});
	}

	// The colours of the heat levels (the swatches .h0 to .h8 of a legend)
	// and of the busy tenths (.u0 to .u9), as pixels: 0xAABBGGRR, the
	// order of an ImageData's bytes on the little-endian machines that
	// run browsers.
	function pixel(el) {
		var c = rgb(getComputedStyle(el).backgroundColor);
		return (0xff000000 | c[2] << 16 | c[1] << 8 | c[0]) >>> 0;
	}
	function shades(prefix, n) {
		var probe = document.createElement('span'), out = [];
		document.body.appendChild(probe);
		for (var t = 0; t < n; t++) {
			probe.className = prefix + t;
			out.push(pixel(probe));
		}
		document.body.removeChild(probe);
		return out;
	}
	var heatColours = shades('h', HEAT_LEVELS), busyColours = shades('u', 10);

	// A heatmap: interval I's cells are cellRow/cellCount[start[I] ..
	// start[I + 1]); a cell's colour is its count's share of the largest
	// on a log scale, so that rare slow calls stay visible beside a crowd
	// of fast ones.
	function drawHeatmap(fig) {
		var n = Number(fig.getAttribute('data-intervals'));
		var rows = Number(fig.getAttribute('data-rows'));
		var max = Number(fig.getAttribute('data-max-count'));
		var cells = new Reader(fig.getAttribute('data-cells'));
		var most = cells.bin.length >> 1; // a cell takes two bytes at least
		var f = {
			kind: 'heat', n: n, rows: rows, step: Number(fig.getAttribute('data-interval-ns')),
			start: new Uint32Array(n + 1), cellRow: new Uint16Array(most),
			cellCount: new Float64Array(most),
			lo: numbers(fig.getAttribute('data-row-lo-ns')),
			hi: numbers(fig.getAttribute('data-row-hi-ns')),
			p50: unpack(fig.getAttribute('data-p50-ns')),
			p99: unpack(fig.getAttribute('data-p99-ns'))
		};
		var parts = canvases(fig, n), scale = HEAT_LEVELS / Math.log1p(max), c = 0;
		parts.forEach(function (part) {
			var ctx = context(part.canvas), img = ctx.createImageData(part.width, rows);
			var px = new Uint32Array(img.data.buffer), w = part.width;
			for (var i = part.first; i < part.first + w; i++) {
				f.start[i] = c;
				for (var m = cells.next(), row = -1; m > 0; m--, c++) {
					row += cells.next() + 1;
					var count = cells.next();
					f.cellRow[c] = row;
					f.cellCount[c] = count;
					var level = max <= 1 ? HEAT_LEVELS - 1 : Math.floor(scale * Math.log1p(count));
					px[row * w + i - part.first] =
						heatColours[level < HEAT_LEVELS ? level : HEAT_LEVELS - 1];
				}
			}
			ctx.putImageData(img, 0, 0);
			figures.set(part.canvas, { f: f, first: part.first, width: w });
		});
		f.start[n] = c;
	}

	// A strip: each interval's busy share, in tenths of the green scale.
	function drawStrip(fig) {
		var busy = unpack(fig.getAttribute('data-busy'));
		var n = busy.length;
		var f = { kind: 'util', n: n, busy: busy, step: Number(fig.getAttribute('data-interval-ns')) };
		canvases(fig, n).forEach(function (part) {
			var ctx = context(part.canvas), img = ctx.createImageData(part.width, 1);
			var px = new Uint32Array(img.data.buffer);
			for (var i = part.first; i < part.first + part.width; i++)
				if (busy[i] !== 0)
					px[i - part.first] = busyColours[Math.min(9, Math.floor((busy[i] - 1) / 100))];
			ctx.putImageData(img, 0, 0);
			figures.set(part.canvas, { f: f, first: part.first, width: part.width });
		});
	}

	Array.prototype.forEach.call(document.querySelectorAll('figure.heatmap'), drawHeatmap);
	Array.prototype.forEach.call(document.querySelectorAll('figure.util'), drawStrip);

	// The tooltip of a canvas cell at (X, Y) in the page; PART: the
	// canvas's figure, first interval and width.
	function describeCell(canvas, part, x, y) {
		var box = canvas.getBoundingClientRect(), f = part.f;
		var i = part.first + Math.floor((x - box.left) / box.width * part.width);
		if (i < part.first || i >= part.first + part.width || i >= f.n)
			return null;
		var lines = [interval(f, i)];
		if (f.kind === 'util') {
			lines.push(f.busy[i] ? 'busy ' + ((f.busy[i] - 1) / 10).toFixed(1) + '%' : 'no data');
			return lines.join('\n');
		}
		var row = Math.floor((y - box.top) / box.height * f.rows);
		if (row < 0 || row >= f.rows)
			return null;
		var count = 0;
		for (var c = f.start[i]; c < f.start[i + 1]; c++)
			if (f.cellRow[c] === row)
				count = f.cellCount[c];
		lines.push(dur(f.lo[row]) + ' to ' + dur(f.hi[row]) + ': count ' + count);
		if (f.p50[i])
			lines.push('interval p50 ' + dur(f.p50[i]) + ', p99 ' + dur(f.p99[i]));
		else
			lines.push('no calls in this interval');
		return lines.join('\n');
	}

	function describeBar(r) {
		var d = r.dataset;
		return dur(d.loNs) + ' to ' + dur(d.hiNs) + ': count ' + d.count;
	}

	document.addEventListener('mousemove', function (ev) {
		var t = ev.target, text = null;
		if (t instanceof HTMLCanvasElement && figures.has(t))
			text = describeCell(t, figures.get(t), ev.clientX, ev.clientY);
		else if (t instanceof SVGRectElement && t.getAttribute('class') === 'bar')
			text = describeBar(t);
		if (!text) {
			tip.hidden = true;
			return;
		}
		tip.textContent = text;
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
