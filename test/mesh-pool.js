const { rmSync } = require('node:fs');

/**
 * The meshes shared by the e2e files of one jest worker (TestMesh.shared, test/harness.ts).
 *
 * Jest runs the files of a worker one after another in one process, each in a module registry
 * and a global of its own that are dropped when the file ends; a mesh kept for the next file must
 * outlive them. So the running meshes are kept here, outside every file's registry: the e2e
 * project's test environment (test/e2e-environment.js) loads this module with Node's own require,
 * once per process, and hands it to each file. What is kept is plain data (a JSON string the
 * harness rebuilds its TestMesh from) and the child processes, whose output goes to files, so no
 * function of a finished file keeps running.
 *
 * A mesh is used by one file at a time (take, then release). Its processes do not keep the
 * process alive; when it exits or is sent SIGTERM (jest ends a worker after its last file) they
 * are killed. Their databases are dropped by the e2e project's globalTeardown
 * (test/e2e-teardown.ts), which with --runInBand also stops the meshes.
 */
const STATE = Symbol.for('lead-intelligence.test-mesh-pool');

function state() {
  if (!process[STATE]) {
    process[STATE] = { meshes: new Map(), replaced: [], hooked: false };
  }
  const pool = process[STATE];
  if (!pool.hooked) {
    pool.hooked = true;
    const killAll = () => {
      for (const entry of [...pool.meshes.values(), ...pool.replaced]) kill(entry);
      pool.meshes.clear();
      pool.replaced = [];
    };
    process.once('exit', killAll);
    // jest ends a worker that does not exit at once with SIGTERM, which skips 'exit'
    process.once('SIGTERM', () => {
      killAll();
      if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
    });
  }
  return pool;
}

function kill(entry) {
  for (const child of entry.children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const dir of entry.dirs) rmSync(dir, { recursive: true, force: true });
}

/**
 * How many idle meshes a process keeps besides the one it starts (each is a nats-server and its
 * apps, and about two PostgreSQL connections an app); the least recently used go first. Default
 * 0: a worker runs one mesh at a time, the one it used last kept running for the next file that
 * asks for it (the sequencer runs the files of one shared mesh together, test/sequencer.js).
 */
function idleLimit() {
  const limit = Number(process.env.TEST_SHARED_MESHES ?? 0);
  return Number.isInteger(limit) && limit >= 0 ? limit : 0;
}

module.exports = {
  /**
   * The mesh kept under `key`, now in use by the caller until it releases it; undefined if none.
   * A process runs one file at a time, so a mesh still marked in use when a file asks was left by
   * a file that ended without handing it back (its beforeAll failed after the mesh started): it
   * is free, and the caller checks it as any other (TestMesh.shared).
   */
  take(key) {
    const entry = state().meshes.get(key);
    if (!entry) return undefined;
    entry.busy = true;
    return entry;
  },

  /** Keeps a mesh just started under `key`, in use by the caller. */
  add(key, data, children, dirs) {
    // a worker exits when its files are done, not when its meshes do: 'exit' then stops them
    for (const child of children) child.unref();
    const entry = { key, data, children, dirs, busy: true, usedAt: Date.now() };
    // one kept under this key already (a start a file gave up on, finished later): never orphaned,
    // its processes are stopped with the rest when this process ends
    const before = state().meshes.get(key);
    if (before) state().replaced.push(before);
    state().meshes.set(key, entry);
    return entry;
  },

  /** The caller is done with the mesh; it stays running for the next file that asks for it. */
  release(key) {
    const entry = state().meshes.get(key);
    if (!entry) return;
    entry.busy = false;
    entry.usedAt = Date.now();
  },

  /** Forgets a mesh (the caller stops it). */
  remove(key) {
    state().meshes.delete(key);
  },

  /**
   * The idle meshes to stop before one more is started so that at most `keep` stay idle
   * (TEST_SHARED_MESHES, default 0), least recently used first; they are forgotten here and the
   * caller stops them.
   */
  evict(keep = idleLimit()) {
    const meshes = state().meshes;
    const idle = [...meshes.values()].filter((entry) => !entry.busy).sort((a, b) => a.usedAt - b.usedAt);
    const evicted = idle.slice(0, Math.max(0, idle.length - keep));
    for (const entry of evicted) meshes.delete(entry.key);
    return evicted;
  },

  /** Every mesh, forgotten here: the caller stops them (globalTeardown, in the process that ran the files). */
  drain() {
    const pool = state();
    const all = [...pool.meshes.values(), ...pool.replaced];
    pool.meshes.clear();
    pool.replaced = [];
    return all;
  },
};
