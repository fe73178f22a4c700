// A node cluster test service for perflab, standard library only, started
// with `node server.js --addr HOST:PORT [--workers N]`. The primary forks
// N workers (2 by default) with node's cluster module; they share the
// listening port and serve the requests, the primary only supervises.
// Planted cost, in each worker: GET /login runs hashPassword, which
// derives a key with crypto.pbkdf2Sync (OpenSSL's code does the work,
// hashPassword owns it). GET /healthz answers ok. Once every worker
// listens the primary prints `listening on http://HOST:PORT`; on SIGTERM
// or SIGINT it stops the workers and exits 0.
'use strict';
const cluster = require('cluster');
const crypto = require('crypto');
const http = require('http');

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const addr = arg('--addr', '127.0.0.1:8080');
const colon = addr.lastIndexOf(':');
const host = addr.slice(0, colon);
const port = Number(addr.slice(colon + 1));

function hashPassword(password, salt) {
  return crypto.pbkdf2Sync(password, salt, 40000, 32, 'sha256').toString('hex');
}

if (cluster.isPrimary) {
  const workers = Number(arg('--workers', '2'));
  if (!(workers >= 1)) {
    console.error(`nodecluster: --workers ${arg('--workers')}: want 1 or more`);
    process.exit(2);
  }
  let listening = 0;
  let stopping = false;
  cluster.on('listening', (w, a) => {
    if (++listening === workers) {
      console.log(`listening on http://${host}:${a.port}`);
    }
  });
  cluster.on('exit', (w, code, signal) => {
    if (!stopping) {
      console.error(`nodecluster: worker ${w.process.pid} exited (${signal || code})`);
      process.exitCode = 1;
    }
    if (Object.keys(cluster.workers).length === 0) {
      process.exit();
    }
  });
  for (let i = 0; i < workers; i++) {
    cluster.fork();
  }
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
      stopping = true;
      for (const w of Object.values(cluster.workers)) {
        w.process.kill('SIGTERM');
      }
    });
  }
} else {
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/login')) {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(hashPassword(`user-${process.pid}`, 'perflab-salt') + '\n');
    } else if (req.url === '/healthz') {
      res.end('ok\n');
    } else {
      res.writeHead(404);
      res.end('not found\n');
    }
  });
  server.listen(port, host);
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    });
  }
}
