// An express test service for perflab's acceptance tests, started with
// plain `node app.js --addr HOST:PORT`. Planted cost, in the application's
// own code: GET /digest runs digestCatalog, a pure-JavaScript rolling hash
// and string building over 3000 catalogue entries per request. GET /healthz
// answers ok.
'use strict';
const express = require('express');

const catalog = Array.from({ length: 3000 }, (_, i) => ({
  sku: `sku-${i}`, name: `item ${i * 7 % 1000}`, price: i * 1.25,
}));

function digestCatalog(items) {
  let acc = 7;
  const parts = [];
  for (const it of items) {
    const line = `${it.sku}|${it.name}|${it.price.toFixed(2)}`;
    for (let i = 0; i < line.length; i++) {
      acc = (Math.imul(acc, 31) + line.charCodeAt(i)) >>> 0;
    }
    parts.push(line.length);
  }
  return { digest: acc.toString(16), lines: parts.length };
}

const app = express();
app.get('/digest', (req, res) => res.json(digestCatalog(catalog)));
app.get('/healthz', (req, res) => res.send('ok\n'));

const i = process.argv.indexOf('--addr');
const addr = i > 0 ? process.argv[i + 1] : '127.0.0.1:8080';
const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
app.listen(port, host, () => console.log(`listening on http://${host}:${port}`));
