/*
 * chart.js — the geometry of a bot's rating over time, with no DOM: where each rating
 * sits in a box of the given size, the μ ± σ band around the line, and the round
 * figures the vertical axis is marked with. The bot page (botpage.js) draws it as SVG.
 *
 * The horizontal axis is the order of the ratings (one step per rated match), not the
 * clock: a bot that played ten matches in a minute and one a week later reads as
 * eleven even steps, which is what an author wants from "how it went".
 */

// A round step (1, 2 or 5 times a power of ten) that cuts `span` into at most `most` parts.
export function niceStep(span, most) {
  const rough = span / Math.max(1, most);
  if (!(rough > 0) || !Number.isFinite(rough)) {
    return 1;
  }
  const power = Math.pow(10, Math.floor(Math.log10(rough)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough);
  return step;
}

const round = (value) => Math.round(value * 10) / 10;

// The chart of `ratings` ([{ms, mu, sigma, ordinal}], oldest first) in a box `width` ×
// `height` whose plot keeps `pad` {top, right, bottom, left} free for the axis:
//   points: [{x, y, mu, sigma, ms}]   the line through the μ of each rating
//   line:   the SVG path of that line ("" without ratings)
//   band:   the SVG path of the μ ± σ area ("" without ratings)
//   ticks:  [{y, value}]               the vertical axis' round figures, low to high
//   low, high: the figures at the bottom and the top of the plot
export function ratingChart(ratings, width, height, pad) {
  const list = Array.isArray(ratings) ? ratings.filter((one) => one && Number.isFinite(one.mu) && Number.isFinite(one.sigma)) : [];
  const empty = { points: [], line: "", band: "", ticks: [], low: 0, high: 0 };
  if (!list.length) {
    return empty;
  }
  const left = pad.left;
  const right = width - pad.right;
  const top = pad.top;
  const bottom = height - pad.bottom;
  let low = Math.min(...list.map((one) => one.mu - one.sigma));
  let high = Math.max(...list.map((one) => one.mu + one.sigma));
  if (high - low < 1) {
    low -= 0.5;
    high += 0.5;
  }
  const step = niceStep(high - low, 4);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  const y = (value) => round(bottom - (value - low) / (high - low) * (bottom - top));
  const x = (index) => round(list.length === 1 ? (left + right) / 2 : left + index / (list.length - 1) * (right - left));
  const points = list.map((one, index) => ({ x: x(index), y: y(one.mu), mu: one.mu, sigma: one.sigma, ms: one.ms }));
  const line = points.map((point, index) => (index ? "L" : "M") + point.x + " " + point.y).join(" ");
  const upper = list.map((one, index) => x(index) + " " + y(one.mu + one.sigma));
  const lower = list.map((one, index) => x(index) + " " + y(one.mu - one.sigma)).reverse();
  const band = "M" + upper.concat(lower).join(" L") + " Z";
  const ticks = [];
  for (let value = low; value <= high + step / 1e6; value += step) {
    const exact = Math.round(value / step) * step;
    ticks.push({ y: y(exact), value: Number(exact.toFixed(6)) });
  }
  return { points: points, line: line, band: band, ticks: ticks, low: low, high: high };
}
