// A stand-in HTTP server for SupervisedServer's tests: listens on 127.0.0.1:<argv[2]>,
// answers /health with 200 after <argv[3]> ms, prints a line, and exits on SIGTERM.
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const readyAfterMs = Number(process.argv[3] ?? 0);
const startedAt = Date.now();
createServer((request, response) => {
  response.statusCode = request.url === '/health' && Date.now() - startedAt >= readyAfterMs ? 200 : 503;
  response.end(String(process.pid));
}).listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
process.on('SIGTERM', () => process.exit(0));
