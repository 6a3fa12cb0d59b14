import { describe, expect, test } from 'vitest';
import { CurveRow, GATE_OUTCOMES, GateRow } from '../contract';
import { CURVE_COLUMNS } from '../core/metrics/curve';
import { GATE_COLUMNS, GATE_OUTCOMES as METRICS_GATE_OUTCOMES } from '../core/metrics/gateCsv';

// The contract spells out the wire shape of a curve row and a gate row; the
// metrics domain owns the file layouts. These pin one to the other.
describe('the contract matches the metrics domain', () => {
  test("a curve row has exactly Reef's curve.csv columns, in order", () => {
    expect(Object.keys(CurveRow.shape)).toEqual([...CURVE_COLUMNS]);
  });

  test("a gate row has exactly Reef's gate.csv columns, in order, and the same outcomes", () => {
    expect(Object.keys(GateRow.shape)).toEqual([...GATE_COLUMNS]);
    expect([...GATE_OUTCOMES]).toEqual([...METRICS_GATE_OUTCOMES]);
  });
});
