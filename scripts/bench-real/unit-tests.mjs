// Page unit tests in the olmOCR-Bench format (one JSON object a line: pdf, page, id, type and the type's fields),
// scored on Markdown. Written for this project from the format's published rules; `ocr bench parse --real` checks
// that it agrees with ../shared/tools/olmocr-score.mjs when that tool is present.
//
//   present / absent  text (max_diffs, case_sensitive, first_n, last_n): fuzzy containment — some window of the
//                     output as long as the text shares >= |text| - max_diffs characters with it in order (LCS)
//   order             before, after (max_diffs): `before` starts before some occurrence of `after` (Levenshtein
//                     substring search within max_diffs)
//   table             cell (up, down, left, right, top_heading, left_heading, max_diffs): a Markdown or HTML table
//                     holds the cell (similarity >= max(0.5, 1 - max_diffs/|cell|)) with those neighbours
//   math              math: a delimited equation ($..$, $$..$$, \(..\), \[..\]) holds the LaTeX, compared after
//                     canonicalisation (spacing, \left/\right, braces around one token after ^ or _ ignored)
//   baseline          output holds letters or digits and does not end in > max_repeats (30) repeats of an n-gram

const QUOTES = [
  [/[\u2018\u2019\u201a]/g, "'"],
  [/[\u201c\u201d\u201e]/g, '"'],
  [/[\u2010-\u2014\u2212]/g, "-"],
  [/\uff3f/g, "_"],
  [/\u00b5/g, "\u03bc"],
];

/** Output and test text alike: emphasis markers and <br> dropped, whitespace runs → one space, NFC, ASCII quotes/dashes. */
export function normalise(s) {
  let t = String(s ?? "")
    .replace(/<br\s*\/?>/g, " ")
    .replace(/\*\*([^\n]*?)\*\*/g, "$1")
    .replace(/__([^\n]*?)__/g, "$1")
    .replace(/<\/?[bi]>/g, "")
    .replace(/(\*|_)([^\n]*?)\1/g, "$2")
    .replace(/\s+/gu, " ")
    .normalize("NFC");
  for (const [re, to] of QUOTES) t = t.replace(re, to);
  return t;
}

const chars = (s) => Array.from(s);

function lcs(a, b) {
  const m = b.length;
  let prev = new Uint16Array(m + 1);
  let cur = new Uint16Array(m + 1);
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < m; j++) cur[j + 1] = a[i] === b[j] ? prev[j] + 1 : Math.max(prev[j + 1], cur[j]);
    [prev, cur] = [cur, prev];
  }
  return prev[m];
}

/** Indel similarity of two strings (2·LCS / total length), 1 for two empty strings. */
export function similarity(a, b) {
  const x = chars(a);
  const y = chars(b);
  if (!x.length && !y.length) return 1;
  if (!x.length || !y.length) return 0;
  return (2 * lcs(x, y)) / (x.length + y.length);
}

/**
 * True when some window of `text` (|query| characters long, or shorter at the text's ends) shares at least
 * |query| - k characters with `query` in order: a window similarity of >= 1 - k/|query|.
 */
export function containsFuzzy(query, text, k) {
  const q = chars(query);
  const t = chars(text);
  if (!q.length) return true;
  if (k === 0) return text.includes(query);
  const need = q.length - k;
  if (t.length < need) return false;
  const wanted = new Map();
  for (const c of q) wanted.set(c, (wanted.get(c) ?? 0) + 1);
  // sliding character-count bound: the LCS of a window cannot exceed its multiset overlap with the query
  const have = new Map();
  let overlap = 0;
  const add = (c, d) => {
    const before = have.get(c) ?? 0;
    const w = wanted.get(c) ?? 0;
    have.set(c, before + d);
    overlap += Math.min(before + d, w) - Math.min(before, w);
  };
  const L = q.length;
  for (let j = 0; j < Math.min(L, t.length); j++) add(t[j], 1);
  for (let i = 0; i + L <= t.length || i === 0; i++) {
    if (i > 0) {
      add(t[i - 1], -1);
      add(t[i + L - 1], 1);
    }
    if (overlap >= need && lcs(q, t.slice(i, i + L)) >= need) return true;
    if (i + L >= t.length) break;
  }
  // windows cut by the text's ends (as long as the query's usable part)
  for (let n = need; n < L; n++) {
    if (lcs(q, t.slice(0, n)) >= need || lcs(q, t.slice(t.length - n)) >= need) return true;
  }
  return false;
}

