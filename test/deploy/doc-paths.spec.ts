import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * Every repository path the docs name exists: README.md, CHANGELOG.md, docs/**\/*.md (the spec's
 * copy included) and the other READMEs of the repository. A path is what an inline code span, a
 * markdown link or running text names that starts with a top-level directory of the repository (apps/, libs/,
 * tools/, test/, docs/, k8s/, examples/, docker/, .ci/) or is one of its root files; a bare file
 * name with a code or configuration extension (`operations.ts`) must be some tracked file's name.
 * Placeholders and globs (`<service>`, `*`, `…`, `{a,b}`, `$VAR`) are not paths and are skipped;
 * fenced code blocks (commands, output) are not read. Paths are checked against the files git
 * tracks, so what a clean clone has, not what a build or `npm start` writes (dist/, .data/).
 */

const ROOT = join(__dirname, '..', '..');

const TOP_DIRS = ['apps', 'libs', 'tools', 'test', 'docs', 'k8s', 'examples', 'docker', '.ci'];
const ROOT_FILES = [
  'Dockerfile', 'docker-compose.yml', 'package.json', 'package-lock.json', 'tsconfig.json', 'jest.config.js', 'nest-cli.json',
  'README.md', 'CHANGELOG.md', '.swcrc', '.gitignore', '.dockerignore',
];
/** A bare file name of these kinds names a file of ours. */
const FILE_NAME = /^[A-Za-z0-9_][\w.-]*\.(ts|js|mjs|cjs|json|ya?ml|sh|md)$/;
const PLACEHOLDER = /[<>*…{}$|]|\.\.\.|\s/;
const PROSE_PATH = new RegExp(`(?<![\\w./<-])((?:${TOP_DIRS.map((d) => d.replace('.', '\\.')).join('|')})/[\\w./<>*…-]*)`, 'g');

export interface NamedPath {
  /** As written (after trimming punctuation, a `:line` suffix and a `#anchor`). */
  path: string;
  line: number;
}

