import { formatUsdc } from "../lib/amounts.ts";
import { barHeights } from "../lib/chart.ts";
import { Usdc } from "./usdc.tsx";

export interface DailyFigure {
  date: string;
  volume_wei: string;
  transactions: number;
}

const WIDTH = 600;
const VOLUME_HEIGHT = 120;
const COUNT_HEIGHT = 50;
const GAP = 24;

/**
 * Daily volume (top bars) and transactions (bottom bars), hand-drawn in SVG. The picture is for
 * the eye; screen readers get the same figures as a table.
 */
export function DailyChart({ days }: { days: DailyFigure[] }) {
  const slot = WIDTH / Math.max(days.length, 1);
  const bar = Math.max(1, slot * 0.7);
  const volumes = barHeights(
    days.map((day) => BigInt(day.volume_wei)),
    VOLUME_HEIGHT,
  );
  const counts = barHeights(
    days.map((day) => BigInt(day.transactions)),
    COUNT_HEIGHT,
  );
  const countTop = VOLUME_HEIGHT + GAP;
  const peakVolume = days.reduce((peak, day) => (BigInt(day.volume_wei) > peak ? BigInt(day.volume_wei) : peak), 0n);
  const peakCount = Math.max(0, ...days.map((day) => day.transactions));
  const first = days[0]?.date ?? "";
  const last = days.at(-1)?.date ?? "";
  return (
    <figure className="daily-chart">
      <svg viewBox={`0 0 ${WIDTH} ${countTop + COUNT_HEIGHT + 18}`} aria-hidden="true" focusable="false">
        <text x="0" y="10" className="chart-label">
          Volume (USDC), peak {formatUsdc(peakVolume)}
        </text>
        <text x="0" y={VOLUME_HEIGHT + 20} className="chart-label">
          Transactions, peak {peakCount}
        </text>
        {days.map((day, index) => {
          const x = index * slot + (slot - bar) / 2;
          const volume = volumes[index] ?? 0;
          const count = counts[index] ?? 0;
          return (
            <g key={day.date}>
              <title>{`${day.date}: ${day.transactions} transactions`}</title>
              <rect className="bar-volume" x={x} y={VOLUME_HEIGHT - volume} width={bar} height={volume} />
              <rect className="bar-count" x={x} y={countTop + COUNT_HEIGHT - count} width={bar} height={count} />
            </g>
          );
        })}
        <line className="axis" x1="0" x2={WIDTH} y1={VOLUME_HEIGHT} y2={VOLUME_HEIGHT} />
        <line className="axis" x1="0" x2={WIDTH} y1={countTop + COUNT_HEIGHT} y2={countTop + COUNT_HEIGHT} />
        <text x="0" y={countTop + COUNT_HEIGHT + 16} className="chart-label">
          {first}
        </text>
        <text x={WIDTH} y={countTop + COUNT_HEIGHT + 16} className="chart-label" textAnchor="end">
          {last}
        </text>
      </svg>
      <figcaption>
        Daily volume and transactions, {first} to {last} (UTC)
      </figcaption>
      {/* Hidden in a div: a table grows to its content whatever width it is given. */}
      <div className="visually-hidden">
        <table>
          <caption>Daily volume and transactions</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Volume</th>
              <th scope="col">Transactions</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                <td>
                  <Usdc wei={day.volume_wei} />
                </td>
                <td>{day.transactions}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