/** Start offsets (first and last) of substrings of `text` within Levenshtein distance k of `pattern`, or null. */
export function nearStarts(pattern, text, k) {
  const p = chars(pattern).reverse();
  const t = chars(text).reverse();
  const m = p.length;
  let col = Int32Array.from({ length: m + 1 }, (_, i) => i);
  let first = null;
  let last = null;
  for (let j = 1; j <= t.length; j++) {
    const next = new Int32Array(m + 1);
    for (let i = 1; i <= m; i++) next[i] = Math.min(col[i - 1] + (p[i - 1] === t[j - 1] ? 0 : 1), col[i] + 1, next[i - 1] + 1);
    col = next;
    if (col[m] <= k) {
      const start = t.length - j;
      first = first === null ? start : Math.min(first, start);
      last = last === null ? start : Math.max(last, start);
    }
  }
  return first === null ? null : { first, last };
}

// ---------------------------------------------------------------- tables

/** Rows of cells ({ text, rowspan, colspan, heading }) → grid of cell ids with the cells' texts. */
function grid(rows) {
  const cells = [];
  const occupied = [];
  rows.forEach((row, r) => {
    occupied[r] ??= [];
    let c = 0;
    for (const cell of row) {
      while (occupied[r][c] !== undefined) c++;
      const id = cells.length;
      cells.push({ ...cell, r, c });
      for (let dr = 0; dr < cell.rowspan; dr++) {
        occupied[r + dr] ??= [];
        for (let dc = 0; dc < cell.colspan; dc++) occupied[r + dr][c + dc] = id;
      }
      c += cell.colspan;
    }
  });
  return { cells, occupied };
}

function neighbours(table, id) {
  const { cells, occupied } = table;
  const { r, c, rowspan, colspan } = cells[id];
  const out = { up: new Set(), down: new Set(), left: new Set(), right: new Set(), top_heading: new Set(), left_heading: new Set() };
  const walk = (set, r0, c0, dr, dc) => {
    for (let y = r0 + dr, x = c0 + dc; y >= 0 && y < occupied.length && x >= 0; y += dr, x += dc) {
      const n = occupied[y]?.[x];
      if (x >= (occupied[y]?.length ?? 0) && dc > 0) break;
      if (n !== undefined && n !== id) {
        set.add(n);
        return;
      }
    }
  };
  for (let x = c; x < c + colspan; x++) {
    walk(out.up, r, x, -1, 0);
    walk(out.down, r + rowspan - 1, x, 1, 0);
    const top = occupied[0]?.[x];
    if (top !== undefined && top !== id) out.top_heading.add(top);
  }
  for (let y = r; y < r + rowspan; y++) {
    walk(out.left, y, c, 0, -1);
    walk(out.right, y, c + colspan - 1, 0, 1);
    const first = occupied[y]?.[0];
    if (first !== undefined && first !== id) out.left_heading.add(first);
  }
  return out;
}

