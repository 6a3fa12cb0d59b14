import { useState, type RefObject } from 'react';
import { chartPng, chartSvg, saveFile, type LegendEntry } from '../lib/exportChart';

/**
 * A chart's PNG and SVG exports: the same titled document with its legend,
 * saved as `<stem>.png` / `<stem>.svg`; a failure is shown, not thrown.
 */
export function useChartExport(frame: RefObject<HTMLDivElement | null>, describe: () => { title: string; legend: readonly LegendEntry[]; stem: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const attempt = (work: (element: HTMLDivElement, title: string, legend: readonly LegendEntry[], stem: string) => Promise<void> | void) => {
    const element = frame.current;
    if (element === null) return;
    setProblem(null);
    const { title, legend, stem } = describe();
    Promise.resolve()
      .then(() => work(element, title, legend, stem))
      .catch((error: unknown) => setProblem(error instanceof Error ? error.message : String(error)));
  };
  return {
    problem,
    png: () => attempt(async (element, title, legend, stem) => saveFile(`${stem}.png`, await chartPng(element, title, legend))),
    svg: () => attempt((element, title, legend, stem) => saveFile(`${stem}.svg`, chartSvg(element, title, legend).svg, 'image/svg+xml')),
  };
}
