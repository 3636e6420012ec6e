// Container health: the service's own /health/live, on the port the service itself chose
// (its port variable or the default), so the image needs no per-service port setting.
const { loadServiceConfig } = require('../dist/libs/platform/src/config.js');

const { httpPort } = loadServiceConfig(process.env.APP);
fetch(`http://127.0.0.1:${httpPort}/health/live`, { signal: AbortSignal.timeout(2000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