/** Markdown pipe tables in `md` (a run of lines holding '|'; separator rows dropped). */
export function markdownTables(md) {
  const tables = [];
  let block = [];
  const flush = () => {
    if (block.length >= 2) {
      const rows = block
        .filter((l) => !/^[\s|:-]+$/.test(l))
        .map((l) => {
          let cells = l.split("|").map((x) => x.trim());
          if (cells[0] === "") cells = cells.slice(1);
          if (cells.at(-1) === "") cells = cells.slice(0, -1);
          return cells.map((text) => ({ text, rowspan: 1, colspan: 1 }));
        })
        .filter((row) => row.length);
      if (rows.length) tables.push(grid(rows));
    }
    block = [];
  };
  for (const line of md.split("\n")) {
    if (line.includes("|")) block.push(line);
    else flush();
  }
  flush();
  return tables;
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
/** `s` with its HTML character references (numeric, and the few named ones of ENTITIES) as the characters. */
export const decode = (s) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) =>
    e[0] === "#"
      ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : (ENTITIES[e.toLowerCase()] ?? m),
  );

/** HTML <table>s in `html`: rows of <td>/<th> with rowspan/colspan (nested tables are read as their own tables). */
export function htmlTables(html) {
  const tables = [];
  for (const m of html.matchAll(/<table\b[^>]*>([\s\S]*?)<\/table>/gi)) {
    const rows = [];
    for (const tr of m[1].matchAll(/<tr\b[^>]*>([\s\S]*?)(?=<tr\b|<\/tbody>|<\/thead>|$)/gi)) {
      const row = [];
      for (const td of tr[1].matchAll(/<(td|th)\b([^>]*)>([\s\S]*?)(?=<td\b|<th\b|<\/tr>|$)/gi)) {
        const attr = (name) => Math.max(1, Number(new RegExp(`${name}\\s*=\\s*["']?(\\d+)`, "i").exec(td[2])?.[1] ?? 1) || 1);
        const text = decode(td[3].replace(/<br\s*\/?>/gi, " ").replace(/<[^>]+>/g, "")).trim();
        row.push({ text, rowspan: attr("rowspan"), colspan: attr("colspan") });
      }
      if (row.length) rows.push(row);
    }
    if (rows.length) tables.push(grid(rows));
  }
  return tables;
}

// ---------------------------------------------------------------- math

