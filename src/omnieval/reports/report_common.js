/* Shared by every omnieval page: draw the plotly figures embedded in DATA.charts. */
"use strict";
window.OMNI = window.OMNI || {};
OMNI.plotAll = function (charts) {
  const config = {displaylogo: false, displayModeBar: false, responsive: true, showLink: false};
  for (const [id, fig] of Object.entries(charts || {})) {
    const el = document.getElementById("chart-" + id);
    if (el) Plotly.newPlot(el, fig.data, fig.layout, config);
  }
};
OMNI.esc = function (text) {
  return String(text).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
};
