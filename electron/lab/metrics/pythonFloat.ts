// Reef's float format lives in the contract (electron/contract/pythonFloat.ts)
// because the renderer writes it too (a chart's series exported as CSV in
// curve.csv's own format); the metrics domain reads it from there.
export { formatPythonFloat } from '../../contract/pythonFloat';
