// The metrics domain: a run's learning curve (Reef's curve.csv) and the gate's
// per-step table (Reef's gate.csv), computed, read and written.
export { CURVE_COLUMNS, DERIVED_COLUMNS, ROLLING_WINDOW, ADAPTATION_RUN, curveRows, observeSession, sessionsToAdaptation } from './curve';
export type { Bit, CurveColumn, CurveRow, SessionObservation } from './curve';
export { parseCurveCsv, formatCurveCsv, checkDerivedColumns, describeMismatch } from './curveCsv';
export type { CurveFile, DerivedMismatch } from './curveCsv';
export { GATE_COLUMNS, GATE_OUTCOMES, parseGateCsv, formatGateCsv } from './gateCsv';
export type { GateColumn, GateOutcome, GateRow } from './gateCsv';
export { CsvError } from './csv';
export { formatPythonFloat } from './pythonFloat';
