// Small SVG charts built with DOM calls (no markup strings, nothing inline to allow in the CSP).
import { h, formatNumber } from './common.js';

/**
 * Width of a text in em, from the widths of common sans-serif fonts, rounded up (as the HTML
 * report's charts do): the chart is built before it is in the page, where nothing can be measured.
 */
function textWidthEm(text) {
  let em = 0;
  for (const c of text) {
    if (/[iljI.,:;'|!]/.test(c)) em += 0.3;
    else if (/[ ftr()[\]\-/]/.test(c)) em += 0.4;
    else if (/[mwMW@%]/.test(c)) em += 0.95;
    else if (/[A-Z&]/.test(c)) em += 0.74;
    else em += 0.6;
  }
  return em;
}

/** The label as it fits in `width` (at `fontSize`): whole, or cut with an ellipsis at the end. */
export function fitLabel(label, width, fontSize) {
  const room = width / fontSize;
  if (textWidthEm(label) <= room) return label;
  const chars = [...label];
  let n = chars.length;
  while (n > 0 && textWidthEm(`${chars.slice(0, n).join('').trimEnd()}…`) > room) n--;
  return `${chars.slice(0, n).join('').trimEnd()}…`;
}

/** Horizontal bars: one row per item, its label on the left (cut to fit, whole in its title) and its value at the end of the bar. */
export function barChart(items, { width = 520, row = 24, labelWidth = 160 } = {}) {
  const max = Math.max(1, ...items.map((i) => i.value));
  const svg = h('svg:svg', { class: 'chart', viewBox: `0 0 ${width} ${Math.max(row, items.length * row)}`, width: '100%', role: 'img', 'aria-label': items.map((i) => `${i.label}: ${i.value}`).join(', ') });
  const room = width - labelWidth - 70;
  items.forEach((item, n) => {
    const y = n * row;
    const w = Math.max(1, (item.value / max) * room);
    svg.append(
      // 12: the labels' font size (logsift.css), in the viewBox's units
      h('svg:text', { x: labelWidth - 8, y: y + row * 0.68, 'text-anchor': 'end' },
        h('svg:title', {}, `${item.label}: ${formatNumber(item.value)}`), fitLabel(item.label, labelWidth - 8, 12)),
      h('svg:rect', { class: 'chart-bar', x: labelWidth, y: y + 4, width: w.toFixed(1), height: row - 8, rx: 3 }),
      h('svg:text', { class: 'muted', x: labelWidth + w + 6, y: y + row * 0.68 }, formatNumber(item.value)),
    );
  });
  return svg;
}

/** Columns over time (one per day), with the first and last labels under them. */
export function columnChart(points, { width = 520, height = 140 } = {}) {
  const max = Math.max(1, ...points.map((p) => p.value));
  const svg = h('svg:svg', { class: 'chart', viewBox: `0 0 ${width} ${height + 20}`, width: '100%', role: 'img', 'aria-label': points.map((p) => `${p.label}: ${p.value}`).join(', ') });
  const step = width / Math.max(points.length, 1);
  points.forEach((p, n) => {
    if (p.value <= 0) return;
    const hgt = Math.max((p.value / max) * height, 1);
    svg.append(h('svg:rect', { class: 'chart-bar', x: (n * step + step * 0.15).toFixed(1), y: (height - hgt).toFixed(1), width: (step * 0.7).toFixed(1), height: hgt.toFixed(1), rx: 2 },
      h('svg:title', {}, `${p.label}: ${formatNumber(p.value)}`)));
  });
  svg.append(h('svg:line', { x1: 0, x2: width, y1: height + 0.5, y2: height + 0.5, stroke: 'currentColor', 'stroke-opacity': 0.25 }));
  if (points.length) {
    svg.append(h('svg:text', { class: 'muted', x: 0, y: height + 16 }, points[0].label));
    if (points.length > 1) svg.append(h('svg:text', { class: 'muted', x: width, y: height + 16, 'text-anchor': 'end' }, points.at(-1).label));
  }
  return svg;
}
