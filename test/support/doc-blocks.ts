/**
 * Runnable documentation: the shell blocks of a markdown file with the output each one shows,
 * and a comparison of that output with a real run by shape (IDs, times, secrets and ports differ
 * between runs; object kinds, states, types and structure do not).
 */

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** The `<!-- quickstart-test: … -->` note just above the block, when there is one. */
  note?: string;
  /** The fenced block right after it (only blank lines between): what it prints. */
  expected?: { lang: 'json' | 'text'; text: string; line: number };
}

/** The `bash` blocks of a markdown document, in order, each with the output block that follows it. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const fences: { lang: string; line: number; text: string; before: string[] }[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && !/^```\s*$/.test(lines[i]); i += 1) body.push(lines[i]);
    fences.push({ lang: open[1], line: start + 1, text: body.join('\n'), before: lines.slice(0, start) });
  }
  const blocks: ShellBlock[] = [];
  fences.forEach((fence, index) => {
    if (fence.lang !== 'bash') return;
    const above = fence.before.filter((l) => l.trim() !== '').pop() ?? '';
    const note = /^<!--\s*quickstart-test:\s*(.*?)\s*-->$/.exec(above)?.[1];
    const next = fences[index + 1];
    // the lines after this block's closing fence and before the next one's opening fence
    const between = next ? lines.slice(fence.line + fence.text.split('\n').length + 1, next.line - 1) : [];
    const adjacent = next && (next.lang === 'json' || next.lang === 'text') && between.every((l) => l.trim() === '');
    blocks.push({
      line: fence.line, code: fence.text, ...(note ? { note } : {}),
      ...(adjacent ? { expected: { lang: next.lang as 'json' | 'text', text: next.text, line: next.line } } : {}),
    });
  });
  return blocks;
}

const ID = /^([a-z]+)_[A-Za-z0-9]{6,}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** A word of the API's vocabulary (an object kind, a state, an event type): compared as is. */
const WORD = /^[a-z*][a-z_.*]*$/;

/**
 * Where `actual` differs from `expected` by shape: an ID keeps its prefix, a time is a time, a
 * word of the API (`lead`, `revealed`, `lead.created`) is the same word, other strings and
 * numbers keep their type, booleans and null are equal, arrays have the same length with matching
 * items, and an object has every field the expected one shows (it may have more).
 */
export function shapeDifferences(expected: unknown, actual: unknown, at = '$'): string[] {
  if (expected === null || typeof expected === 'boolean') return expected === actual ? [] : [`${at}: ${JSON.stringify(actual)} where the docs show ${JSON.stringify(expected)}`];
  if (typeof expected === 'number') return typeof actual === 'number' ? [] : [`${at}: ${JSON.stringify(actual)} where the docs show a number`];
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') return [`${at}: ${JSON.stringify(actual)} where the docs show a string`];
    const id = ID.exec(expected);
    if (id && !WORD.test(expected)) return actual.startsWith(`${id[1]}_`) ? [] : [`${at}: ${JSON.stringify(actual)} where the docs show an ID ${id[1]}_…`];
    // a placeholder of an ID (`ws_…`), as the README writes them
    const placeholder = /^([a-z]+(?:_test|_live)?)_…$/.exec(expected);
    if (placeholder) return actual.startsWith(`${placeholder[1]}_`) ? [] : [`${at}: ${JSON.stringify(actual)} where the docs show ${expected}`];
    if (expected.startsWith('whsec_')) return actual.startsWith('whsec_') ? [] : [`${at}: not a whsec_ secret`];
    if (TIME.test(expected)) return TIME.test(actual) ? [] : [`${at}: ${JSON.stringify(actual)} where the docs show a time`];
    if (WORD.test(expected)) return expected === actual ? [] : [`${at}: ${JSON.stringify(actual)} where the docs show ${JSON.stringify(expected)}`];
    return [];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: ${JSON.stringify(actual)} where the docs show an array`];
    if (actual.length !== expected.length) return [`${at}: ${actual.length} items where the docs show ${expected.length}`];
    return expected.flatMap((item, i) => shapeDifferences(item, actual[i], `${at}[${i}]`));
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: ${JSON.stringify(actual)} where the docs show an object`];
    return Object.entries(expected).flatMap(([key, value]) =>
      key in actual ? shapeDifferences(value, (actual as Record<string, unknown>)[key], `${at}.${key}`) : [`${at}.${key}: missing`]);
  }
  return [];
}

/** A line of text output with its IDs and times made generic. */
export function normalizeLine(line: string): string {
  return line
    .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g, '<time>')
    .replace(/\b([a-z]+)_[A-Za-z0-9]{6,}\b/g, (whole, prefix: string) => (WORD.test(whole) ? whole : `${prefix}_…`))
    .trimEnd();
}

/** The expected lines (normalized) that the actual output lacks; the output may have more lines. */
export function missingLines(expected: string, actual: string): string[] {
  const have = actual.split('\n').map(normalizeLine).filter(Boolean);
  const missing: string[] = [];
  for (const line of expected.split('\n').map(normalizeLine).filter(Boolean)) {
    const at = have.indexOf(line);
    if (at < 0) missing.push(line);
    else have.splice(at, 1);
  }
  return missing;
}

/** A command of a shell block, its continuation lines joined, with the `# …` comment after it. */
export interface Command {
  line: string;
  comment?: string;
}

/** The commands of a shell block: one per line, `\` continuations joined, a trailing `# comment` apart. */
export function commandsOf(code: string): Command[] {
  const joined = code.replace(/\\\n\s*/g, ' ').split('\n').filter((l) => l.trim() !== '');
  return joined.map((text) => {
    const hash = /\s#\s(.*)$/.exec(text);
    return hash ? { line: text.slice(0, hash.index).trim(), comment: hash[1].trim() } : { line: text.trim() };
  });
}
