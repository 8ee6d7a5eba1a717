// zoom, pan, fit and search, shared by every page; then the page starts
// ---------------------------------------------------------------- zoom, pan, fit, search
// the drawing is moved by one transform, translate(tx, ty) scale(s), of #canvas in #view;
// #view carries data-scale, data-tx, data-ty
const view = { s: 1, tx: 0, ty: 0, auto: true };
const tools = document.getElementById("tools");
function usable() {  // the part of the window the side panel and the tools do not cover
  const w = viewBox.clientWidth, h = viewBox.clientHeight;
  const cover = panel && w > 700 ? panel.offsetWidth + 20 : 0;
  return [Math.max(w - cover, 50), Math.max(h - tools.offsetHeight - 20, 50)];
}
function place() {
  canvas.style.transform = "translate(" + view.tx + "px, " + view.ty + "px) scale(" + view.s + ")";
  Object.assign(viewBox.dataset, { scale: String(view.s), tx: String(view.tx), ty: String(view.ty) });
}
function fit() {
  const [w, h] = usable();
  view.s = Math.min(w / S.width, h / S.height, 2);
  view.tx = (w - S.width * view.s) / 2; view.ty = (h - S.height * view.s) / 2;
  view.auto = true; place();
}
function actualSize() {  // 1:1, centred across, from the top
  const [w] = usable();
  view.s = 1; view.tx = Math.max((w - S.width) / 2, 0); view.ty = 0; place();
}
function zoomAt(factor, cx, cy) {  // (cx, cy): the point of #view that stays put
  const s = Math.min(Math.max(view.s * factor, 0.05), 8);
  view.tx = cx - (cx - view.tx) * s / view.s; view.ty = cy - (cy - view.ty) * s / view.s;
  view.s = s; view.auto = false; place();
}
function centre(i) {  // variable i's box in the middle of the usable window
  const [w, h] = usable(), v = V[i];
  view.tx = w / 2 - (v.x + v.w / 2) * view.s; view.ty = h / 2 - (v.y + v.h / 2) * view.s;
  view.auto = false; place();
}
function matches(q) {  // the variables whose names contain q (any case); an exact name first
  q = q.trim().toLowerCase();
  if (!q) return [];
  const all = V.map((v, i) => i).filter(i => V[i].name.toLowerCase().includes(q));
  const exact = all.filter(i => V[i].name.toLowerCase() === q);
  return [...exact, ...all.filter(i => !exact.includes(i))];
}
function search(q, go) {
  const found = matches(q);
  boxes.forEach((d, i) => { d.classList.toggle("match", found.includes(i)); d.classList.remove("found"); });
  if (!go) return;
  if (!found.length) { message = "no variable matches \u201c" + q + "\u201d"; render(); return; }
  boxes[found[0]].classList.add("found");
  centre(found[0]);
}
const searchBox = document.getElementById("search");
V.forEach(v => { const o = document.createElement("option"); o.value = v.name;
                 document.getElementById("variable-names").appendChild(o); });
searchBox.addEventListener("input", () => search(searchBox.value, V.some(v => v.name === searchBox.value)));
searchBox.addEventListener("keydown", e => { if (e.key === "Enter") search(searchBox.value, true); });
const middle = () => { const [w, h] = usable(); return [w / 2, h / 2]; };
document.getElementById("zoom-in").addEventListener("click", () => zoomAt(1.25, ...middle()));
document.getElementById("zoom-out").addEventListener("click", () => zoomAt(0.8, ...middle()));
document.getElementById("fit").addEventListener("click", fit);
document.getElementById("actual").addEventListener("click", () => { actualSize(); view.auto = false; });
document.getElementById("edge-labels").addEventListener("change", e => svg.classList.toggle("labels", e.target.checked));
viewBox.addEventListener("wheel", e => {
  e.preventDefault();
  const r = viewBox.getBoundingClientRect();
  zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
}, { passive: false });
let drag = null;  // a press on the background (not on a box) pans
viewBox.addEventListener("mousedown", e => {
  if (e.button !== 0 || e.target.closest(".var")) return;
  drag = [e.clientX, e.clientY, view.tx, view.ty]; viewBox.classList.add("dragging");
});
window.addEventListener("mousemove", e => {
  if (!drag) return;
  view.tx = drag[2] + e.clientX - drag[0]; view.ty = drag[3] + e.clientY - drag[1];
  view.auto = false; place();
});
window.addEventListener("mouseup", () => { drag = null; viewBox.classList.remove("dragging"); });
window.addEventListener("resize", () => { if (view.auto) fit(); });

window.addEventListener("hashchange", load);
drawEdges();
load();
// the whole drawing in the window when it is larger; else at its size, centred across
{ const [w, h] = usable(); if (S.width > w || S.height > h) fit(); else { actualSize(); view.auto = false; } }
