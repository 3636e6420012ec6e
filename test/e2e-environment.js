const { TestEnvironment } = require('jest-environment-node');
const pool = require('./mesh-pool');

/**
 * The e2e project's test environment (jest.config.js): Node's, plus the pool of meshes shared by
 * the files of this worker (test/mesh-pool.js), under a symbol TestMesh.shared looks for. Given as
 * a getter: jest clears at a file's end the values a file or its environment put on the global,
 * and the pool must outlive the file.
 */
class MeshEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    Object.defineProperty(this.global, Symbol.for('lead-intelligence.test-mesh-pool'), { get: () => pool, configurable: true });
  }
}

module.exports = MeshEnvironment;
