// Pan and zoom the server-drawn mindmap through its viewBox, drag a node (its new place is
// saved), fold a branch. Edges follow a dragged node with the curve the server draws.
(function () {
  function csrfToken() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; }
    catch (e) { return ""; }
  }

  function box(node) {
    const m = /translate\(([-\d.]+)[ ,]+([-\d.]+)\)/.exec(node.getAttribute("transform"));
    return { x: +m[1], y: +m[2], w: +node.dataset.w, h: +node.dataset.h };
  }

  function f(n) { return n.toFixed(1); }

  function edgePath(layout, p, c) {
    if (layout === "lr") {
      const s = c.x >= p.x ? 1 : -1;
      const px = p.x + s * p.w / 2, cx = c.x - s * c.w / 2, mx = (px + cx) / 2;
      return "M" + f(px) + "," + f(p.y) + " C" + f(mx) + "," + f(p.y) + " " + f(mx) + "," +
        f(c.y) + " " + f(cx) + "," + f(c.y);
    }
    if (layout === "tb") {
      const s = c.y >= p.y ? 1 : -1;
      const py = p.y + s * p.h / 2, cy = c.y - s * c.h / 2, my = (py + cy) / 2;
      return "M" + f(p.x) + "," + f(py) + " C" + f(p.x) + "," + f(my) + " " + f(c.x) + "," +
        f(my) + " " + f(c.x) + "," + f(cy);
    }
    return "M" + f(p.x) + "," + f(p.y) + " L" + f(c.x) + "," + f(c.y);
  }

  function setup(section) {
    const svg = section.querySelector("svg.mindmap");
    if (!svg || svg.dataset.ready) return;
    svg.dataset.ready = "1";
    const layout = svg.dataset.layout;
    let view = svg.getAttribute("viewBox").split(" ").map(Number);
    const show = () => svg.setAttribute("viewBox", view.map(f).join(" "));

    function toSvg(event) {
      const point = svg.createSVGPoint();
      point.x = event.clientX; point.y = event.clientY;
      return point.matrixTransform(svg.getScreenCTM().inverse());
    }

    function nodeById(id) { return svg.querySelector('.mm-node[data-id="' + id + '"]'); }

    function redrawEdges(id) {
      svg.querySelectorAll('.mm-edge[data-from="' + id + '"], .mm-edge[data-to="' + id + '"]')
        .forEach(function (edge) {
          edge.setAttribute("d", edgePath(layout, box(nodeById(edge.dataset.from)),
                                          box(nodeById(edge.dataset.to))));
        });
    }

    function zoom(factor, centre) {
      const c = centre || { x: view[0] + view[2] / 2, y: view[1] + view[3] / 2 };
      view = [c.x - (c.x - view[0]) * factor, c.y - (c.y - view[1]) * factor,
              view[2] * factor, view[3] * factor];
      show();
    }

    let drag = null;
    svg.addEventListener("pointerdown", function (event) {
      if (event.button !== 0 || event.target.closest(".mm-toggle")) return;
      const node = event.target.closest(".mm-node");
      const start = toSvg(event);
      if (node) {
        const b = box(node);
        drag = { node: node, dx: start.x - b.x, dy: start.y - b.y, moved: false };
      } else {
        drag = { pan: true, x: event.clientX, y: event.clientY, view: view.slice() };
        svg.classList.add("panning");
      }
      svg.setPointerCapture(event.pointerId);
    });

    svg.addEventListener("pointermove", function (event) {
      if (!drag) return;
      if (drag.pan) {
        const scale = drag.view[2] / svg.clientWidth;
        view = [drag.view[0] - (event.clientX - drag.x) * scale,
                drag.view[1] - (event.clientY - drag.y) * scale, drag.view[2], drag.view[3]];
        show();
        return;
      }
      const p = toSvg(event);
      drag.x = p.x - drag.dx; drag.y = p.y - drag.dy; drag.moved = true;
      drag.node.setAttribute("transform", "translate(" + f(drag.x) + " " + f(drag.y) + ")");
      redrawEdges(drag.node.dataset.id);
    });

    function finish() {
      if (drag && drag.node && drag.moved) {
        const body = new URLSearchParams({ node: drag.node.dataset.id, layout: layout,
                                           x: f(drag.x), y: f(drag.y) });
        fetch(section.dataset.moveUrl, { method: "POST", body: body,
                                         headers: { "X-CSRFToken": csrfToken() } })
          .then(function (response) { if (response.ok) svg.dataset.saved = body.get("node"); });
      }
      drag = null;
      svg.classList.remove("panning");
    }
    svg.addEventListener("pointerup", finish);
    svg.addEventListener("pointercancel", finish);

    svg.addEventListener("wheel", function (event) {
      event.preventDefault();
      zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, toSvg(event));
    }, { passive: false });

    svg.addEventListener("click", function (event) {
      const toggle = event.target.closest(".mm-toggle");
      if (!toggle) return;
      htmx.ajax("POST", section.dataset.toggleUrl, {
        target: "#mindmap-canvas", swap: "outerHTML",
        values: { node: toggle.dataset.toggle }, headers: { "X-CSRFToken": csrfToken() },
      });
    });

    section.querySelectorAll("[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        const how = button.dataset.zoom;
        if (how === "fit") { view = svg.dataset.home.split(" ").map(Number); show(); }
        else zoom(how === "in" ? 1 / 1.25 : 1.25);
      });
    });
  }

  function init() { document.querySelectorAll("#mindmap-canvas").forEach(setup); }
  document.addEventListener("DOMContentLoaded", init);
  document.addEventListener("htmx:load", init);
})();
