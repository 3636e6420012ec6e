'use strict';
// A minimal webhook receiver: verifies the signature over the raw body, dedupes on the event id,
// answers 2xx quickly and does the work afterwards.
//
//   WEBHOOK_SECRET=whsec_... TLS_CERT=cert.pem TLS_KEY=key.pem PORT=8443 node examples/webhook-receiver/server.js
//
// Without TLS_CERT/TLS_KEY it listens over plain HTTP (put it behind an HTTPS proxy: the
// service only delivers to HTTPS URLs).
const { readFileSync } = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const { verifySignature } = require('./verify');

const secret = process.env.WEBHOOK_SECRET;
if (!secret || !secret.startsWith('whsec_')) {
  console.error('set WEBHOOK_SECRET to the endpoint secret (whsec_...) shown when the endpoint was created');
  process.exit(1);
}
const seen = new Set(); // use a database table with a unique id in production

function handle(req, res) {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > 1024 * 1024) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks); // verify the bytes as received, before any JSON parsing
    const verdict = verifySignature(rawBody, req.headers['service-signature'], secret);
    if (!verdict.ok) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(verdict.reason);
      return;
    }
    const event = JSON.parse(rawBody.toString('utf8'));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (seen.has(event.id)) return; // a retry of an event already handled
    seen.add(event.id);
    // events may arrive out of order: compare event.created, or fetch the current object
    const object = event.data.object || {};
    console.log(`${event.created} ${event.type} ${event.id} ${object.id || object.object}`); // credits.low's balance has no id
  });
}

const port = Number(process.env.PORT || 8443);
const server = process.env.TLS_CERT && process.env.TLS_KEY
  ? https.createServer({ cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) }, handle)
  : http.createServer(handle);
server.listen(port, () => console.log(`webhook receiver on port ${port}`));
