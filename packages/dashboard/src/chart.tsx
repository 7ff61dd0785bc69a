/**
 * Bar charts with Chart.js (tree-shaken: bar chart pieces only). Bars run sideways, one row per
 * category, so dimension names stay readable on a phone and the chart grows with its bars rather
 * than stretching a few of them over a large area. Both axes carry a title, each bar its value
 * (and its 95 % interval as an error bar when given), and the same numbers are in a table for
 * screen readers.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import type { Plugin } from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const COLOURS = ['#3b5bdb', '#e8590c', '#2b8a3e', '#c2255c', '#5f3dc4', '#0b7285', '#a61e4d', '#5c940d'];
/** A bar's thickness in px, and the room a category gets beyond its bars. */
const BAR = 20;
const GROUP_GAP = 12;

export interface Series {
  label: string;
  values: Array<number | null>;
  /** A 95 % interval per value, drawn as an error bar (null: none for that value). */
  intervals?: Array<readonly [number, number] | null>;
}

/** Error bars: a line from the interval's low to its high end across each (sideways) bar, with caps. */
function errorBars(series: Series[]): Plugin<'bar'> {
  return {
    id: 'errorBars',
    afterDatasetsDraw(chart) {
      const { ctx } = chart;
      const value = chart.scales.x;
      if (!value) return;
      ctx.save();
      ctx.strokeStyle = '#1b1e24';
      ctx.lineWidth = 1.5;
      series.forEach((s, i) => {
        const meta = chart.getDatasetMeta(i);
        if (meta.hidden) return;
        meta.data.forEach((bar, j) => {
          const interval = s.intervals?.[j];
          if (!interval) return;
          const lo = value.getPixelForValue(interval[0]);
          const hi = value.getPixelForValue(interval[1]);
          const { y } = bar.getProps(['y'], true) as { y: number };
          const cap = 4;
          ctx.beginPath();
          ctx.moveTo(lo, y);
          ctx.lineTo(hi, y);
          ctx.moveTo(lo, y - cap);
          ctx.lineTo(lo, y + cap);
          ctx.moveTo(hi, y - cap);
          ctx.lineTo(hi, y + cap);
          ctx.stroke();
        });
      });
      ctx.restore();
    },
  };
}

/** How a value is written on its bar, in the tooltip and in the table. */
export const formatBarValue = (v: number | null | undefined): string =>
  v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(3);

/**
 * Writes each bar's value at its end (inside the bar when there is no room outside); with error
 * bars, inside the bar's start, clear of the interval's line.
 */
function valueLabels(series: Series[]): Plugin<'bar'> {
  return {
    id: 'vestaValueLabels',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      ctx.save();
      ctx.font = '11px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      chart.data.datasets.forEach((dataset, i) => {
        const meta = chart.getDatasetMeta(i);
        if (meta.hidden) return;
        meta.data.forEach((bar, j) => {
          const value = dataset.data[j];
          if (typeof value !== 'number') return;
          const text = formatBarValue(value);
          const width = ctx.measureText(text).width;
          const { x, y } = bar.getProps(['x', 'y'], true) as { x: number; y: number };
          const interval = series[i]?.intervals?.[j];
          if (interval) {
            // The interval's line runs through the bar's end: the value goes at the bar's start.
            const start = chartArea.left + 4;
            if (start + width > x - 2) return;
            ctx.fillStyle = '#ffffff';
            ctx.textAlign = 'left';
            ctx.fillText(text, start, y);
            return;
          }
          const outside = x + 4 + width <= chartArea.right;
          ctx.fillStyle = outside ? '#1b1e24' : '#ffffff';
          ctx.textAlign = outside ? 'left' : 'right';
          ctx.fillText(text, outside ? x + 4 : x - 4, y);
        });
      });
      ctx.restore();
    },
  };
}

export function BarChart(props: {
  labels: string[];
  series: Series[];
  title: string;
  max?: number;
  /** The value axis's title (what the bars measure). */
  valueAxis?: string;
  /** The category axis's title (what each row is). */
  categoryAxis?: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const { labels, series, title, max } = props;
  const valueAxis = props.valueAxis ?? 'Score';
  const categoryAxis = props.categoryAxis ?? 'Dimension';
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels,
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.values,
          backgroundColor: COLOURS[i % COLOURS.length],
          maxBarThickness: BAR,
          barPercentage: 0.9,
          categoryPercentage: 0.85,
        })),
      },
      plugins: [
        valueLabels(series),
        ...(series.some((s) => s.intervals?.some((i) => i !== null)) ? [errorBars(series)] : []),
      ],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: 'y',
        layout: { padding: { right: 8 } },
        plugins: {
          legend: { display: series.length > 1, position: 'top', align: 'start' },
          tooltip: {
            enabled: true,
            callbacks: {
              label: (item) => {
                const interval = series[item.datasetIndex]?.intervals?.[item.dataIndex];
                return `${series.length > 1 ? `${item.dataset.label ?? ''}: ` : ''}${formatBarValue(
                  item.parsed.x,
                )}${interval ? ` [${formatBarValue(interval[0])}, ${formatBarValue(interval[1])}]` : ''}`;
              },
            },
          },
        },
        scales: {
          x: {
            min: 0,
            ...(max === undefined ? {} : { suggestedMax: max }),
            title: { display: true, text: valueAxis, font: { weight: 'bold' } },
          },
          y: {
            title: { display: true, text: categoryAxis, font: { weight: 'bold' } },
            ticks: {
              // On a narrow chart a long name is cut (the whole one is in the tooltip and table).
              callback(value) {
                const label = this.getLabelForValue(Number(value));
                const room = this.chart.width < 480 ? 18 : 40;
                return label.length > room ? `${label.slice(0, room - 1)}…` : label;
              },
            },
          },
        },
      },
    });
    return () => chart.destroy();
  }, [labels, series, max, valueAxis, categoryAxis]);
  const legend = series.length > 1 ? 28 + 18 * Math.ceil(series.length / 3) : 0;
  // Room for the bars and the axes; at least enough for the category axis's title written upright.
  const height = Math.max(150, labels.length * (Math.max(1, series.length) * BAR + GROUP_GAP) + 70 + legend);
  return (
    <figure className="chart" data-testid="bar-chart" style={{ height }}>
      <canvas
        ref={canvas}
        role="img"
        aria-label={`${title}: ${valueAxis} by ${categoryAxis.toLowerCase()}`}
      />
      <figcaption className="sr-only">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">{categoryAxis}</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {series.length > 1 ? s.label : valueAxis}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((l, i) => (
              <tr key={l}>
                <th scope="row">{l}</th>
                {series.map((s) => {
                  const interval = s.intervals?.[i];
                  return (
                    <td key={s.label}>
                      {formatBarValue(s.values[i])}
                      {interval
                        ? ` (95 % interval ${formatBarValue(interval[0])} to ${formatBarValue(interval[1])})`
                        : ''}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </figcaption>
    </figure>
  );
}
