/** Thousands separators, independent of the host locale so output is stable in tests and CI. */
export function formatNumber(value: number): string {
  const sign = value < 0 ? '-' : '';
  const digits = String(Math.round(Math.abs(value)));
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const percent = (part / whole) * 100;
  return percent > 0 && percent < 1 ? '<1%' : `${Math.round(percent)}%`;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A horizontal bar of `value / scale × width` cells, with eighth-cell precision. */
export function bar(value: number, scale: number, width: number): string {
  if (scale <= 0 || value <= 0) return '';
  const cells = Math.min(width, (value / scale) * width);
  const full = Math.floor(cells);
  const eighths = Math.round((cells - full) * 8);
  const text = '█'.repeat(full) + (eighths === 8 ? '█' : EIGHTHS[eighths]!);
  // Never draw nothing for a non-zero value: a sliver says "present but small".
  return text === '' ? '▏' : text;
}

/** Renders rows as aligned columns; `align` says which columns are right-aligned. */
export function table(
  rows: readonly (readonly string[])[],
  rightAligned: readonly number[] = [],
): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, displayWidth(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, column) => {
        const padding = ' '.repeat((widths[column] ?? 0) - displayWidth(cell));
        if (column === row.length - 1 && !rightAligned.includes(column)) return cell;
        return rightAligned.includes(column) ? padding + cell : cell + padding;
      })
      .join('  ')
      .trimEnd(),
  );
}

/** Terminal columns of a string: CJK and other wide characters take two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) width += isWide(character.codePointAt(0)!) ? 2 : 1;
  return width;
}

function isWide(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  );
}

/** One line of at most `width` columns: whitespace collapsed, cut with `…`. */
export function preview(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (displayWidth(line) <= width) return line;
  let result = '';
  let used = 0;
  for (const character of line) {
    const characterWidth = isWide(character.codePointAt(0)!) ? 2 : 1;
    if (used + characterWidth > width - 1) break;
    result += character;
    used += characterWidth;
  }
  return `${result}…`;
}

/** `singular` or its plural, for `count` things. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return count === 1 ? singular : pluralForm;
}

/** A size in bytes as people read it: `512 B`, `3.4 KiB`, `12.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** `text` on one line: runs of whitespace, line breaks included, as one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
