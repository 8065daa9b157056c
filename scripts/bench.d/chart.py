"""Hand-written SVG bar chart of speedups over O3 for scripts/bench (standard library only)."""

import math
from xml.sax.saxutils import escape

COLORS = {"polly": "#4c72b0", "polyrust": "#dd8452", "gcc-graphite": "#55a868"}
SPARE_COLORS = ["#8172b3", "#c44e52", "#937860"]
MARKS = {"WRONG": "W", "FAIL": "F", "BUILD-FAIL": "B", "ERROR": "E"}
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
CHAR_W = 0.6  # average glyph width per pixel of font size, for layout estimates


def _num(x):
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _text(x, y, s, size=12, anchor="start", weight="normal", fill="#222", rotate=None,
          title=None):
    tr = f' transform="rotate({rotate} {_num(x)} {_num(y)})"' if rotate is not None else ""
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (f'<text x="{_num(x)}" y="{_num(y)}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}"{tr}>{tip}{escape(s)}</text>')


def _tick_label(v):
    return f"{v:g}x"


def speedup_svg(bars, configs, geomeans, subtitle, command):
    """bars: [(kernel, {config: (speedup or None, status)})]; configs: the bar order;
    geomeans: {config: geomean speedup or None}. Returns the SVG text."""
    colors = {}
    for i, cn in enumerate(configs):
        colors[cn] = COLORS.get(cn, SPARE_COLORS[i % len(SPARE_COLORS)])
    groups = list(bars)
    if configs:
        groups.append(("geomean", {cn: (geomeans.get(cn), "ok") for cn in configs}))

    left, right, top, plot_h = 78, 96, 124, 420
    title = "Speedup over clang -O3 per kernel (log scale; above 1 = faster than O3)"
    note = ("bar labels: speedups more than 5% away from 1;  W wrong output,  F run failed,  "
            "B build failed,  E O3 failed (no bar)")
    legend_w = sum(20 + len(cn) * 13 * CHAR_W + 26 for cn in configs)
    text_w = max(len(title) * 18 * CHAR_W, len(subtitle) * 12 * CHAR_W,
                 len(note) * 11 * CHAR_W, len(command) * 11 * CHAR_W, legend_w)
    # bars 12 px wide, wider (up to 28 px) when few kernels leave room under the title
    nconf = max(1, len(configs))
    group_gap = 16
    room = (text_w - right - group_gap * (len(groups) + 1)) / (len(groups) * nconf)
    bw = int(max(12, min(28, room)))
    group_w = nconf * bw + group_gap
    label_size = 12
    longest = max([len(g[0]) for g in groups] + [8])
    label_h = longest * label_size * CHAR_W * math.sqrt(0.5) + 24
    plot_w = max(360, len(groups) * group_w + group_gap)
    width = int(max(left + plot_w + right, left + text_w + 20))
    height = int(top + plot_h + label_h + 40)

    values = [s for _, per in groups for s, st in per.values() if s is not None and s > 0]
    lo = min(values + [1.0]) / 1.35
    hi = max(values + [1.0]) * 1.35
    lo_p = min(-1, math.floor(math.log2(lo)))
    hi_p = max(1, math.ceil(math.log2(hi)))

    def y(v):
        return top + (hi_p - math.log2(v)) / (hi_p - lo_p) * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="{FONT}">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
           _text(left, 28, title, size=18, weight="bold"),
           _text(left, 50, subtitle, size=12, fill="#555")]

    # legend
    lx = left
    for cn in configs:
        out.append(f'<rect x="{lx}" y="64" width="14" height="14" fill="{colors[cn]}"/>')
        out.append(_text(lx + 20, 76, cn, size=13))
        lx += 20 + len(cn) * 13 * CHAR_W + 26
    out.append(_text(left, 100, note, size=11, fill="#555"))

    # grid and axis
    x0, x1 = left, left + plot_w
    minor = [0.6, 0.7, 0.8, 0.9, 1.1, 1.25, 1.5, 1.75] if hi_p - lo_p <= 3 else []
    for v in minor:
        if 2.0 ** lo_p < v < 2.0 ** hi_p:
            out.append(f'<line x1="{x0}" x2="{x1}" y1="{_num(y(v))}" y2="{_num(y(v))}" '
                       f'stroke="#eee" stroke-width="1"/>')
            out.append(_text(x0 - 6, y(v) + 4, _tick_label(v), size=10, anchor="end",
                             fill="#999"))
    for p in range(lo_p, hi_p + 1):
        v = 2.0 ** p
        out.append(f'<line x1="{x0}" x2="{x1}" y1="{_num(y(v))}" y2="{_num(y(v))}" '
                   f'stroke="#ccc" stroke-width="1"/>')
        out.append(_text(x0 - 6, y(v) + 4, _tick_label(v), size=12, anchor="end"))
    out.append(f'<line x1="{x0}" x2="{x1}" y1="{_num(y(0.95))}" y2="{_num(y(0.95))}" '
               f'stroke="#c44e52" stroke-width="1" stroke-dasharray="4 3"/>')
    out.append(_text(x1 + 6, y(0.95) + 11, "0.95x (slow)", size=11, fill="#c44e52"))
    out.append(f'<line x1="{x0}" x2="{x0}" y1="{top}" y2="{top + plot_h}" stroke="#444"/>')
    out.append(_text(22, top + plot_h / 2, "speedup over O3", size=13, anchor="middle",
                     rotate=-90))

    # bars
    base_y = y(1.0)
    for gi, (name, per) in enumerate(groups):
        gx = x0 + group_gap + gi * group_w
        is_geo = name == "geomean" and gi == len(groups) - 1 and configs
        if is_geo:
            sx = gx - group_gap / 2
            out.append(f'<line x1="{_num(sx)}" x2="{_num(sx)}" y1="{top}" '
                       f'y2="{top + plot_h}" stroke="#888" stroke-dasharray="3 3"/>')
        for ci, cn in enumerate(configs):
            s, status = per.get(cn, (None, "ok"))
            bx = gx + ci * bw
            cx = bx + (bw - 1) / 2
            if s is None or s <= 0:
                mark = MARKS.get(status)
                if mark:
                    out.append(_text(cx, base_y - 3, mark, size=11, anchor="middle",
                                     weight="bold", fill="#c00",
                                     title=f"{name} {cn}: {status}"))
                continue
            ys = y(s)
            top_y, h = min(ys, base_y), abs(ys - base_y)
            out.append(f'<rect x="{_num(bx)}" y="{_num(top_y)}" width="{bw - 1}" '
                       f'height="{_num(max(h, 0.8))}" fill="{colors[cn]}">'
                       f'<title>{escape(name)} {escape(cn)}: {s:.3f}x</title></rect>')
            if is_geo or abs(s - 1) > 0.05:
                label = f"{s:.2f}"
                if s >= 1:
                    out.append(_text(cx + 3.5, ys - 3, label, size=9, rotate=-90))
                else:
                    out.append(_text(cx + 3.5, ys + 3, label, size=9, anchor="end",
                                     rotate=-90))
        lab_x = gx + nconf * bw / 2
        lab_y = top + plot_h + 14
        out.append(_text(lab_x, lab_y, name, size=label_size, anchor="end",
                         weight="bold" if is_geo else "normal", rotate=-45))

    # the 1.0 line last, over the bars
    out.append(f'<line x1="{x0}" x2="{x1}" y1="{_num(base_y)}" y2="{_num(base_y)}" '
               f'stroke="black" stroke-width="1.5"/>')
    out.append(_text(x1 + 6, base_y - 3, "1.0 = O3", size=12, weight="bold"))
    out.append(_text(left, height - 12, command, size=11, fill="#777"))
    out.append("</svg>")
    return "\n".join(out) + "\n"
