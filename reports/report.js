/* Sortable tables: click (or Enter on) a header.  Numeric cells carry their
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
  /* Tests look for this: the script ran to the end without an error. */
  document.documentElement.setAttribute("data-ready", "1");
})();
