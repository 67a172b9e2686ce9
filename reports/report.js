/* Sortable tables: click (or Enter on) a header; chart labels kept apart.  Numeric cells carry their
 * value in data-v; empty values sort last.  Without script the tables are
 * simply in the report's order. */
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-v");
    return v === null ? null : (v === "" ? NaN : parseFloat(v));
  }
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col];
      if (!x || !y) return 0;
      var u = key(x), v = key(y);
      if (u !== null && v !== null) {
        if (isNaN(u)) return isNaN(v) ? 0 : 1;
        if (isNaN(v)) return -1;
        return (u - v) * dir;
      }
      return x.textContent.localeCompare(y.textContent) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }
  document.querySelectorAll("table.sortable thead th").forEach(function (th) {
    th.tabIndex = 0;
    th.addEventListener("click", function () { sortBy(th); });
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(th); });
  });
  /* Chart labels that would overlap: a tick gives way (hidden), any other
   * label moves down past the one it hit.  The charts are drawn without
   * knowing the fonts' widths; this is the one place that does. */
  function hit(a, b) {
    return a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  }
  function unclash(svg) {
    var texts = Array.prototype.slice.call(svg.querySelectorAll("text"));
    var scale = svg.getBoundingClientRect().width / (svg.viewBox.baseVal.width || 1) || 1;
    for (var pass = 0; pass < 4; pass++) {
      var moved = false, seen = [];
      texts.forEach(function (t) {
        if (t.style.visibility === "hidden") return;
        var r = t.getBoundingClientRect();
        if (!r.width) return;
        for (var i = 0; i < seen.length; i++) {
          var o = seen[i], q = o.getBoundingClientRect();
          if (!hit(r, q)) continue;
          if (t.classList.contains("tick")) { t.style.visibility = "hidden"; return; }
          if (o.classList.contains("tick")) { o.style.visibility = "hidden"; continue; }
          var dy = (q.bottom - r.top + 1) / scale;
          t.setAttribute("y", (parseFloat(t.getAttribute("y")) || 0) + dy);
          moved = true;
          r = t.getBoundingClientRect();
        }
        seen.push(t);
      });
      if (!moved) break;
    }
  }
  document.querySelectorAll("svg.chart").forEach(unclash);
  /* history: show only the cases whose name matches a glob (* and ?, as
   * the command line's CASE-GLOB). */
  var filter = document.getElementById("case-filter");
  function globRe(g) {
    return new RegExp("^" + g.replace(/[.+^${}()|[\]\\\/]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$");
  }
  function applyFilter() {
    var g = filter.value.trim(), re = g ? globRe(g) : null, shown = 0, all = 0;
    document.querySelectorAll("[data-case]").forEach(function (e) {
      var ok = !re || re.test(e.getAttribute("data-case"));
      e.hidden = !ok;
      if (e.classList.contains("card")) { all++; if (ok) shown++; }
    });
    document.getElementById("case-count").textContent = shown + " of " + all + " charts";
  }
  if (filter) {
    /* A link may carry the glob: page.html#cases=csum/* */
    if (location.hash.indexOf("#cases=") === 0) filter.value = decodeURIComponent(location.hash.slice(7));
    filter.addEventListener("input", applyFilter);
    applyFilter();
  }
  /* Tests look for this: the script ran to the end without an error. */
  document.documentElement.setAttribute("data-ready", "1");
})();
