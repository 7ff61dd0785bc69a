/** Bar charts with Chart.js (tree-shaken: bar chart pieces only). */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

const COLOURS = ['#3b5bdb', '#e8590c', '#2b8a3e', '#c2255c', '#5f3dc4', '#0b7285', '#a61e4d', '#5c940d'];

export interface Series {
  label: string;
  values: Array<number | null>;
}

export function BarChart(props: { labels: string[]; series: Series[]; title: string; max?: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const { labels, series, title, max } = props;
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
          // One series: keep a lone bar from filling a wide chart. Several: bars of a group touch.
          ...(series.length === 1 ? { maxBarThickness: 48 } : {}),
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: labels.length > 6 ? 'y' : 'x',
        plugins: {
          legend: { display: series.length > 1 },
          tooltip: {
            enabled: true,
            callbacks: {
              label: (item) =>
                `${series.length > 1 ? `${item.dataset.label ?? ''}: ` : ''}${
                  item.parsed[labels.length > 6 ? 'x' : 'y']?.toFixed(4) ?? '—'
                }`,
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
