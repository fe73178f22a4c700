// A Node test service for perflab, standard library only, started with
// `node server.js --addr HOST:PORT [--mode buggy|fixed]`. GET /summary
// answers the weighted total of a 20000-item basket. Planted cost:
// summarize's inner loop (line 26) calls score, a helper small enough that
// V8's optimising compiler inlines it into summarize: a profile sees
// summarize's frame alone, and the cost is on the loop's line, not on the
// function's declaration (line 22). --mode fixed computes the total once
// at start. Both answer the same. GET /healthz answers ok.
'use strict';
const http = require('http');

const basket = Array.from({ length: 20000 }, (_, i) => ({
  price: (i * 7919) % 1000 / 10,
  qty: (i % 7) + 1,
  rating: i % 5,
}));

function score(item) {
  return item.price * item.qty * (1 + item.rating / 10);
}

function summarize(items) {
  let total = 0;
  for (let round = 1; round <= 20; round++) {
    for (let i = 0; i < items.length; i++) {
      total += score(items[i]) / round;
    }
  }
  return Math.round(total);
}

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const addr = arg('--addr', '127.0.0.1:8080');
const mode = arg('--mode', 'buggy');
if (mode !== 'buggy' && mode !== 'fixed') {
  console.error(`nodeinline: --mode ${mode}: want buggy or fixed`);
  process.exit(2);
}
const cached = mode === 'fixed' ? summarize(basket) : 0;

const server = http.createServer((req, res) => {
  if (req.url === '/summary') {
    const total = mode === 'fixed' ? cached : summarize(basket);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`${total}\n`);
  } else if (req.url === '/healthz') {
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
