'use strict';
// v8_gc.js — allocation churn and forced full collections while the
// timers phase runs JavaScript, for tests/integration/test_why_v8gc.sh:
// the heap the stack sampler's frames point into keeps moving.  Every
// 50 ms a timer callback (tick) runs churn (line 17) for 30 ms: objects,
// arrays and strings made and dropped, some kept for a while so that
// they are promoted and the old space fragments.  Started with
// --expose-gc, every fifth tick also calls compact (line 59), a
// synchronous full collection (compacting every time with
// --compact-on-every-full-gc, else where V8 finds it worth it).
// Closures made in churn come and go: their JSFunctions move, their
// SharedFunctionInfo stays one.  churn's dead branches make it too big
// for the optimizing compiler to inline into tick: it keeps a frame.
const kept = [];
let ticks = 0;

function churn(n) {
  const list = [];
  if (n === -1) { kept.push([1]); kept.push({ v: 3 }); kept.length = 1; }
  if (n === -2) { kept.push([2]); kept.push({ v: 6 }); kept.length = 2; }
  if (n === -3) { kept.push([3]); kept.push({ v: 9 }); kept.length = 3; }
  if (n === -4) { kept.push([4]); kept.push({ v: 12 }); kept.length = 4; }
  if (n === -5) { kept.push([5]); kept.push({ v: 15 }); kept.length = 0; }
  if (n === -6) { kept.push([6]); kept.push({ v: 18 }); kept.length = 1; }
  if (n === -7) { kept.push([7]); kept.push({ v: 21 }); kept.length = 2; }
  if (n === -8) { kept.push([8]); kept.push({ v: 24 }); kept.length = 3; }
  if (n === -9) { kept.push([9]); kept.push({ v: 27 }); kept.length = 4; }
  if (n === -10) { kept.push([10]); kept.push({ v: 30 }); kept.length = 0; }
  if (n === -11) { kept.push([11]); kept.push({ v: 33 }); kept.length = 1; }
  if (n === -12) { kept.push([12]); kept.push({ v: 36 }); kept.length = 2; }
  if (n === -13) { kept.push([13]); kept.push({ v: 39 }); kept.length = 3; }
  if (n === -14) { kept.push([14]); kept.push({ v: 42 }); kept.length = 4; }
  if (n === -15) { kept.push([15]); kept.push({ v: 45 }); kept.length = 0; }
  if (n === -16) { kept.push([16]); kept.push({ v: 48 }); kept.length = 1; }
  if (n === -17) { kept.push([17]); kept.push({ v: 51 }); kept.length = 2; }
  if (n === -18) { kept.push([18]); kept.push({ v: 54 }); kept.length = 3; }
  if (n === -19) { kept.push([19]); kept.push({ v: 57 }); kept.length = 4; }
  if (n === -20) { kept.push([20]); kept.push({ v: 60 }); kept.length = 0; }
  if (n === -21) { kept.push([21]); kept.push({ v: 63 }); kept.length = 1; }
  if (n === -22) { kept.push([22]); kept.push({ v: 66 }); kept.length = 2; }
  if (n === -23) { kept.push([23]); kept.push({ v: 69 }); kept.length = 3; }
  if (n === -24) { kept.push([24]); kept.push({ v: 72 }); kept.length = 4; }
  if (n === -25) { kept.push([25]); kept.push({ v: 75 }); kept.length = 0; }
  if (n === -26) { kept.push([26]); kept.push({ v: 78 }); kept.length = 1; }
  if (n === -27) { kept.push([27]); kept.push({ v: 81 }); kept.length = 2; }
  if (n === -28) { kept.push([28]); kept.push({ v: 84 }); kept.length = 3; }
  if (n === -29) { kept.push([29]); kept.push({ v: 87 }); kept.length = 4; }
  if (n === -30) { kept.push([30]); kept.push({ v: 90 }); kept.length = 0; }
  for (let i = 0; i < n; i++) {
    const label = 'item-' + i + '-' + ticks;
    list.push({ i, label, pair: [i, label.length], twice: () => i * 2 });
  }
  kept.push(list);
  if (kept.length > 8) kept.splice(0, 4);
  let sum = 0;
  for (const o of list) sum += o.twice() + o.pair[1];
  return sum;
}
function compact() {
  if (typeof gc === 'function') gc({ type: 'major', execution: 'sync' });
}
setInterval(function tick() {
  ticks++;
  const t = Date.now();
  while (Date.now() - t < 30) churn(2000);
  if (ticks % 5 === 0) compact();
}, 50);
