"use strict";
// the drawing, shared by the discrete page (explorer.js) and the Gaussian one
// (explorer_gaussian.js): the data, the canvas, the edges with their arrowheads
const S = JSON.parse(document.getElementById("treelearn-data").textContent);
const V = S.variables, N = V.length;
// ---------------------------------------------------------------- the page
const canvas = document.getElementById("canvas"), svg = document.getElementById("edges");
const tip = document.getElementById("tip"), status = document.getElementById("status");
canvas.style.width = S.width + "px"; canvas.style.height = S.height + "px";
const viewBox = document.getElementById("view");
svg.setAttribute("width", S.width); svg.setAttribute("height", S.height);
const NS = "http://www.w3.org/2000/svg";
let shownEdges = 0;

function drawEdges() {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  for (const [u, v, kind, width, strength, route] of S.edges[shownEdges]) {
    if (kind === "class") continue;  // a mark on the box instead: lines would cross the boxes
    const a = V[u], b = V[v], g = document.createElementNS(NS, "g");
    // a tree edge of the layout: its route round the other boxes (tree_route, computed
    // with the layout); any other: a straight line between the boxes
    let pts = route;
    if (!pts) {
      const down = b.y >= a.y + a.h;
      pts = [[a.x + a.w / 2, down ? a.y + a.h : a.y + a.h / 2], [b.x + b.w / 2, down ? b.y : b.y + b.h / 2]];
    }
    g.setAttribute("class", kind === "extra" ? "edge extra" : "edge");
    g.dataset.edge = JSON.stringify([a.name, b.name]);
    g.dataset.strength = strength === null ? "" : String(strength);
    for (const cls of ["hit", "shown"]) {  // a wide transparent line catches the hover
      const l = document.createElementNS(NS, "polyline");
      l.setAttribute("points", pts.map(p => p.join(",")).join(" "));
      l.setAttribute("class", cls);
      if (cls === "shown") l.setAttribute("stroke-width", width);
      g.appendChild(l);
    }
    // the arrowhead: a triangle whose tip is the line's end, on the child's box, along
    // the last segment
    const [x1, y1] = pts[pts.length - 2], [x2, y2] = pts[pts.length - 1];
    const len = Math.hypot(x2 - x1, y2 - y1) || 1, ux = (x2 - x1) / len, uy = (y2 - y1) / len;
    const bx = x2 - 9 * ux, by = y2 - 9 * uy, head = document.createElementNS(NS, "path");
    head.setAttribute("class", "head");
    head.setAttribute("d", "M" + x2 + "," + y2 + " L" + (bx - 4 * uy) + "," + (by + 4 * ux) +
                      " L" + (bx + 4 * uy) + "," + (by - 4 * ux) + " Z");
    g.appendChild(head);
    const t = document.createElementNS(NS, "title");
    t.textContent = a.name + " \u2192 " + b.name + (strength === null ? "" :
      S.strength === "posterior" ? ": P(" + a.name + " \u2013 " + b.name + " in the tree | data) = " + strength.toFixed(4) :
      ": I(" + a.name + "; " + b.name + ") = " + strength.toFixed(4) + " nats" +
      (S.edge_labels.length ? " (given " + V[S.cond].name + " = " + S.edge_labels[shownEdges] + ")" : ""));
    g.appendChild(t);
    if (strength !== null) {
      const lab = document.createElementNS(NS, "text");
      const k = Math.floor(pts.length / 2), [p0, p1] = [pts[k - 1], pts[k]];  // the crossing
      lab.setAttribute("x", (p0[0] + p1[0]) / 2 + 4); lab.setAttribute("y", (p0[1] + p1[1]) / 2);
      lab.textContent = strength.toFixed(3); g.appendChild(lab);
    }
    svg.appendChild(g);
  }
}

const classMarked = new Set(S.edges[0].filter(e => e[2] === "class").map(e => e[1]));
const MARKER = classMarked.size ? S.edges[0].find(e => e[2] === "class")[0] : -1;  // the class
function moveTip(e) {
  tip.style.left = (e.pageX + 14) + "px"; tip.style.top = (e.pageY + 14) + "px";
}
function fmt(p) { return (100 * p).toFixed(p > 0 && p < 0.001 ? 3 : 1) + "%"; }
