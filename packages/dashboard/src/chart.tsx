/** Bar charts with Chart.js (tree-shaken: bar chart pieces only), with optional error bars. */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import type { Plugin } from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const COLOURS = ['#3b5bdb', '#e8590c', '#2b8a3e', '#c2255c', '#5f3dc4', '#0b7285', '#a61e4d', '#5c940d'];

export interface Series {
  label: string;
  values: Array<number | null>;
  /** A 95 % interval per value, drawn as an error bar (null: none for that value). */
  intervals?: Array<readonly [number, number] | null>;
}

/** Error bars: a line from the interval's low to its high end across each bar, with caps. */
function errorBars(series: Series[], horizontal: boolean): Plugin<'bar'> {
  return {
    id: 'errorBars',
    afterDatasetsDraw(chart) {
      const { ctx } = chart;
      const value = horizontal ? chart.scales.x : chart.scales.y;
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
          const { x, y } = bar.getProps(['x', 'y'], true) as { x: number; y: number };
          const cap = 4;
          ctx.beginPath();
          if (horizontal) {
            ctx.moveTo(lo, y);
            ctx.lineTo(hi, y);
            ctx.moveTo(lo, y - cap);
            ctx.lineTo(lo, y + cap);
            ctx.moveTo(hi, y - cap);
            ctx.lineTo(hi, y + cap);
          } else {
            ctx.moveTo(x, lo);
            ctx.lineTo(x, hi);
            ctx.moveTo(x - cap, lo);
            ctx.lineTo(x + cap, lo);
            ctx.moveTo(x - cap, hi);
            ctx.lineTo(x + cap, hi);
          }
          ctx.stroke();
        });
      });
      ctx.restore();
    },
  };
}

export function BarChart(props: { labels: string[]; series: Series[]; title: string; max?: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const { labels, series, title, max } = props;
  useEffect(() => {
    if (!canvas.current) return;
    const horizontal = labels.length > 6;
    const withIntervals = series.some((s) => s.intervals?.some((i) => i !== null));
    const chart = new Chart(canvas.current, {
      type: 'bar',
      plugins: withIntervals ? [errorBars(series, horizontal)] : [],
      data: {
        labels,
        datasets: series.map((s, i) => ({
          label: s.label,
          data: s.values,
          backgroundColor: COLOURS[i % COLOURS.length],
          // One series: keep a lone bar from filling a wide chart. Several: bars of a group touch.
          ...(series.length === 1 ? { maxBarThickness: 48 } : {}),
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: horizontal ? 'y' : 'x',
        plugins: {
          legend: { display: series.length > 1 },
          tooltip: {
            enabled: true,
            callbacks: {
              label: (item) => {
                const interval = series[item.datasetIndex]?.intervals?.[item.dataIndex];
                return `${series.length > 1 ? `${item.dataset.label ?? ''}: ` : ''}${
                  item.parsed[horizontal ? 'x' : 'y']?.toFixed(4) ?? '—'
                }${interval ? ` [${interval[0].toFixed(4)}, ${interval[1].toFixed(4)}]` : ''}`;
              },
            },
          },
        },
        scales: max === undefined ? {} : { x: { suggestedMax: max }, y: { suggestedMax: max } },
      },
    });
    return () => chart.destroy();
  }, [labels, series, max]);
  const height = Math.max(220, labels.length > 6 ? labels.length * series.length * 22 + 60 : 260);
  return (
    <figure className="chart" style={{ height }}>
      <canvas ref={canvas} role="img" aria-label={title} />
      <figcaption className="sr-only">{title}</figcaption>
    </figure>
  );
}
