/* format.js - owns how the dashboard writes numbers: plain (fmtNum), with a
 * unit and an SI prefix where that reads better (fmtUnit), as log-axis tick
 * labels (tickSI), errors as percentages (fmtPct), and a string quoted for a POSIX shell (shellQuote). */

const PREFIX = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
/* Units whose values read better with an SI prefix (B, flop/s, ...). */
const SI_UNITS = /^(B|B\/s|flop|flop\/s|count|W|J|1\/s)$/;

export function fmtNum(v) {
  if (typeof v !== 'number') return String(v);
  if (v === 0 || Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(4).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(6)));
}

export function fmtUnit(v, unit) {
  if (typeof v !== 'number' || !unit) return fmtNum(v) + (unit ? ' ' + unit : '');
  if (SI_UNITS.test(unit)) {
    for (const [f, p] of PREFIX)
      if (Math.abs(v) >= f) return String(Number((v / f).toPrecision(4))) + ' ' + p + (unit === 'count' ? '' : unit);
  }
  return fmtNum(v) + ' ' + unit;
}

/* Log-axis ticks: only the powers of ten are labelled. */
export const tickSI = (v) => {
  if (Math.abs(Math.log10(v) - Math.round(Math.log10(v))) > 1e-9) return '';
  for (const [f, p] of PREFIX) if (Math.abs(v) >= f) return Number((v / f).toPrecision(3)) + p;
  return Number(v.toPrecision(3));
};

/* An error as a percentage: 0.12 as "12 %", 0.034 as "3.4 %", 2.1 as "210 %". */
export function fmtPct(v) {
  if (typeof v !== 'number' || !isFinite(v)) return String(v);
  const p = v * 100;
  return (Math.abs(p) >= 10 ? String(Math.round(p)) : String(Number(p.toPrecision(2)))) + ' %';
}

export const shellQuote = (s) => "'" + s.replace(/'/g, "'\\''") + "'";