export function canonicalTex(s) {
  return (
    s
      .replace(/\\(?:left|right|big|Big|bigg|Bigg|bigl|bigr|Bigl|Bigr|displaystyle|textstyle)(?![a-zA-Z])/g, "")
      .replace(/\\(?:dfrac|tfrac)(?![a-zA-Z])/g, "\\frac")
      .replace(/\\(?:operatorname|text|textrm|rm)(?![a-zA-Z])/g, "\\mathrm")
      .replace(/\\(?:[,;:! ]|quad(?![a-zA-Z])|qquad(?![a-zA-Z]))/g, "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 marks a kept space while the others go
      .replace(/(\\[a-zA-Z]+)\s+(?=[a-zA-Z])/g, "$1\u0001")
      .replace(/\s+/g, "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 is the kept-space mark set above
      .replace(/([_^])\{(\\[a-zA-Z]+|[^{}\\\u0001])\}/g, "$1$2")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 is the kept-space mark set above
      .replace(/\u0001/g, " ")
  );
}

export function equations(md) {
  const out = [];
  let rest = md;
  for (const re of [/\$\$([\s\S]+?)\$\$/g, /\\\[([\s\S]+?)\\\]/g, /\\\(([\s\S]+?)\\\)/g, /\$([^$]+?)\$/g]) {
    for (const m of rest.matchAll(re)) out.push(m[1].trim());
    rest = rest.replace(re, " ");
  }
  return out;
}

// ---------------------------------------------------------------- tests

const clip = (s, n = 50) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

function presence(t, md) {
  let q = normalise(t.text);
  let out = normalise(md);
  if (t.case_sensitive === false) {
    q = q.toLowerCase();
    out = out.toLowerCase();
  }
  if (t.first_n && t.last_n) out = out.slice(0, t.first_n) + out.slice(-t.last_n);
  else if (t.first_n) out = out.slice(0, t.first_n);
  else if (t.last_n) out = out.slice(-t.last_n);
  const found = containsFuzzy(q, out, t.max_diffs ?? 0);
  if (t.type === "present") return found ? [true, ""] : [false, `'${clip(q)}' not found`];
  return found ? [false, `'${clip(q)}' found but should be absent`] : [true, ""];
}

function order(t, md) {
  const out = normalise(md);
  const k = t.max_diffs ?? 0;
  const b = nearStarts(normalise(t.before), out, k);
  if (!b) return [false, `before '${clip(normalise(t.before))}' not found`];
  const a = nearStarts(normalise(t.after), out, k);
  if (!a) return [false, `after '${clip(normalise(t.after))}' not found`];
  return b.first < a.last ? [true, ""] : [false, `'${clip(normalise(t.before), 30)}' comes after '${clip(normalise(t.after), 30)}'`];
}

function table(t, md) {
  const k = t.max_diffs ?? 0;
  const ok = (want, got) => similarity(want, got) >= Math.max(0.5, 1 - k / (chars(want).length || 1)) - 1e-9;
  const tables = [...markdownTables(md), ...htmlTables(md)];
  if (!tables.length) return [false, "no table in the output"];
  const cell = normalise(t.cell);
  let seen = false;
  for (const tb of tables) {
    for (let id = 0; id < tb.cells.length; id++) {
      if (!ok(cell, normalise(tb.cells[id].text))) continue;
      seen = true;
      const nb = neighbours(tb, id);
      const good = ["up", "down", "left", "right", "top_heading", "left_heading"].every((key) => {
        if (!t[key]) return true;
        return [...nb[key]].some((n) => ok(normalise(t[key]), normalise(tb.cells[n].text)));
      });
      if (good) return [true, ""];
    }
  }
  return [false, seen ? `cell '${clip(cell, 30)}' found without its neighbours` : `no cell '${clip(cell, 30)}'`];
}

function math(t, md) {
  const want = canonicalTex(t.math);
  const eqs = equations(md);
  if (eqs.some((e) => e === t.math || canonicalTex(e).includes(want))) return [true, ""];
  return [false, eqs.length ? `'${clip(t.math)}' not among ${eqs.length} equations` : "no delimited math in the output"];
}

function baseline(t, md) {
  if (!/[\p{L}\p{N}]/u.test(md)) return [false, "no letters or digits"];
  const s = chars(md.replace(/\s+/g, " "));
  const max = t.max_repeats ?? 30;
  for (let n = 1; n <= 5; n++) {
    const tail = s.slice(-n).join("");
    let reps = 0;
    for (let i = s.length - n; i >= 0 && s.slice(i, i + n).join("") === tail; i -= n) reps++;
    if (reps > max) return [false, `ends in ${reps} repeats of '${tail}'`];
  }
  return [true, ""];
}

const RUN = { present: presence, absent: presence, order, table, math, baseline };
export const TEST_TYPES = Object.keys(RUN);

/** [passed, reason] of one test on one page's Markdown. */
export function runTest(t, md) {
  const f = RUN[t.type];
  if (!f) return [false, `unknown test type '${t.type}'`];
  return f(t, md);
}

/** Checks a test line's fields; returns a problem or null. */
export function testProblem(t) {
  if (!t || typeof t !== "object") return "not an object";
  for (const f of ["pdf", "id", "type"]) if (typeof t[f] !== "string" || !t[f]) return `missing '${f}'`;
  if (!Number.isInteger(t.page) || t.page < 1) return "missing 'page'";
  if (!RUN[t.type]) return `unknown type '${t.type}'`;
  const need = { present: ["text"], absent: ["text"], order: ["before", "after"], table: ["cell"], math: ["math"], baseline: [] }[t.type];
  for (const f of need) if (typeof t[f] !== "string" || !t[f].trim()) return `type ${t.type} needs '${f}'`;
  return null;
}
