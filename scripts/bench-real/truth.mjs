// Truth of dataset pages in the dev set: PubTabNet's HTML and FUNSD's words as reading-order text.

const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** PubTabNet annotation → an HTML table (structure tokens with the cell tokens filled in). */
export function pubtabnetHtml(record) {
  const cells = record.html.cells;
  let k = 0;
  let out = "<table>";
  for (const t of record.html.structure.tokens) {
    if (t === "<td>" || t === ">") {
      out += t;
      // cell tokens carry their own <b>/<i>/<sup> markup; text characters are escaped
      const cell = cells[k++];
      out += (cell?.tokens ?? [])
        .map((x) => (/^<\/?[a-z]+>$/.test(x) ? x : esc(x)))
        .join("")
        .trim();
    } else out += t;
  }
  return out + "</table>";
}

/** FUNSD form → text lines: words grouped into lines by vertical overlap, top to bottom, left to right. */
export function funsdTruth(form) {
  const words = form.form.flatMap((e) => e.words).filter((w) => w.text.trim());
  words.sort((a, b) => a.box[1] - b.box[1] || a.box[0] - b.box[0]);
  const lines = [];
  for (const w of words) {
    const cy = (w.box[1] + w.box[3]) / 2;
    const line = lines.find((l) => cy > l.top && cy < l.bottom);
    if (line) {
      line.words.push(w);
      line.top = Math.min(line.top, w.box[1]);
      line.bottom = Math.max(line.bottom, w.box[3]);
    } else lines.push({ top: w.box[1], bottom: w.box[3], words: [w] });
  }
  lines.sort((a, b) => a.top - b.top);
  return (
    lines
      .map((l) =>
        l.words
          .sort((a, b) => a.box[0] - b.box[0])
          .map((w) => w.text)
          .join(" "),
      )
      .join("\n") + "\n"
  );
}
