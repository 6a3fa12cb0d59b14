// The renderer exports a chart's series in curve.csv's own float format; the
// format is the metrics domain's, re-exported here so the renderer reaches it
// through the contract.
export { formatPythonFloat } from '../core/metrics/pythonFloat';