/** Markdown without its fenced code blocks (lines kept, so line numbers stay right). */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const open = /^\s*(```+|~~~+)/.exec(line);
    if (fence === null && open) {
      fence = open[1];
      return '';
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return '';
    }
    return line;
  });
}

/** A candidate path token, cleaned, or null when it is not one. */
function cleanToken(raw: string): string | null {
  let token = raw.trim().replace(/^\.\//, '');
  token = token.replace(/#.*$/, '').replace(/:\d+(-\d+)?$/, '').replace(/[.,;:)]+$/, '');
  if (!token || PLACEHOLDER.test(token) || /^[a-z]+:/i.test(token)) return null;
  return token;
}

function isRepoPath(token: string): boolean {
  const top = token.split('/')[0];
  return (token.includes('/') && TOP_DIRS.includes(top)) || ROOT_FILES.includes(token) || (!token.includes('/') && FILE_NAME.test(token));
}

/** The repository paths a markdown file names: in inline code spans and in links. */
export function namedPaths(markdown: string): { code: NamedPath[]; links: NamedPath[] } {
  const code: NamedPath[] = [];
  const links: NamedPath[] = [];
  withoutFences(markdown).forEach((text, i) => {
    const line = i + 1;
    for (const m of text.matchAll(/(`+)([^`]+?)\1/g)) {
      for (const word of m[2].split(/\s+/)) {
        // a word of a command (`npm run -s migrate -- <service>`), a path followed by its arguments (`k8s/deploy.sh <service> <env>`)
        const token = cleanToken(word);
        if (token && isRepoPath(token)) code.push({ path: token, line });
      }
    }
    const prose = text.replace(/(`+)[^`]+?\1/g, ' ');
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const token = cleanToken(m[1]);
      if (token && !/^(https?|mailto):/.test(m[1]) && !m[1].startsWith('#')) links.push({ path: token, line });
    }
    // a path in running text ("see docs/operations.md"), outside links and URLs
    for (const m of prose.replace(/\]\([^)]*\)|\b[a-z]+:\/\/\S+/gi, ' ').matchAll(PROSE_PATH)) {
      const token = cleanToken(m[1]);
      if (token && isRepoPath(token)) code.push({ path: token, line });
    }
  });
  return { code, links };
}

/** What git tracks: its files, their directories, their names. */
export interface RepoFiles {
  files: Set<string>;
  dirs: Set<string>;
  names: Set<string>;
}

export function repoFiles(paths: string[]): RepoFiles {
  const files = new Set(paths);
  const dirs = new Set<string>();
  const names = new Set<string>();
  for (const path of paths) {
    names.add(posix.basename(path));
    for (let dir = posix.dirname(path); dir !== '.'; dir = posix.dirname(dir)) dirs.add(dir);
  }
  return { files, dirs, names };
}

function exists(path: string, repo: RepoFiles): boolean {
  const clean = posix.normalize(path).replace(/\/$/, '');
  return repo.files.has(clean) || repo.dirs.has(clean);
}

/**
 * The paths a document (at `docPath`, relative to the root) names that do not exist: a code span
 * is relative to the repository's root (or, failing that, to the document's directory); a link
 * to the document's directory, as a markdown viewer resolves it; a bare file name is a tracked
 * file's name anywhere.
 */
export function brokenPaths(markdown: string, docPath: string, repo: RepoFiles): string[] {
  const here = posix.dirname(docPath);
  const { code, links } = namedPaths(markdown);
  const broken: string[] = [];
  for (const { path, line } of code) {
    const ok = path.includes('/') || ROOT_FILES.includes(path) ? exists(path, repo) || exists(posix.join(here, path), repo) : repo.names.has(path);
    if (!ok) broken.push(`${docPath}:${line}: \`${path}\``);
  }
  for (const { path, line } of links) {
    if (!exists(posix.join(here, path), repo)) broken.push(`${docPath}:${line}: (${path})`);
  }
  return broken;
}

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const repo = repoFiles(tracked);
const documents = tracked.filter(
  (path) => path === 'README.md' || path === 'CHANGELOG.md' || (path.startsWith('docs/') && path.endsWith('.md')) || posix.basename(path) === 'README.md',
);

describe('paths named in the docs', () => {
  it('reads the README, the changelog and every markdown file under docs/ (the spec too)', () => {
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/deployment.md', 'docs/spec/lead-intelligence-api.md']));
  });

  it.each(documents)('%s names only paths that exist', (doc) => {
    expect(brokenPaths(readFileSync(join(ROOT, doc), 'utf8'), doc, repo)).toEqual([]);
  });

  it('finds a missing path in code spans, links and running text, skips placeholders, globs, URLs and fenced blocks', () => {
    const fake = repoFiles(['apps/gateway/src/openapi/operations.ts', 'docs/decisions.md', 'k8s/deploy.sh', 'README.md', 'Dockerfile']);
    const markdown = [
      'See `apps/gateway/src/openapi/operations.ts` and `schemas.ts`, `k8s/overlays/prod/scaling.yaml`,',
      '`k8s/deploy.sh <service> <env>`, `apps/<service>/src/migrations/`, `k8s/services/*/hpa.yaml`, `apps/…`,',
      '[decisions](decisions.md), [gone](missing.md#x), [the site](https://example.com/a.md), `operations.ts:12`, `Dockerfile`.',
      '```bash',
      'cat apps/nothing/here.ts `k8s/nope.yaml`',
      '```',
      '`dist/apps/admin/src/main.js`, `.data/nats/url`, `npm run -s admin -- --help`, `k8s/`, `docs/nope/`',
      'In running text: docs/decisions.md, docs/gone.md; apps/<service>/src and http://host/docs/none.md are not checked.',
    ].join('\n');
    expect(brokenPaths(markdown, 'docs/x.md', fake)).toEqual([
      'docs/x.md:1: `schemas.ts`',
      'docs/x.md:1: `k8s/overlays/prod/scaling.yaml`',
      'docs/x.md:7: `docs/nope/`',
      'docs/x.md:8: `docs/gone.md`',
      'docs/x.md:3: (missing.md)',
    ]);
  });
});
