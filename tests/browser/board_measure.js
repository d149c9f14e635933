// The board as drawn (evaluated by tests/browser/board_measure.py): the map panel, the drawn box, the city labels
// (font size on screen, boxes, overlaps with each other and with other cities), what lies under the zoom buttons.
(() => {
  const svg = document.querySelector('svg.board-svg');
  const panel = svg.getBoundingClientRect();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const n of document.querySelectorAll('g.space, g.city .city-dot, text.city-label')) {
    const r = n.getBoundingClientRect();
    x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top); x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom);
  }
  const cx0 = Math.max(x0, panel.left), cy0 = Math.max(y0, panel.top);
  const cx1 = Math.min(x1, panel.right), cy1 = Math.min(y1, panel.bottom);
  const scale = svg.getScreenCTM().a;
  const labels = [...document.querySelectorAll('text.city-label')];
  const boxes = labels.map((t) => { const r = t.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; });
  const inter = (a, b) => Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const collisions = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    if (inter(boxes[i], boxes[j]) > 0) collisions.push([labels[i].dataset.city, labels[j].dataset.city]);
  }
  const dots = [...document.querySelectorAll('g.city')].map((g) => {
    const r = g.querySelector('.city-dot').getBoundingClientRect(); return [g.dataset.city, [r.left, r.top, r.right, r.bottom]]; });
  const overCities = [];
  labels.forEach((t, i) => { for (const [id, b] of dots) if (id !== t.dataset.city && inter(boxes[i], b) > 1) overCities.push([t.dataset.city, id]); });
  // A label nearer (box to dot centre) to another city than to its own reads as that city's name.
  const centres = Object.fromEntries(dots.map(([id, b]) => [id, [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]]));
  const gapTo = (b, p) => Math.hypot(Math.max(b[0] - p[0], 0, p[0] - b[2]), Math.max(b[1] - p[1], 0, p[1] - b[3]));
  const ambiguous = [];
  labels.forEach((t, i) => {
    const own = gapTo(boxes[i], centres[t.dataset.city]);
    for (const [id, p] of Object.entries(centres)) if (id !== t.dataset.city && gapTo(boxes[i], p) < own) { ambiguous.push([t.dataset.city, id]); break; }
  });
  const ctl = document.querySelector('.zoom-controls').getBoundingClientRect();
  const underButtons = [...document.querySelectorAll('g.city .city-dot, text.city-label, g.space')].filter((n) => {
    const r = n.getBoundingClientRect(); return inter([r.left, r.top, r.right, r.bottom], [ctl.left, ctl.top, ctl.right, ctl.bottom]) > 0; }).length;
  const outside = boxes.filter((b) => b[0] < panel.left - 0.5 || b[1] < panel.top - 0.5 || b[2] > panel.right + 0.5 || b[3] > panel.bottom + 0.5).length;
  return {
    panel: [panel.left, panel.top, panel.width, panel.height],
    drawn: [x0, y0, x1 - x0, y1 - y0],
    share: Math.max(0, cx1 - cx0) * Math.max(0, cy1 - cy0) / (panel.width * panel.height),
    label_px: labels.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale),
    label_heights: boxes.map((b) => b[3] - b[1]),
    collisions, over_cities: overCities, outside, labels: labels.length, under_buttons: underButtons, ambiguous,
  };
})
