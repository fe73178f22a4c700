// A Node test service for perflab, standard library only, started with
// `node server.js --addr HOST:PORT [--mode buggy|fixed]`: one process,
// one JavaScript thread. GET /token?user=N answers a session token for
// user N. Planted cost: issueToken derives the token's key with
// crypto.pbkdf2Sync (8000 rounds of HMAC-SHA256 on the JavaScript
// thread: node's crypto and OpenSSL do the work, issueToken owns it), on
// the line that calls it (line 26), not on its declaration (line 21).
// Under more clients than one core serves, the one JavaScript thread is
// the limit. --mode fixed keeps each user's token once derived. Both
// answer the same. GET /healthz answers ok.
'use strict';
const http = require('http');
const crypto = require('crypto');

const secret = Buffer.from('perflab-nodetoken-secret');
const rounds = 8000;
const tokens = new Map();

// issueToken is the planted cost: the key derived again on every
// request.
function issueToken(user) {
  const seed = `user:${user}`;
  if (seed.length > 64) {
    throw new Error('user: too long');
  }
  const key = crypto.pbkdf2Sync(secret, seed, rounds, 32, 'sha256');
  return key.toString('hex', 0, 16);
}

function cachedToken(user) {
  let t = tokens.get(user);
  if (t === undefined) {
    t = issueToken(user);
    tokens.set(user, t);
  }
  return t;
}

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const addr = arg('--addr', '127.0.0.1:8080');
const mode = arg('--mode', 'buggy');
if (mode !== 'buggy' && mode !== 'fixed') {
  console.error(`nodetoken: --mode ${mode}: want buggy or fixed`);
  process.exit(2);
}

const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://localhost');
  if (u.pathname === '/token') {
    const user = u.searchParams.get('user') || '0';
    const token = mode === 'fixed' ? cachedToken(user) : issueToken(user);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`${token}\n`);
  } else if (u.pathname === '/healthz') {
    res.end('ok\n');
  } else {
    res.writeHead(404);
    res.end('not found\n');
  }
});

const colon = addr.lastIndexOf(':');
server.listen(Number(addr.slice(colon + 1)), addr.slice(0, colon), () => {
  const a = server.address();
  console.log(`listening on http://${a.address}:${a.port}`);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
