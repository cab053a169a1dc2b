#!/usr/bin/env python3
"""Checks of a jitterlab report for tests/e2e/report.sh (imported by its
Python checks; no third-party modules).

  page(path)     parses the HTML with html.parser and every inline <svg>
                 with xml.etree: tag balance, the tags and attributes used,
                 the text, and per plot (<figure data-plot=NAME>) its lines
  url_problems(p) every place that could load something from outside the
                 file (attributes naming a URL, external tags, CSS url())
  png(path)      width, height and the number of distinct colours of a PNG
                 (8-bit RGB or RGBA, every filter type), decoded with zlib
"""
import html.parser
import re
import struct
import xml.etree.ElementTree as ET
import zlib

VOID = {"meta", "br", "img", "hr", "input", "link", "source", "wbr", "col", "area", "base"}
# what the report may use; anything else came from a document or is a bug
ALLOWED = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p",
           "table", "tr", "th", "td", "span", "nav", "ul", "li", "a", "section", "figure",
           "figcaption", "svg", "rect", "line", "text", "path", "circle", "details",
           "summary", "code", "b", "br", "div"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags, self.attrs, self.text = [], [], [], [], []
        self.figures = {}  # name -> list of {"paths": [d...], "circles": n}
        self.figure = None
        self.style = ""
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self._start(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self._start(tag, attrs)

    def _start(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        self.attrs.append((tag, attrs))
        if tag == "figure" and "data-plot" in a:
            self.figure = {"name": a["data-plot"], "paths": [], "circles": 0}
            self.figures.setdefault(a["data-plot"], []).append(self.figure)
        elif tag == "path" and self.figure is not None:
            self.figure["paths"].append(a.get("d") or "")
        elif tag == "circle" and self.figure is not None:
            self.figure["circles"] += 1
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "figure":
            self.figure = None
        if tag == "style":
            self.in_style = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else ""))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.in_style:
            self.style += data
        self.text.append(data)


def page(path):
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    p = Page()
    p.feed(raw)
    p.close()
    if p.stack:
        p.errors.append("left open: %s" % p.stack)
    p.raw = raw
    p.alltext = "".join(p.text)
    p.svgs = re.findall(r"<svg\b.*?</svg>", raw, re.S)
    p.svg_errors = []
    for s in p.svgs:
        try:
            ET.fromstring(s)
        except ET.ParseError as e:
            p.svg_errors.append(str(e))
    return p


def path_points(d):
    """The points of an SVG path ("M1 2 L3 4 M5 6")."""
    return len(re.findall(r"[ML]", d or ""))


def url_problems(p):
    out = []
    for tag, attrs in p.attrs:
        for k, v in attrs:
            v = v or ""
            if k in ("href", "src", "xlink:href", "action", "formaction", "srcset", "poster"):
                if not (k == "href" and re.fullmatch(r"#[A-Za-z0-9_-]+", v)):
                    out.append("%s %s=%r" % (tag, k, v))
            if re.search(r"(?i)(https?:|//|javascript:|data:|url\()", v) and k != "xmlns":
                out.append("%s %s=%r" % (tag, k, v))
            if k.startswith("on"):
                out.append("%s %s (an event handler)" % (tag, k))
    for tag in ("script", "link", "img", "iframe", "object", "embed", "image", "use",
                "foreignobject", "base", "audio", "video", "source"):
        if tag in p.tags:
            out.append("<%s>" % tag)
    if re.search(r"(?i)(url\(|@import|https?:)", p.style):
        out.append("style sheet loads something")
    if re.search(r"(?i)https?:", p.raw):
        out.append("http: or https: in the file")
    return out


def png(path):
    """(width, height, distinct colours) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("depth %d colour type %d not handled" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(h):
        off = y * (stride + 1)
        ftype, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ftype == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif ftype == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        if y % 4 == 0 and len(colours) < 100000:
            colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 2))
        prev = line
    return w, h, len(colours)


def format_ns(ns):
    """The report's duration text (src/out/svg_axis.c format_ns)."""
    a = abs(ns)
    if a < 999.5:
        return "%.0f ns" % ns
    for scale, unit in ((1e3, "\u00b5s"), (1e6, "ms"), (1e9, "s")):
        v = a / scale
        dec = 3 if v < 10 else 2 if v < 100 else 1 if v < 1000 else 0
        num = "%.*f" % (dec, v)
        if unit != "s" and float(num) >= 1000:
            continue
        return ("-" if ns < 0 else "") + num + " " + unit


def table_rows(raw, section_id, table_class):
    """The cell texts of the first <table class=table_class> in <section
    id=section_id>, one list per row (the header row included)."""
    import html as h
    m = re.search(r'<section id="%s">(.*?)</section>' % re.escape(section_id), raw, re.S)
    if not m:
        return None
    t = re.search(r'<table class="%s">(.*?)</table>' % re.escape(table_class), m.group(1), re.S)
    if not t:
        return None
    rows = []
    for r in re.findall(r"<tr[^>]*>(.*?)</tr>", t.group(1), re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)
        rows.append([h.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in cells])
    return rows
