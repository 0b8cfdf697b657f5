// A small bar chart as inline SVG (no charting library, nothing fetched):
// one bar per value, the latest on the right, with a text alternative.
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/** Draws `values` into the <svg> `target` (viewBox 0 0 300 80); `describe` names the figure for a screen reader. */
export function drawBars(target, values, describe) {
  const width = 300;
  const height = 80;
  const max = Math.max(...values, 1e-9);
  const step = width / Math.max(values.length, 1);
  target.replaceChildren(
    svg('line', { x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, stroke: '#8a93a6' }),
    ...values.map((value, i) => {
      const bar = svg('rect', { x: i * step + 1, width: Math.max(step - 2, 1), y: height - (value / max) * (height - 4), height: (value / max) * (height - 4), fill: '#4d7cfe' });
      bar.append(svg('title', {}));
      bar.firstChild.textContent = value.toFixed(2);
      return bar;
    }),
  );
  target.setAttribute('aria-label', describe);
}
