import type { ReactNode } from "react";

/** One column: its header and what a row shows in it. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** The column that names the row (a `th` a screen reader reads out with each cell). */
  rowHeader?: boolean;
}

/**
 * A striped table that scrolls sideways on its own on a narrow screen (the page never does), with
 * a header row and, when given, a caption only screen readers see.
 */
export function DataTable<Row>({
  rows,
  columns,
  rowKey,
  rowTestId,
  caption,
}: {
  rows: readonly Row[];
  columns: readonly (Column<Row> | false)[];
  rowKey: (row: Row) => string;
  rowTestId?: string;
  caption?: ReactNode;
}) {
  const shown = columns.filter((column): column is Column<Row> => column !== false);
  return (
    <div className="table-scroll">
      <table className="striped">
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {shown.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} data-testid={rowTestId}>
              {shown.map((column) =>
                column.rowHeader ? (
                  <th key={column.header} scope="row">
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header}>{column.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
