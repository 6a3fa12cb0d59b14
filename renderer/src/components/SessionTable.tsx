import type { CurveRow } from '../../../src/contract/runs';
import { rejectionReasons } from '../lib/chartData';
import { rate } from '../lib/format';

/** How a 0/1 column reads: is a 1 good news or a violation? */
const FLAG_TONE: Partial<Record<keyof CurveRow, 'good' | 'bad'>> = {
  accept: 'good',
  style_clean: 'good',
  bold: 'bad',
  bullets: 'bad',
  numbered: 'bad',
  list: 'bad',
  no_shown_work: 'bad',
  no_gold_answer: 'bad',
};

const RATE_COLUMNS = new Set<string>(['accept_rate_10', 'bold_rate_10', 'list_rate_10', 'style_clean_rate_10']);

function Cell({ column, row }: { column: keyof CurveRow; row: CurveRow }) {
  const value = row[column];
  const tone = FLAG_TONE[column];
  if (tone !== undefined) {
    return (
      <td className={`flag ${value === 1 ? `flag-on flag-${tone}` : 'flag-off'}`} title={`${column} = ${value}`}>
        {value === 1 ? '1' : '0'}
      </td>
    );
  }
  if (RATE_COLUMNS.has(column)) {
    return (
      <td className="num" title={String(value)}>
        {rate(value)}
      </td>
    );
  }
  return <td className="num">{value}</td>;
}

/** A column name that may wrap after its underscores (first_reply_chars → first_ reply_ chars). */
function breakableColumnName(column: string) {
  const parts = column.split('_');
  return parts.map((part, index) => (
    <span key={index}>
      {part}
      {index < parts.length - 1 && (
        <>
          _<wbr />
        </>
      )}
    </span>
  ));
}

/** Every column of curve.csv for the sessions in view; raw values in each cell's tooltip. */
export function SessionTable({ columns, rows }: { columns: readonly string[]; rows: readonly CurveRow[] }) {
  const keys = columns as readonly (keyof CurveRow)[];
  return (
    <section className="card">
      <header className="card-header">
        <h3>Sessions</h3>
        <span className="card-meta">{rows.length} rows · columns as in curve.csv</span>
      </header>
      <div className="table-scroll">
        <table className="session-table" data-testid="session-table">
          <thead>
            <tr>
              {keys.map((column) => (
                <th key={column} scope="col" title={column}>
                  {breakableColumnName(column)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.session}
                data-testid="session-row"
                className={row.accept === 1 ? 'row-accepted' : undefined}
                title={row.accept === 1 ? 'accepted' : `rejected: ${rejectionReasons(row).join(', ')}`}
              >
                {keys.map((column) => (
                  <Cell key={column} column={column} row={row} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
