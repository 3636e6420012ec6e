#!/usr/bin/env node
/*
 * The npm registry reachable from our machines does not carry every platform build of native
 * packages (for example @swc/core-darwin-arm64), so `npm install` leaves those optional
 * dependencies out of package-lock.json and `npm ci` then refuses the lock as out of sync.
 * This adds a lock entry, with the platform it is for, for each optional dependency the lock
 * lacks; npm ci skips them as foreign platforms without fetching anything.
 * Run after every `npm install` that changes the lock: node tools/lockfile/complete-optional.js
 */
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = [['arm64', 'arm64'], ['aarch64', 'arm64'], ['x64', 'x64'], ['ia32', 'ia32'], ['ppc64', 'ppc64'], ['s390x', 's390x'],
  ['riscv64', 'riscv64'], ['loong64', 'loong64'], ['arm', 'arm'], ['wasm32', 'wasm32']];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find(([token]) => parts.includes(token) || parts.some((p) => p.startsWith(token) && token === 'arm'));
  const entry = {};
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu[1]];
  if (parts.some((p) => p.startsWith('gnu'))) entry.libc = ['glibc'];
  if (parts.some((p) => p.startsWith('musl'))) entry.libc = ['musl'];
  return entry;
}

let added = 0;
for (const [location, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const base = location ? `${location}/node_modules/${dep}` : `node_modules/${dep}`;
    if (packages[base] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform.os && !platform.cpu) continue;
    packages[`node_modules/${dep}`] = { version, dev: meta.dev || undefined, optional: true, ...platform };
    added++;
  }
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-optional: added ${added} foreign-platform entries\n`);
