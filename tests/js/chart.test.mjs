// The bot page's rating chart (assets/arena/js/chart.js): where the points, the band and
// the axis' figures land in the box.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { niceStep, ratingChart } from "../../assets/arena/js/chart.js";

const PAD = { top: 10, right: 10, bottom: 20, left: 40 };

describe("niceStep", () => {
  test("a step of 1, 2 or 5 times a power of ten, cutting the span in at most the parts asked", () => {
    assert.equal(niceStep(10, 4), 5);
    assert.equal(niceStep(3, 4), 1);
    assert.equal(niceStep(0.7, 4), 0.2);
    assert.equal(niceStep(40, 4), 10);
  });

  test("a span of nothing still gives a usable step", () => {
    assert.equal(niceStep(0, 4), 1);
  });
});

describe("ratingChart", () => {
  test("no ratings draw nothing", () => {
    const chart = ratingChart([], 300, 150, PAD);
    assert.deepEqual(chart.points, []);
    assert.equal(chart.line, "");
    assert.equal(chart.band, "");
  });

  test("the first rating is at the left edge, the last at the right, in order", () => {
    const chart = ratingChart([
      { ms: 1, mu: 25, sigma: 8.3, ordinal: 0 },
      { ms: 2, mu: 27, sigma: 7, ordinal: 6 },
      { ms: 3, mu: 30, sigma: 5, ordinal: 15 }
    ], 300, 150, PAD);
    assert.deepEqual(chart.points.map((point) => point.x), [40, 165, 290]);
    assert.equal(chart.line, "M40 " + chart.points[0].y + " L165 " + chart.points[1].y + " L290 " + chart.points[2].y);
  });

  test("a higher μ is higher on screen, and every point stays inside the plot", () => {
    const chart = ratingChart([
      { ms: 1, mu: 20, sigma: 3, ordinal: 11 },
      { ms: 2, mu: 35, sigma: 2, ordinal: 29 }
    ], 300, 150, PAD);
    assert.ok(chart.points[1].y < chart.points[0].y);
    chart.points.forEach((point) => {
      assert.ok(point.y >= PAD.top && point.y <= 150 - PAD.bottom);
    });
  });

  test("the axis runs from a round figure below μ − σ to one above μ + σ", () => {
    const chart = ratingChart([{ ms: 1, mu: 25, sigma: 8.333, ordinal: 0 }], 300, 150, PAD);
    assert.ok(chart.low <= 25 - 8.333 && chart.high >= 25 + 8.333);
    assert.equal(chart.ticks[0].value, chart.low);
    assert.equal(chart.ticks[chart.ticks.length - 1].value, chart.high);
    assert.equal(chart.ticks[0].y, 130);
    assert.equal(chart.ticks[chart.ticks.length - 1].y, 10);
    assert.ok(chart.ticks.length >= 2 && chart.ticks.length <= 6);
  });

  test("one rating sits in the middle, with a band around it", () => {
    const chart = ratingChart([{ ms: 1, mu: 25, sigma: 8.333, ordinal: 0 }], 300, 150, PAD);
    assert.equal(chart.points[0].x, 165);
    assert.match(chart.band, /^M165 [\d.]+ L165 [\d.]+ Z$/);
  });

  test("a flat rating with no spread still gets an axis of some height", () => {
    const chart = ratingChart([{ ms: 1, mu: 30, sigma: 0, ordinal: 30 }, { ms: 2, mu: 30, sigma: 0, ordinal: 30 }], 300, 150, PAD);
    assert.ok(chart.high > chart.low);
    assert.ok(chart.points.every((point) => Number.isFinite(point.y)));
  });

  test("ratings without numbers are left out", () => {
    const chart = ratingChart([{ ms: 1, mu: null, sigma: 1 }, { ms: 2, mu: 25, sigma: 1, ordinal: 22 }], 300, 150, PAD);
    assert.equal(chart.points.length, 1);
  });
});
